/**
 * Which jobs exist in each kind of pipeline, from .gitlab-ci.yml (the CI/CD component
 * templates/runner-fleet.yml it includes, merged as GitLab merges includes: lib/ci/gitlab-ci/include.ts),
 * the component as a models repository includes it with other inputs, and the child pipelines
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
import { reviewCommand } from "../../app/commands/review";
import { parseReviewOptions } from "../../app/commands/review-options";
import { renderChildPipeline, type ChildPipelineOptions } from "../../lib/ci/child-pipeline";
import { parsedCommandLine } from "../support/command-line";
import { pipelineYaml, resolvePipeline, resolvePipelineText } from "../../lib/ci/gitlab-ci/include";
import { mergeRequestVariables, projectVariables } from "../support/pipeline-variables";
import { evaluatePipeline, jobNames, type CreatedJob } from "../../lib/ci/gitlab-ci/pipeline";
import { runPipeline } from "../support/gitlab-dag-run";
import { DEFAULT_ROLLOUT_POLICY } from "../../lib/rollout/policy-schema";
import { planWaves } from "../../lib/rollout/waves";

const ROOT = join(__dirname, "..", "..");
const rootPipeline = resolvePipeline(ROOT);

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

  it("trigger or downstream pipeline with CELL_ID: provisions only that cell, in its environment and resource group", () => {
    for (const source of ["pipeline", "trigger", "api"]) {
      const outcome = evaluatePipeline(rootPipeline, { ...triggered, CI_PIPELINE_SOURCE: source });
      expect(jobNames(outcome)).toEqual(["provision:triggered"]);
      const job = createdJob(outcome, "provision:triggered");
      expect(job.when).toBe("on_success");
      expect(job.definition).toMatchObject({ resource_group: "runner-fleet-$CELL_ID", environment: { name: "runner-fleet/$CELL_ID", action: "start" } });
    }
  });

  it("trigger with APPLY_MODE=manual: the triggered job waits for a person, as every apply does", () => {
    const job = createdJob(evaluatePipeline(rootPipeline, { ...triggered, APPLY_MODE: "manual" }), "provision:triggered");
    expect(job.when).toBe("manual");
  });

  it("trigger: the secrets' destinations come from the inputs (the defaults here), then a missing model is proposed and the job stops before provision", () => {
    const script = createdJob(evaluatePipeline(rootPipeline, triggered), "provision:triggered").definition.script as string[];
    expect(script[0]).toBe('./bin/runner-fleet.js prepare --generate --if-missing --admin-token-env "GITLAB_TOKEN" --allowed-gitlab-urls ""');
    expect(script[1]).toContain('if ! git ls-files --error-unmatch -- "models/$CELL_ID.yaml"');
    expect(script[1]).toContain('bash "./ci/propose-generated-model.sh" MODELS_PUSH_TOKEN');
    expect(script[1]).toContain("exit 0");
    expect(script.slice(2)).toEqual(['./bin/runner-fleet.js provision --model "$CELL_ID" --auto-approve', './bin/runner-fleet.js onboard --model "$CELL_ID" --status --require-online']);
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

describe("docs/guide/pipeline.md's \"Running it in GitLab\" section", () => {
  const readme = readFileSync(join(ROOT, "docs", "guide", "pipeline.md"), "utf8");
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
      "./bin/provision --model cell-1 --auto-approve --reviewed-plan reviewed-plan/cell-1/cell-1.tfplan --allow-unreviewed",
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

describe("the component as a models repository includes it, with inputs other than the defaults", () => {
  const inputs = {
    engine: "tofu",
    engine_version: "1.9.1",
    toolkit_version: "1.2.0",
    apply_mode: "manual",
    models_dir: "infra/models",
    lock_timeout: "10m",
    image: "node:22-bookworm",
    prepare_stage: "validate",
    review_stage: "check",
    cells_stage: "runner cells",
    provision_stage: "deliver",
    gitlab_token_env: "CELLS_ADMIN_TOKEN",
    trigger_gitlab_urls: "https://cell-7.example.com https://cell-8.example.com",
  };
  /** A team's .gitlab-ci.yml: the component, and a job of the team's own. */
  const teamFile = [
    "include:",
    "  - local: templates/runner-fleet.yml",
    "    inputs:",
    ...Object.entries(inputs).map(([name, value]) => `      ${name}: ${JSON.stringify(value)}`),
    "lint-docs:",
    "  stage: check",
    "  script: [make lint-docs]",
    "  rules: [{ if: $CI_PIPELINE_SOURCE == \"merge_request_event\" }]",
  ].join("\n");
  const config = resolvePipelineText(ROOT, teamFile);
  const team = pipelineYaml(config);
  const stageOf = (outcome: ReturnType<typeof evaluatePipeline>) => (outcome.created ? outcome.jobs.map((job) => [job.name, job.definition.stage]) : outcome.reason);

  it("declares the stages it was given, in order", () => {
    expect(config.stages).toEqual(["validate", "check", "runner cells", "deliver"]);
  });

  it("merge request: the same jobs, in the stages given, beside the team's own job", () => {
    // Included jobs come first: GitLab merges the including file's own keys on top of the includes.
    expect(stageOf(evaluatePipeline(team, mergeRequest))).toEqual([
      ["prepare", "validate"],
      ["review", "check"],
      ["plan:generate", "check"],
      ["plan", "runner cells"],
      ["lint-docs", "check"],
    ]);
  });

  it("merge request: every job installs the toolkit the lockfile pins, checks it is the version asked for, and runs it through npx without fetching", () => {
    const outcome = evaluatePipeline(team, mergeRequest);
    for (const name of ["prepare", "review", "plan:generate"]) {
      const job = createdJob(outcome, name);
      expect(job.definition.before_script.slice(0, 3)).toEqual([
        "npm ci --prefer-offline --no-audit --no-fund",
        'sh "node_modules/runner-fleet/ci/build-checkout.sh"',
        'sh "node_modules/runner-fleet/ci/check-toolkit-version.sh" "1.2.0"',
      ]);
      expect(job.definition.script[0]).toMatch(/^npx --no-install runner-fleet (prepare|review) /);
      expect(job.definition.image).toBe("node:22-bookworm");
    }
    expect(createdJob(outcome, "prepare").definition.before_script[3]).toBe('bash "node_modules/runner-fleet/ci/install-engine.sh"');
  });

  it("the component's settings leave the team's own job alone (no `default:`)", () => {
    const own = createdJob(evaluatePipeline(team, mergeRequest), "lint-docs").definition;
    expect(own).toEqual({ stage: "check", script: ["make lint-docs"], rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }] });
    expect(config.default).toBeUndefined();
  });

  it("merge request: the plan child pipeline the review writes runs the same toolkit, the same way", () => {
    const line = createdJob(evaluatePipeline(team, mergeRequest), "plan:generate").definition.script[0] as string;
    const args = [...line.replace(/^npx --no-install runner-fleet review /, "").matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]);
    const { mode } = parseReviewOptions(parsedCommandLine(reviewCommand(), args));
    if (mode.kind !== "child-pipeline") throw new Error(`parsed as ${mode.kind}`);
    expect(mode).toMatchObject({ pipeline: "plan", image: "node:22-bookworm", toolkit: { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" } });
    const planChild = renderChildPipeline({ base: "0123abcd", mode: mode.pipeline, cells: ["cell-1"], image: mode.image, toolkit: mode.toolkit });
    const job = createdJob(evaluatePipeline(planChild, childOf(mergeRequest)), "plan:cell-1");
    expect(job.definition.image).toBe("node:22-bookworm");
    expect(job.definition.before_script).toEqual([
      "npm ci --cache .npm --prefer-offline --no-audit --no-fund",
      "sh node_modules/runner-fleet/ci/build-checkout.sh",
      "bash node_modules/runner-fleet/ci/install-engine.sh",
    ]);
    expect(job.definition.script[0]).toMatch(/^npx --no-install runner-fleet provision --model cell-1 --plan --skip-onboard /);
  });

  it("merge: validates, then writes an apply child whose jobs wait for a person (apply_mode manual)", () => {
    const outcome = evaluatePipeline(team, push);
    expect(stageOf(outcome)).toEqual([
      ["prepare", "validate"],
      ["apply:generate", "check"],
      ["apply", "runner cells"],
    ]);
    expect((config.variables as Record<string, { value: string }>).APPLY_MODE.value).toBe("manual");
    const script = createdJob(outcome, "apply:generate").definition.script[0] as string;
    expect(script).toContain('--apply-mode "${APPLY_MODE:-manual}"');
    expect(script).toContain('base="$(sh "node_modules/runner-fleet/ci/previous-commit.sh")"');
    const applyChild = renderChildPipeline({ base: "0123abcd", mode: "apply", cells: ["cell-1"], applyMode: "manual", toolkit: { command: "npx --no-install runner-fleet", dir: "node_modules/runner-fleet" } });
    const job = createdJob(evaluatePipeline(applyChild, childOf(push)), "apply:cell-1");
    expect(job.when).toBe("manual");
    expect(job.definition.script[0]).toBe("sh node_modules/runner-fleet/ci/fetch-reviewed-plan.sh cell-1 reviewed-plan/cell-1");
  });

  it("downstream trigger with CELL_ID: provisions that cell in the provision stage given, its generated model kept from the models directory given", () => {
    for (const source of ["pipeline", "trigger", "api"]) {
      const outcome = evaluatePipeline(team, { ...triggered, CI_PIPELINE_SOURCE: source });
      expect(stageOf(outcome)).toEqual([["provision:triggered", "deliver"]]);
      const job = createdJob(outcome, "provision:triggered").definition;
      expect(job.artifacts.paths).toEqual(["infra/models/$CELL_ID.yaml"]);
      expect(job.script[0]).toBe(
        'npx --no-install runner-fleet prepare --generate --if-missing --admin-token-env "CELLS_ADMIN_TOKEN" --allowed-gitlab-urls "https://cell-7.example.com https://cell-8.example.com"',
      );
      expect(job.script[1]).toContain('git ls-files --error-unmatch -- "infra/models/$CELL_ID.yaml"');
      expect(job.script.slice(2)).toEqual([
        'npx --no-install runner-fleet provision --model "$CELL_ID" --auto-approve',
        'npx --no-install runner-fleet onboard --model "$CELL_ID" --status --require-online',
      ]);
      // apply_mode manual: a trigger waits for a person too.
      expect(createdJob(outcome, "provision:triggered").when).toBe("manual");
    }
    const { CELL_ID: _cell, ...withoutCell } = triggered;
    expect(stageOf(evaluatePipeline(team, withoutCell))).toEqual([["provision:missing-cell-id", "deliver"]]);
  });

  it("hands the engine, its version, the models directory and the lock timeout to every job and child pipeline as variables", () => {
    expect(config.variables).toMatchObject({
      RUNNER_ENGINE: "tofu",
      RUNNER_ENGINE_VERSION: "1.9.1",
      RUNNER_ENGINE_SHA256: "",
      RUNNER_MODELS_DIR: "infra/models",
      RUNNER_LOCK_TIMEOUT: "10m",
    });
  });

  it("schedule: the drift check, in the stages given", () => {
    expect(stageOf(evaluatePipeline(team, schedule))).toEqual([
      ["drift:generate", "check"],
      ["drift", "runner cells"],
    ]);
  });
});

describe("a team's own stages", () => {
  it("replace the component's list (an include is merged key by key, arrays replaced), so the docs say to name the component's stages in them", () => {
    const config = resolvePipelineText(ROOT, "include:\n  - local: templates/runner-fleet.yml\nstages: [build, prepare, review, cells, provision, deploy]\n");
    expect(config.stages).toEqual(["build", "prepare", "review", "cells", "provision", "deploy"]);
    expect(readFileSync(join(ROOT, "docs", "guide", "pipeline.md"), "utf8")).toContain("name the component's four stages in it too");
  });
});

describe("every job of the component that can apply has an environment", () => {
  // What "can apply" means: a provision that is not a plan, drift check or dry run, or an onboard (it
  // creates runners with the admin token). A protected environment's approvals and deployers, and
  // environment-scoped credentials, can gate only jobs that deploy to an environment.
  // A line that only prints advice (`echo '... provision --destroy ...'`) runs nothing.
  const applies = (line: string) =>
    !/^echo /.test(line) && (/(^|[\s/])onboard\s/.test(line) || (/(^|[\s/])provision\s/.test(line) && !/--(plan|drift|dry-run)\b/.test(line)));
  const component = pipelineYaml(resolvePipelineText(ROOT, "include:\n  - local: templates/runner-fleet.yml\n"));
  const kinds: Record<string, Record<string, string>> = {
    "merge request": mergeRequest,
    push,
    "web run": webAllCells,
    schedule,
    triggered,
    "triggered with APPLY_MODE=manual": { ...triggered, APPLY_MODE: "manual" },
    "triggered without CELL_ID": Object.fromEntries(Object.entries(triggered).filter(([name]) => name !== "CELL_ID")),
  };
  const created = Object.values(kinds).flatMap((variables) => {
    const outcome = evaluatePipeline(component, variables);
    return outcome.created ? outcome.jobs : [];
  });
  const jobsOf = (outcome: ReturnType<typeof evaluatePipeline>): readonly CreatedJob[] => {
    if (!outcome.created) throw new Error(`pipeline not created: ${outcome.reason}`);
    return outcome.jobs;
  };
  const children = [
    ...jobsOf(evaluatePipeline(child({ mode: "apply", cells: ["cell-1"], removed: ["cell-2"] }), childOf(push))),
    ...jobsOf(evaluatePipeline(child({ mode: "plan", cells: ["cell-1"] }), childOf(mergeRequest))),
    ...jobsOf(evaluatePipeline(child({ mode: "drift", cells: ["cell-1"] }), childOf(schedule))),
  ];
  const linesOf = (job: CreatedJob): string[] => [job.definition.before_script, job.definition.script].flat().filter((line): line is string => typeof line === "string");

  it("covers every job the component declares (each is created by some kind of pipeline)", () => {
    const declared = Object.keys(parse(component) as Record<string, unknown>).filter((key) => !key.startsWith(".") && !["workflow", "stages", "variables", "spec"].includes(key));
    expect([...new Set(created.map((job) => job.name))].sort()).toEqual(declared.sort());
  });

  it("finds the jobs that apply (the check is not vacuous)", () => {
    expect([...new Set([...created, ...children].filter((job) => linesOf(job).some(applies)).map((job) => job.name))].sort()).toEqual(["apply:cell-1", "provision:triggered"]);
  });

  it("gives each of them an environment runner-fleet/<cell> it starts", () => {
    for (const job of [...created, ...children].filter((entry) => linesOf(entry).some(applies))) {
      expect({ job: job.name, environment: job.definition.environment }).toEqual({ job: job.name, environment: { name: expect.stringMatching(/^runner-fleet\/(\$CELL_ID|cell-1)$/), action: "start" } });
    }
  });
});

describe("a merge that changes several cells: the apply child rolls out in waves, each behind its gate", () => {
  const cells = Array.from({ length: 20 }, (_, index) => `cell-${String(index + 1).padStart(2, "0")}`);
  const waves = planWaves(cells.map((cell) => ({ cell, labels: {} })), DEFAULT_ROLLOUT_POLICY);
  const outcome = evaluatePipeline(child({ mode: "apply", cells, waves }), childOf(push));
  const jobsOf = (): readonly CreatedJob[] => {
    if (!outcome.created) throw new Error(`pipeline not created: ${outcome.reason}`);
    return outcome.jobs;
  };
  const applied = (run: Record<string, string>) => cells.filter((cell) => run[`apply:${cell}`] === "success");

  it("20 cells: a canary, then 2 cells (10 %), then 17, with a gate and a manual promote after each wave but the last", () => {
    expect(waves.map((wave) => wave.cells.length)).toEqual([1, 2, 17]);
    expect(jobNames(outcome)).toEqual([
      "apply:cell-01",
      "gate:canary",
      "promote:canary",
      "apply:cell-02",
      "apply:cell-03",
      "gate:ten-percent",
      "promote:ten-percent",
      ...cells.slice(3).map((cell) => `apply:${cell}`),
      "rollback",
    ]);
    expect(createdJob(outcome, "apply:cell-02").definition.needs).toEqual(["gate:canary"]);
    expect(createdJob(outcome, "apply:cell-20").definition.needs).toEqual(["gate:ten-percent"]);
    expect(createdJob(outcome, "gate:ten-percent").definition.needs).toEqual(["apply:cell-02", "apply:cell-03"]);
    expect(createdJob(outcome, "apply:cell-01").definition.needs).toBeUndefined();
  });

  it("the gate judges the wave against the cells not yet rolled, and waits longer than GitLab's default hour", () => {
    const gate = createdJob(outcome, "gate:canary");
    expect(gate.when).toBe("on_success");
    expect(gate.definition.script).toEqual([`./bin/gate --wave canary --cells cell-01 --not-yet-rolled '${cells.slice(1).join(",")}' --post`]);
    expect(gate.definition.timeout).toBe("390m");
  });

  it("promote is manual and never blocks; it records the person (GITLAB_USER_LOGIN is the one who starts a manual job)", () => {
    const promote = createdJob(outcome, "promote:canary");
    expect(promote).toMatchObject({ when: "manual", allowFailure: true });
    expect(promote.definition.script).toEqual(["./bin/gate --wave canary --promote --post"]);
  });

  it("a healthy rollout applies every cell, wave after wave; promote and rollback wait for a person", () => {
    const run = runPipeline(jobsOf());
    expect(applied(run)).toEqual(cells);
    expect(run["promote:canary"]).toBe("manual");
    expect(run.rollback).toBe("manual");
  });

  it("rollback only opens a revert merge request, when a person runs it", () => {
    expect(createdJob(outcome, "rollback")).toMatchObject({ when: "manual", allowFailure: true });
    expect(createdJob(outcome, "rollback").definition.script).toEqual(["bash ci/propose-revert.sh MODELS_PUSH_TOKEN"]);
  });

  it("fails the rollout at a failed canary gate: no later wave applies", () => {
    const run = runPipeline(jobsOf(), { "gate:canary": "failed" });
    expect(applied(run)).toEqual(["cell-01"]);
    expect(cells.slice(1).map((cell) => run[`apply:${cell}`])).toEqual(cells.slice(1).map(() => "skipped"));
  });

  it("fails the rollout at the second gate: the canary and the 10 % applied, the rest not", () => {
    const run = runPipeline(jobsOf(), { "gate:ten-percent": "failed" });
    expect(applied(run)).toEqual(["cell-01", "cell-02", "cell-03"]);
  });

  it("a merge that touches one cell applies it as before: one job, no gate", () => {
    expect(planWaves([{ cell: "cell-01", labels: {} }], DEFAULT_ROLLOUT_POLICY)).toEqual([]);
    expect(jobNames(evaluatePipeline(child({ mode: "apply", cells: ["cell-01"], waves: [] }), childOf(push)))).toEqual(["apply:cell-01"]);
  });

  it("APPLY_MODE=manual: every apply still waits for a person, in its wave", () => {
    const manual = evaluatePipeline(child({ mode: "apply", cells, waves, applyMode: "manual" }), childOf(push));
    expect(createdJob(manual, "apply:cell-02")).toMatchObject({ when: "manual" });
    expect(createdJob(manual, "apply:cell-02").definition.needs).toEqual(["gate:canary"]);
  });
});
