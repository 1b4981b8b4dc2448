/**
 * `status --read-state` reads the version that applied a cell from a remote state, through the real
 * terraform: the cell's backend block alone (lib/terraform/backend-block.ts), init, `output -json`.
 * The remote is GitLab-managed state (test/support/gitlab-state-stand-in.ts, after GitLab's own API),
 * written first by a real `terraform apply` of a stack with the block stacks/backend.ts configures.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerraformStack, Testing } from "cdktf";
import { formatStatusReport, runStatus } from "../../app/commands/status";
import { toolkitVersion } from "../../lib/files/toolkit-version";
import type { RunnerModel } from "../../lib/model/schema";
import { configureBackend } from "../../stacks/backend";
import { recordToolkitVersion } from "../../stacks/cell-stack";
import { GitLabStateStandIn } from "../support/gitlab-state-stand-in";
import { modelWith } from "../support/models";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { isolatedEnv, terraform, terraformBinary } from "../support/real-engine/terraform-cli";

const TOKEN = "glpat-state-token-0123456789";
const WRONG_TOKEN = "glpat-wrong-token-9876543210";
const PROJECT = "infra/runner-models";

describeWithRealEngine("status --read-state, with the real terraform and GitLab-managed state", { aws: false }, () => {
  const gitlab = new GitLabStateStandIn(TOKEN);
  let dir: string;
  let report: Awaited<ReturnType<typeof runStatus>>;
  const logged: string[] = [];

  /** A cell whose state GitLab keeps under `name`, read with the token in $`tokenEnv`. */
  const httpCell = (cell: string, tokenEnv = "STATE_TOKEN") =>
    modelWith("cell-1", (model) => {
      model.cell.id = cell;
      model.state = { backend: "http", project_id: PROJECT, api_url: gitlab.apiUrl, username: "gitlab-ci-token", password_env: tokenEnv } as RunnerModel["state"];
    });

  beforeAll(async () => {
    await gitlab.start();
    dir = mkdtempSync(join(tmpdir(), "runner-fleet-remote-state-"));
    // cell-a: applied for real through the http backend, as provision applies a cell.
    const applied = httpCell("cell-a");
    const stack = new TerraformStack(Testing.app(), "cell-a");
    configureBackend(stack, applied, { workDir: dir });
    recordToolkitVersion(stack);
    const workspace = join(dir, "cell-a");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "main.tf.json"), Testing.synth(stack));
    const env = isolatedEnv({ TF_HTTP_USERNAME: "gitlab-ci-token", TF_HTTP_PASSWORD: TOKEN });
    await terraform(["init", "-input=false", "-no-color"], workspace, env);
    await terraform(["apply", "-auto-approve", "-input=false", "-no-color"], workspace, env);
    // cell-b: applied by a toolkit from before the version was recorded; cell-e: a state with no file yet.
    gitlab.seed(PROJECT, "cell-b", JSON.stringify({ version: 4, terraform_version: "1.9.0", serial: 7, lineage: "b", outputs: { shards: { value: ["a"], type: ["list", "string"] } }, resources: [] }));
    gitlab.seed(PROJECT, "cell-e", "");

    const local = modelWith("cell-1", (model) => {
      model.cell.id = "cell-f";
      model.state = { backend: "local", path: "cell-f.tfstate" } as RunnerModel["state"];
    });
    writeFileSync(join(dir, "cell-f.tfstate"), JSON.stringify({ version: 4, outputs: { runner_fleet_version: { value: "0.0.9", type: "string" } }, resources: [] }));

    report = await runStatus({
      runnerModels: [
        { file: "models/cell-a.yaml", model: applied },
        { file: "models/cell-b.yaml", model: httpCell("cell-b") },
        // cell-c: GitLab has no state of that name.
        { file: "models/cell-c.yaml", model: httpCell("cell-c") },
        // cell-d: a token GitLab refuses; cell-g: no token at all.
        { file: "models/cell-d.yaml", model: httpCell("cell-d", "WRONG_STATE_TOKEN") },
        { file: "models/cell-e.yaml", model: httpCell("cell-e") },
        { file: "models/cell-f.yaml", model: local },
        { file: "models/cell-g.yaml", model: httpCell("cell-g", "UNSET_STATE_TOKEN") },
      ],
      env: isolatedEnv({ STATE_TOKEN: TOKEN, WRONG_STATE_TOKEN: WRONG_TOKEN }),
      readState: true,
      engine: "terraform",
      engineExecutable: terraformBinary(),
      workDir: dir,
      log: (line) => logged.push(line),
    });
  });

  afterAll(async () => {
    await gitlab.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const versionOf = (cell: string) => report.cells.find((each) => each.cell === cell)!.provisionedBy;
  const stateAddress = (cell: string) => `${gitlab.apiUrl}/projects/infra%2Frunner-models/terraform/state/${cell}`;

  it("reads the version the real apply wrote to GitLab's state", () => {
    expect(JSON.parse(gitlab.stateOf(PROJECT, "cell-a")!).outputs.runner_fleet_version.value).toBe(toolkitVersion());
    expect(versionOf("cell-a")).toEqual({ version: toolkitVersion(), source: `the http state ${stateAddress("cell-a")}` });
    expect(formatStatusReport(report)).toContain(`cell-a  https://cell-1.gitlab.example.com  (not checked)  applied by runner-fleet ${toolkitVersion()}\n`);
  });

  it("tells a state of an older toolkit, a missing and an empty state apart", () => {
    expect(versionOf("cell-b")).toEqual({ version: null, reason: `applied by a version before runner_fleet_version was recorded (no such output in the http state ${stateAddress("cell-b")})` });
    for (const cell of ["cell-c", "cell-e"]) {
      expect(versionOf(cell)).toEqual({ version: null, reason: `the http state ${stateAddress(cell)} holds no outputs: never applied, or not by runner-fleet` });
    }
  });

  it("says why a state could not be read, and never shows the token it was refused", () => {
    expect(versionOf("cell-d")).toEqual({ version: null, reason: `the http state ${stateAddress("cell-d")} not read: terraform init failed: Error refreshing state: HTTP remote state endpoint requires auth` });
    expect(versionOf("cell-g")).toMatchObject({ version: null, reason: expect.stringContaining("not read: cell cell-g keeps its state in GitLab (state.backend: http, project infra/runner-models), which needs UNSET_STATE_TOKEN") });
    const everything = JSON.stringify(report) + formatStatusReport(report) + logged.join("\n");
    expect(everything).not.toContain(WRONG_TOKEN);
    expect(everything).not.toContain(TOKEN);
  });

  it("stops a read the backend never answers after the retry timeout, and says so", async () => {
    gitlab.neverAnswer(PROJECT, "cell-h");
    const started = Date.now();
    const stuck = await runStatus({
      runnerModels: [{ file: "models/cell-h.yaml", model: httpCell("cell-h") }],
      env: isolatedEnv({ STATE_TOKEN: TOKEN }),
      readState: true,
      engine: "terraform",
      engineExecutable: terraformBinary(),
      workDir: dir,
      retryTimeout: "2s",
      log: () => {},
    });
    expect(stuck.cells[0].provisionedBy).toEqual({ version: null, reason: `the http state ${stateAddress("cell-h")} not read: terraform init did not finish within 2s and was stopped` });
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it("reads a local state offline, without the engine", () => {
    expect(versionOf("cell-f")).toEqual({ version: "0.0.9", source: "cell-f.tfstate" });
    expect(logged.filter((line) => line.includes("cell-f"))).toEqual([]);
    expect(logged).toContain("cell cell-a: reading the applied version from its http state (terraform init)...");
  });

  it("reads with GitLab's state user, and leaves no workspace behind", () => {
    const reads = gitlab.requests.filter((request) => request.method === "GET");
    expect(new Set(reads.map((request) => request.user))).toEqual(new Set(["gitlab-ci-token"]));
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith("runner-fleet-state-"))).toEqual([]);
  });
});
