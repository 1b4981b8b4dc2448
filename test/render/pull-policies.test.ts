/**
 * What a job may take from its worker's image cache (lib/model/pull-policy.ts). gitlab-runner falls back to
 * the next pull policy after any failed pull, an authentication failure included, and lets a job pick its own
 * policies among allowed_pull_policies, which default to pull_policy (executors/docker/internal/pull/manager.go
 * GetDockerImage; common/config.go GetAllowedPullPolicies). The rendered config.toml is read back with
 * Python's tomllib, a TOML parser of its own, as a second reader after smol-toml.
 */
import { execFileSync } from "node:child_process";
import type { RunnerModel } from "../../lib/model/schema";
import { renderConfigToml } from "../../lib/render/manager-files";
import { modelWith } from "../support/models";

interface DockerSection {
  readonly pull_policy: string[];
  readonly allowed_pull_policies?: string[];
}

/** [runners.docker] of manager 0 of every shard, as tomllib reads it. */
function dockerSections(model: RunnerModel): DockerSection[] {
  const documents = model.shards.map((shard) => renderConfigToml(model, shard, 0));
  const script = "import json, sys, tomllib\nprint(json.dumps([tomllib.loads(text)['runners'][0]['docker'] for text in json.load(sys.stdin)]))";
  return JSON.parse(execFileSync("python3", ["-c", script], { input: JSON.stringify(documents), encoding: "utf8" })) as DockerSection[];
}

describe("pull policies of workers whose cache serves more than one job", () => {
  it("renders [always] and allows only it on reused workers (max_use_count 5, and 0: unlimited)", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards.push({ ...structuredClone(m.shards[0]), name: "unlimited", workers: { ...m.shards[0].workers, max_use_count: 0 } });
    });
    expect(model.shards[0].workers.max_use_count).toBe(5);

    const [reused, unlimited] = dockerSections(model);

    expect(reused).toMatchObject({ pull_policy: ["always"], allowed_pull_policies: ["always"] });
    expect(unlimited).toMatchObject({ pull_policy: ["always"], allowed_pull_policies: ["always"] });
  });

  it("keeps the registry fallback on single-use, single-job workers, and still names what a job may ask for", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].workers.max_use_count = 1;
    });

    expect(dockerSections(model)[0]).toEqual(expect.objectContaining({ pull_policy: ["always", "if-not-present"], allowed_pull_policies: ["always", "if-not-present"] }));
  });

  it("renders the model's own choice on a reused worker as written (prepare warns about it), allowing nothing beyond it", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].docker.pull_policy = ["if-not-present"];
    });

    expect(dockerSections(model)[0]).toMatchObject({ pull_policy: ["if-not-present"], allowed_pull_policies: ["if-not-present"] });
  });
});
