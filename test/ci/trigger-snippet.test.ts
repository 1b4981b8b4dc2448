/**
 * templates/ci/trigger-runner-fleet.yml: what an upstream cell-deployment pipeline forwards to
 * the models project, evaluated with the rules evaluator and GitLab's documented forwarding
 * (doc/ci/yaml `trigger:forward`: yaml_variables forwards the trigger job's variables,
 * pipeline_variables the upstream pipeline's own; `inherit:variables` limits the global ones).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { evaluatePipeline, jobNames } from "../../lib/ci/gitlab-ci/pipeline";
import { resolvePipeline } from "../../lib/ci/gitlab-ci/include";

const ROOT = join(__dirname, "..", "..");
const snippetText = readFileSync(join(ROOT, "templates", "ci", "trigger-runner-fleet.yml"), "utf8");
const snippet = parse(snippetText) as Record<string, any>;
const template = snippet[".trigger-runner-fleet"];

const upstream = {
  RUNNER_FLEET_MODELS_PROJECT: "platform/runner-fleet-models",
  RUNNER_FLEET_CELL_ID: "cell-7",
  RUNNER_FLEET_GITLAB_URL: "https://cell-7.gitlab.example.com",
  RUNNER_FLEET_CLOUD: "google",
  RUNNER_FLEET_REGION: "europe-west4",
  RUNNER_FLEET_PROJECT_ID: "acme-cell-7",
};

describe("the trigger snippet", () => {
  it("never forwards the upstream pipeline's own variables, only the job's named ones", () => {
    expect(template.trigger.forward).toEqual({ yaml_variables: true, pipeline_variables: false });
    // Only the RUNNER_FLEET_* globals are inherited, and every one the job expands is among them.
    const inherited: string[] = template.inherit.variables;
    expect(inherited.every((name) => name.startsWith("RUNNER_FLEET_"))).toBe(true);
    const expanded = Object.values(template.variables as Record<string, string>).map((value) => value.replace(/^\$/, ""));
    for (const name of [...expanded, "RUNNER_FLEET_MODELS_PROJECT"]) expect(inherited).toContain(name);
    expect(Object.keys(template.variables)).toEqual(["CELL_ID", "GITLAB_URL", "CLOUD", "REGION", "PROJECT"]);
  });

  it("runs in the upstream pipeline only when it names the models project and the cell", () => {
    const upstreamPipeline = `${snippetText}\ndeploy-cell:\n  script: deploy\n  rules:\n    - when: on_success\n`;
    const source = { CI_PIPELINE_SOURCE: "push", CI_COMMIT_BRANCH: "main", CI_DEFAULT_BRANCH: "main" };
    expect(jobNames(evaluatePipeline(upstreamPipeline, { ...source, ...upstream }))).toEqual(["trigger-runner-fleet", "deploy-cell"]);
    const { RUNNER_FLEET_CELL_ID: _cell, ...withoutCell } = upstream;
    expect(jobNames(evaluatePipeline(upstreamPipeline, { ...source, ...withoutCell }))).toEqual(["deploy-cell"]);
  });

  it("gives the models pipeline the names it reads: the downstream pipeline provisions the cell", () => {
    // What the downstream pipeline receives: the trigger job's variables, expanded upstream.
    const forwarded = Object.fromEntries(
      Object.entries(template.variables as Record<string, string>).map(([name, value]) => [name, upstream[value.replace(/^\$/, "") as keyof typeof upstream]]),
    );
    expect(forwarded).toEqual({ CELL_ID: "cell-7", GITLAB_URL: upstream.RUNNER_FLEET_GITLAB_URL, CLOUD: "google", REGION: "europe-west4", PROJECT: "acme-cell-7" });
    const downstream = { CI_PIPELINE_SOURCE: "pipeline", CI_COMMIT_BRANCH: "main", CI_DEFAULT_BRANCH: "main", ...forwarded };
    expect(jobNames(evaluatePipeline(resolvePipeline(ROOT), downstream))).toEqual(["provision:triggered"]);
  });

  it("documents the permission the upstream user really needs", () => {
    expect(snippetText).toMatch(/allowed to merge" or "allowed to push"/);
    expect(snippetText).toContain("protected");
  });
});
