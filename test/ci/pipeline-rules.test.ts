/**
 * Which jobs exist in each kind of pipeline, from .gitlab-ci.yml and the child pipelines
 * `review --child-pipeline` renders, evaluated with the rules evaluator in test/support
 * (itself tested against GitLab's documented examples in gitlab-rules-evaluator.test.ts).
 * Predefined variables per pipeline kind follow doc/ci/variables/predefined_variables.md and
 * doc/ci/jobs/job_rules.md ("Run jobs only in specific pipeline types"): merge request
 * pipelines have CI_MERGE_REQUEST_* and no CI_COMMIT_BRANCH; child pipelines have
 * CI_PIPELINE_SOURCE=parent_pipeline and, under a merge request pipeline, its CI_MERGE_REQUEST_*.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { renderChildPipeline, type ChildPipelineOptions } from "../../lib/ci/child-pipeline";
import { mergeRequestVariables, projectVariables } from "../support/pipeline-variables";
import { evaluatePipeline, jobNames, type CreatedJob } from "../support/gitlab-pipeline";

const ROOT = join(__dirname, "..", "..");
const rootPipeline = readFileSync(join(ROOT, ".gitlab-ci.yml"), "utf8");

const project = projectVariables;
const mergeRequest = mergeRequestVariables;
const defaultBranch = { ...project, CI_COMMIT_BRANCH: "main", CI_COMMIT_REF_NAME: "main" };
const push = { ...defaultBranch, CI_PIPELINE_SOURCE: "push" };
const schedule = { ...defaultBranch, CI_PIPELINE_SOURCE: "schedule" };
const webAllCells = { ...defaultBranch, CI_PIPELINE_SOURCE: "web", APPLY_ALL_CELLS: "true" };
const triggered = { ...defaultBranch, CI_PIPELINE_SOURCE: "pipeline", CELL_ID: "cell-7", GITLAB_URL: "https://cell-7.example.com" };
/** A child pipeline: parent_pipeline, with the parent's merge request variables when there are any. */
const childOf = (parent: Record<string, string>) => ({ ...parent, CI_PIPELINE_SOURCE: "parent_pipeline" });

const child = (options: Omit<ChildPipelineOptions, "base"> & { base?: string }) => renderChildPipeline({ base: "0123abcd", ...options });
const createdJob = (outcome: ReturnType<typeof evaluatePipeline>, name: string): CreatedJob => {
  if (!outcome.created) throw new Error(`pipeline not created: ${outcome.reason}`);
  const job = outcome.jobs.find((entry) => entry.name === name);
  if (!job) throw new Error(`no job ${name} in ${outcome.jobs.map((entry) => entry.name).join(", ")}`);
  return job;
};

describe("the models project's pipeline (.gitlab-ci.yml)", () => {
  it("merge request event: validates, reviews, and triggers the plan child pipeline", () => {
    expect(jobNames(evaluatePipeline(rootPipeline, mergeRequest))).toEqual(["prepare", "review", "plan:generate", "plan"]);
  });

  it("push to the default branch: validates and triggers the apply child pipeline", () => {
    expect(jobNames(evaluatePipeline(rootPipeline, push))).toEqual(["prepare", "apply:generate", "apply"]);
  });

  it("web run with APPLY_ALL_CELLS: the same jobs; apply:generate takes every cell", () => {
    const outcome = evaluatePipeline(rootPipeline, webAllCells);
    expect(jobNames(outcome)).toEqual(["prepare", "apply:generate", "apply"]);
    expect(createdJob(outcome, "apply:generate").definition.script).toEqual([expect.stringContaining('"${APPLY_ALL_CELLS:-}" = "true"')]);
  });

  it("trigger or downstream pipeline with CELL_ID: provisions only that cell", () => {
    for (const source of ["pipeline", "trigger", "api"]) {
      const outcome = evaluatePipeline(rootPipeline, { ...triggered, CI_PIPELINE_SOURCE: source });
      expect(jobNames(outcome)).toEqual(["provision:triggered"]);
      expect(createdJob(outcome, "provision:triggered").definition.resource_group).toBe("runner-fleet-$CELL_ID");
    }
  });

  it("trigger without CELL_ID: one job that fails with what is missing", () => {
    const { CELL_ID: _cell, ...withoutCell } = triggered;
    expect(jobNames(evaluatePipeline(rootPipeline, withoutCell))).toEqual(["provision:missing-cell-id"]);
  });

  it("schedule: only the drift check, which triggers one drift job per cell", () => {
    expect(jobNames(evaluatePipeline(rootPipeline, schedule))).toEqual(["drift:generate", "drift"]);
  });

  it("creates no pipeline for a branch push without a merge request, nor a schedule on another branch", () => {
    expect(jobNames(evaluatePipeline(rootPipeline, { ...push, CI_COMMIT_BRANCH: "feature", CI_COMMIT_REF_NAME: "feature" }))).toBe(
      "not created: no workflow rule matches",
    );
    expect(jobNames(evaluatePipeline(rootPipeline, { ...schedule, CI_COMMIT_BRANCH: "feature" }))).toBe("not created: no workflow rule matches");
  });

  it("offers APPLY_MODE and APPLY_ALL_CELLS in the Run pipeline form, and hands APPLY_MODE to the apply child", () => {
    const variables = (parse(rootPipeline) as { variables: Record<string, unknown> }).variables;
    expect(variables.APPLY_MODE).toMatchObject({ value: "auto", options: ["auto", "manual"] });
    expect(variables.APPLY_ALL_CELLS).toMatchObject({ value: "false", options: ["false", "true"] });
    const outcome = evaluatePipeline(rootPipeline, push);
    expect(createdJob(outcome, "apply:generate").definition.script[0]).toContain('--apply-mode "${APPLY_MODE:-auto}"');
  });
});

describe("the README's \"Running it in GitLab\" section", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Running it in GitLab"), readme.indexOf("\n## ", readme.indexOf("## Running it in GitLab") + 5));

  it("documents every variable the pipeline declares, and every pipeline kind", () => {
    const declared = Object.keys((parse(rootPipeline) as { variables: Record<string, unknown> }).variables).filter((name) => name !== "npm_config_cache");
    for (const name of declared) expect(section).toContain(`\`${name}\``);
    for (const kind of ["merge request", "push to the default branch", "Run pipeline", "schedule", "triggered"]) expect(section).toContain(kind);
    for (const topic of ["**Permissions.**", "**Environments.**", "**The schedule.**", "**The reviewed plan.**"]) expect(section).toContain(topic);
  });
});

describe("the child pipelines", () => {
  it("the child of a merge request pipeline gets its plan jobs (jobs without rules would get none)", () => {
    const yaml = child({ mode: "plan", cells: ["cell-1", "cell-2"], removed: ["cell-9"] });
    expect(jobNames(evaluatePipeline(yaml, childOf(mergeRequest)))).toEqual(["plan:cell-1", "plan:cell-2", "removed-models"]);
  });

  it("a plan child with no changed cell still has its no-op job under a merge request", () => {
    expect(jobNames(evaluatePipeline(child({ mode: "plan", cells: [] }), childOf(mergeRequest)))).toEqual(["no-cell-to-plan"]);
  });

  it("plan jobs publish the Terraform report GitLab's merge request widget reads, beside the summary", () => {
    const job = createdJob(evaluatePipeline(child({ mode: "plan", cells: ["cell-1"] }), childOf(mergeRequest)), "plan:cell-1");
    expect(job.definition.artifacts).toMatchObject({
      paths: ["plan-cell-1.json", "plan-cell-1.md", "plan-out/cell-1/"],
      reports: { terraform: "plan-cell-1.tfreport.json" },
    });
    expect(job.definition.script[0]).toContain("--terraform-report plan-cell-1.tfreport.json");
  });

  it("the child of a default-branch pipeline applies each cell in its environment, automatically by default", () => {
    const outcome = evaluatePipeline(child({ mode: "apply", cells: ["cell-1"] }), childOf(push));
    const job = createdJob(outcome, "apply:cell-1");
    expect(job.when).toBe("on_success");
    expect(job.definition).toMatchObject({ resource_group: "runner-fleet-cell-1", environment: { name: "runner-fleet/cell-1", action: "start" } });
    expect(job.definition.script).toEqual([
      "sh ci/fetch-reviewed-plan.sh cell-1 reviewed-plan/cell-1",
      "./bin/provision --model cell-1 --auto-approve --apply-plan reviewed-plan/cell-1/cell-1.tfplan --replan-if-stale",
      "./bin/onboard --model cell-1 --status --require-online",
    ]);
  });

  it("APPLY_MODE=manual makes every apply job wait for a person", () => {
    const outcome = evaluatePipeline(child({ mode: "apply", cells: ["cell-1", "cell-2"], applyMode: "manual" }), childOf(webAllCells));
    expect(outcome.created && outcome.jobs.map((job) => [job.name, job.when])).toEqual([
      ["apply:cell-1", "manual"],
      ["apply:cell-2", "manual"],
    ]);
  });

  it("the child of a schedule checks each cell for drift; exit 3 (drift) is a warning, not a failure", () => {
    const outcome = evaluatePipeline(child({ mode: "drift", cells: ["cell-1", "cell-2"] }), childOf(schedule));
    expect(jobNames(outcome)).toEqual(["drift:cell-1", "drift:cell-2"]);
    const job = createdJob(outcome, "drift:cell-1");
    expect(job.definition.allow_failure).toEqual({ exit_codes: [3] });
    expect(job.definition.artifacts).toMatchObject({ when: "always", paths: ["drift-cell-1.json", "drift-cell-1.md"] });
    expect(job.definition.script[0]).toContain("--drift");
  });

  it("a child file is not a pipeline of its own (workflow:rules admit only parent_pipeline)", () => {
    expect(jobNames(evaluatePipeline(child({ mode: "apply", cells: ["cell-1"] }), push))).toBe("not created: no workflow rule matches");
  });
});
