/**
 * The child pipeline a parent pipeline triggers: one job per cell, so a change to one model
 * plans (or applies) only that cell, and a schedule checks every cell for drift in its own job.
 *
 * Every job has `rules`, and the file has `workflow:rules`: a job without rules gets GitLab's
 * default rules, which leave it out of merge request pipelines, so the child of a merge request
 * pipeline would get no jobs (GitLab docs, "Run child pipelines with merge request pipelines").
 * Plan jobs keep the plan, its inputs record and summary as artifacts and publish the counts
 * GitLab's Terraform widget reads; apply jobs hold the cell's resource group and deploy to the
 * cell's environment, so protected environments and approvals can gate them.
 */
import { DRIFT_EXIT_CODE } from "../process/errors";
import { template } from "../templates/template-engine";
import { toolkitCommand, toolkitScript, type ToolkitInvocation } from "./toolkit-invocation";

export type ChildPipelineMode = "plan" | "apply" | "drift";
/** manual: each apply job waits for a person to start it (after the environment's approvals, if any). */
export type ApplyMode = "auto" | "manual";

export const APPLY_MODES: readonly ApplyMode[] = ["auto", "manual"];

/** One wave of a rollout, as lib/rollout/waves.ts plans it (declared here: lib/ci sits below lib/rollout). */
export interface PipelineWave {
  readonly name: string;
  readonly cells: readonly string[];
  /** Only a person promotes the wave (manual_promotion). */
  readonly manual: boolean;
}

export interface ChildPipelineOptions {
  readonly mode: ChildPipelineMode;
  /** Cells to plan, apply or check (model names). */
  readonly cells: readonly string[];
  /** Models deleted by the change: listed in a warning job, never destroyed. @default [] */
  readonly removed?: readonly string[];
  /** What the cells were compared with, for the header and the no-op message. */
  readonly base: string;
  /** @default DEFAULT_CI_IMAGE */
  readonly image?: string;
  /** How apply jobs start. @default "auto" */
  readonly applyMode?: ApplyMode;
  /** How the jobs run the toolkit. @default - this checkout's ./bin/ and ci/ */
  readonly toolkit?: ToolkitInvocation;
  /**
   * Apply mode: the waves of the rollout (lib/rollout/waves.ts). With two or more, each wave's applies
   * `need` the gate of the wave before. @default - one wave: every apply at once, as before rollouts
   */
  readonly waves?: readonly PipelineWave[];
  /** How long a gate job may wait for enough jobs (the policy's bake.max_wait), in seconds; its job timeout adds half an hour. @default 6 h */
  readonly gateMaxWaitSeconds?: number;
}

/** A supported Node LTS (Node 20 reached end of life in April 2026); the code still runs on Node >= 20.9. */
export const DEFAULT_CI_IMAGE = "node:24-bookworm";


interface JobContext {
  readonly name: string;
  /** `when` of the job's rule. */
  readonly when: "on_success" | "manual";
  readonly resourceGroup?: string;
  readonly environment?: string;
  readonly allowFailureExitCodes?: readonly number[];
  /** `allow_failure: true` (a manual job that must not block the pipeline). */
  readonly allowFailure?: boolean;
  /** Jobs this one `needs` (a rollout's wave order); undefined: none declared, the stage order applies. */
  readonly needs?: readonly string[];
  /** `timeout:` of the job (a gate waits longer than GitLab's default hour). */
  readonly timeout?: string;
  readonly comment?: string;
  readonly script: readonly string[];
  readonly artifacts?: {
    readonly paths: readonly string[];
    readonly exclude: readonly string[];
    readonly terraformReport?: string;
  };
}

interface ChildPipelineContext {
  readonly mode: ChildPipelineMode;
  /** The command that wrote it, as its jobs run the toolkit: `./bin/review` or `npx --no-install runner-fleet review`. */
  readonly generatedBy: string;
  readonly stage: string;
  readonly base: string;
  readonly image: string;
  /** npm ci (the toolkit the lockfile pins; its build where it is the toolkit's own checkout), then the engine: install-engine.sh is one of the toolkit's files. */
  readonly beforeScript: readonly string[];
  readonly jobs: readonly JobContext[];
  readonly removed: readonly string[];
  readonly noop?: { readonly name: string; readonly message: string };
}

/** The resource group that serializes every change to one cell (also used by triggered pipelines). */
export function cellResourceGroup(cell: string): string {
  return `runner-fleet-${cell}`;
}

/** The GitLab environment a cell's apply deploys to. */
export function cellEnvironment(cell: string): string {
  return `runner-fleet/${cell}`;
}

/** Where a plan job leaves the saved plan (and its inputs digest beside it) in its artifacts. */
export function planOutDir(cell: string): string {
  return `plan-out/${cell}`;
}

export function planJob(cell: string, toolkit: ToolkitInvocation = {}): JobContext {
  const out = planOutDir(cell);
  return {
    name: `plan:${cell}`,
    when: "on_success",
    script: [
      // --skip-onboard: a merge request must not register runners in GitLab before it is merged.
      `${toolkitCommand(toolkit, "provision")} --model ${shellQuote(cell)} --plan --skip-onboard --out ${shellQuote(out)} --markdown ${shellQuote(`plan-${cell}.md`)} --terraform-report ${shellQuote(`plan-${cell}.tfreport.json`)} --post --json > ${shellQuote(`plan-${cell}.json`)}`,
    ],
    artifacts: {
      paths: [`plan-${cell}.json`, `plan-${cell}.md`, `${out}/`],
      // Provider binaries and module caches are large and not part of the review.
      exclude: [`${out}/**/.terraform/**`],
      terraformReport: `plan-${cell}.tfreport.json`,
    },
  };
}

export function applyJob(cell: string, applyMode: ApplyMode = "auto", toolkit: ToolkitInvocation = {}): JobContext {
  const reviewed = `reviewed-plan/${cell}`;
  return {
    name: `apply:${cell}`,
    when: applyMode === "manual" ? "manual" : "on_success",
    resourceGroup: cellResourceGroup(cell),
    environment: cellEnvironment(cell),
    script: [
      // The plan the merge request pipeline reviewed, when GitLab still has it (see the script).
      `sh ${toolkitScript(toolkit, "fetch-reviewed-plan.sh")} ${shellQuote(cell)} ${shellQuote(reviewed)}`,
      // This commit's own plan, applied only when it makes the reviewed plan's changes (that file is only
      // read, never applied); a difference fails the job and shows it. No reviewed plan (a direct push, a web
      // run, expired artifacts): this commit's plan is shown and applied.
      `${toolkitCommand(toolkit, "provision")} --model ${shellQuote(cell)} --auto-approve --reviewed-plan ${shellQuote(`${reviewed}/${cell}.tfplan`)} --allow-unreviewed`,
      `${toolkitCommand(toolkit, "onboard")} --model ${shellQuote(cell)} --status --require-online`,
    ],
    artifacts: undefined,
  };
}

export function driftJob(cell: string, toolkit: ToolkitInvocation = {}): JobContext {
  return {
    name: `drift:${cell}`,
    when: "on_success",
    // Drift is a finding, not a broken pipeline: exit 3 shows the job as a warning.
    allowFailureExitCodes: [DRIFT_EXIT_CODE],
    script: [
      `${toolkitCommand(toolkit, "provision")} --model ${shellQuote(cell)} --drift --markdown ${shellQuote(`drift-${cell}.md`)} --json > ${shellQuote(`drift-${cell}.json`)}`,
    ],
    artifacts: { paths: [`drift-${cell}.json`, `drift-${cell}.md`], exclude: [] },
  };
}

/**
 * The apply jobs of a rollout in waves: wave 1's applies start at once; after each wave but the last,
 * `gate:<wave>` (needs the wave's applies) judges the wave, and the next wave's applies need that gate, so
 * a failed gate leaves them skipped. `promote:<wave>` is a person's way past a failed or waiting gate
 * (docs/operations/rollouts.md): manual, allow_failure so it never blocks, and it records who (GITLAB_USER_LOGIN).
 */
export function rolloutJobs(waves: readonly PipelineWave[], applyMode: ApplyMode, toolkit: ToolkitInvocation, maxWaitSeconds: number): JobContext[] {
  const jobs: JobContext[] = [];
  const gate = toolkitCommand(toolkit, "gate");
  waves.forEach((wave, index) => {
    const previousGate = index === 0 ? [] : [`gate:${waves[index - 1].name}`];
    for (const cell of wave.cells) jobs.push({ ...applyJob(cell, applyMode, toolkit), needs: previousGate });
    if (index === waves.length - 1) return;
    const applies = wave.cells.map((cell) => `apply:${cell}`);
    const later = waves.slice(index + 1).flatMap((next) => next.cells);
    jobs.push({
      name: `gate:${wave.name}`,
      when: "on_success",
      needs: applies,
      timeout: `${Math.ceil(maxWaitSeconds / 60) + 30}m`,
      comment: `Wave ${index + 1} of ${waves.length} (${wave.cells.length} cell${wave.cells.length === 1 ? "" : "s"}): the next wave starts only when this gate passes${wave.manual ? "; a cell here is in manual_promotion, so only a person promotes it" : ""}.`,
      script: [`${gate} --wave ${shellQuote(wave.name)} --cells ${shellQuote(wave.cells.join(","))} --not-yet-rolled ${shellQuote(later.join(","))}${wave.manual ? " --manual" : ""} --post`],
    });
    jobs.push({
      name: `promote:${wave.name}`,
      when: "manual",
      allowFailure: true,
      needs: applies,
      comment: `A person promotes wave ${wave.name} past a failed or waiting gate: the waiting gate passes at its next poll; a failed one passes when retried.`,
      script: [`${gate} --wave ${shellQuote(wave.name)} --promote --post`],
    });
  });
  jobs.push({
    name: "rollback",
    when: "manual",
    allowFailure: true,
    comment: "Rolling back is a merge request that reverts this commit (ci/propose-revert.sh), opened only when a person runs this job; nothing is reverted until it is merged.",
    script: [`bash ${toolkitScript(toolkit, "propose-revert.sh")} MODELS_PUSH_TOKEN`],
  });
  return jobs;
}

export function renderChildPipeline(options: ChildPipelineOptions): string {
  const cells = [...new Set(options.cells)].sort();
  for (const cell of [...cells, ...(options.removed ?? [])]) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(cell)) throw new Error(`cell name "${cell}" is not a DNS label`);
  }
  const removed = [...(options.removed ?? [])].sort();
  const toolkit = options.toolkit ?? {};
  const jobFor = {
    plan: (cell: string) => planJob(cell, toolkit),
    apply: (cell: string) => applyJob(cell, options.applyMode, toolkit),
    drift: (cell: string) => driftJob(cell, toolkit),
  }[options.mode];
  const verb = options.mode === "drift" ? "check for drift" : options.mode;
  const context: ChildPipelineContext = {
    mode: options.mode,
    generatedBy: toolkitCommand(toolkit, "review"),
    stage: options.mode,
    base: options.base,
    image: options.image ?? DEFAULT_CI_IMAGE,
    beforeScript: ["npm ci --cache .npm --prefer-offline --no-audit --no-fund", `sh ${toolkitScript(toolkit, "build-checkout.sh")}`, `bash ${toolkitScript(toolkit, "install-engine.sh")}`],
    jobs:
      options.mode === "apply" && (options.waves?.length ?? 0) > 1
        ? rolloutJobs(options.waves ?? [], options.applyMode ?? "auto", toolkit, options.gateMaxWaitSeconds ?? 6 * 3600)
        : cells.map(jobFor),
    removed: removed.map(
      (cell) =>
        `echo ${shellQuote(`model of cell ${cell} was deleted: its infrastructure is NOT destroyed; run ${toolkitCommand(toolkit, "provision")} --model ${cell} --destroy from a checkout that still has the model`)}`,
    ),
    noop:
      cells.length === 0
        ? {
            name: `no-cell-to-${options.mode}`,
            message: `echo ${shellQuote(options.mode === "drift" ? "no runner model to check for drift" : `no runner model or shared code changed since ${options.base}: nothing to ${verb}`)}`,
          }
        : undefined,
  };
  return template<ChildPipelineContext>("ci/cells.gitlab-ci.yml.hbs")(context);
}

/** Single-quotes a word for sh. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
