/**
 * `provision`: from a model to a running fleet, side effects last.
 *
 *   validate the models -> detect the engine -> synthesize in-process -> engine init,
 *   plan -out, summary (every cell) -> confirmation (every cell) -> onboard the runners
 *   (unless --skip-onboard) -> apply exactly the saved plan
 *
 * Every refusal (an invalid model, no engine, a stack the cloud refuses at plan, nobody
 * to confirm) comes before any runner is created. The plan does not depend on
 * onboarding: secret names come from the model (lib/model/names.ts), and the Secret
 * Manager secret the plan grants access to exists by the time the plan is applied.
 *
 * --plan stops after the plan and writes nothing to GitLab (no admin token needed, for
 * merge request plan jobs). --dry-run stops after synthesis and summarizes the
 * synthesized JSON: no GitLab, no cloud, no engine. --destroy plans a destroy, applies
 * it, then removes the runners. --drift plans every named cell and reports the cells whose
 * infrastructure differs from their model (exit 3), touching nothing. --apply-plan applies a
 * plan saved earlier (the one a merge request reviewed) only when the inputs digest beside it
 * matches this checkout's stack; --replan-if-stale plans again instead of refusing.
 *
 * The engine sees only the environment it needs (lib/terraform/engine-env.ts) and its
 * output is scrubbed of every secret value this run knows (lib/secrets/known-secrets.ts).
 */
import { createInterface } from "node:readline/promises";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, modelsOption, withDefault } from "../cli/options";
import type * as ProvisionOptionsModule from "./provision-options";
import type { ProvisionCliOptions, ProvisionMode } from "./provision-options";
import { DRIFT_EXIT_CODE, OperationalError, UserInputError } from "../../lib/errors";
import { loadModelFile, type LoadedModel } from "../../lib/model/load";
import { modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import { formatIssue } from "../../lib/model/issues";
import { cellChangeSummary, type CellChangeSummary } from "../../lib/review/cell-summary";
import { summarizePlan, summarizeSynth } from "../../lib/review/change-summary";
import type { PlanJson } from "../../lib/terraform/plan-json";
import { sumReports, terraformReport, type TerraformReport } from "../../lib/review/terraform-report";
import { refuseLocalStateInCi } from "../../lib/terraform/local-state-guard";
import { planInputsDigest, readPlanInputs, writePlanInputs } from "../../lib/terraform/plan-inputs";
import { cellMarker, renderSummaryMarkdown, renderSummaryText } from "../../lib/review/render-summary";
import { readMergeRequestNoteTarget, upsertMergeRequestNote, type NoteUpsertResult } from "../../lib/gitlab/merge-request-note";
import { constructPaths, readResourceShards, readSynthesizedStack } from "../../lib/review/stack-files";
import { backendEnvironment } from "../../lib/terraform/backend-env";
import { DEFAULT_LOCK_TIMEOUT, detectEngine, EngineDriver, isLockTimeout, isStalePlanFailure } from "../../lib/terraform/engine";
import { engineEnvironment } from "../../lib/terraform/engine-env";
import { KnownSecrets } from "../../lib/secrets/known-secrets";
import { ENGINE_NAMES, type EngineName } from "../../lib/terraform/toolchain-check";
import { synthesizeCells, type SynthesizedCell } from "../../stacks/synthesize";
import type * as OnboardModule from "./onboard";
import type { OnboardOptions } from "./onboard";
import type * as ProvisionRollModule from "../provision/provision-roll";
import type { RollClock } from "../provision/provision-roll";
import { describeRoll, needsRoll, type RollPlan } from "../../lib/roll/roll-plan";

export type { Approval, ProvisionMode } from "./provision-options";

export interface ProvisionOptions extends ProvisionCliOptions {
  /** Path of the engine executable, for stand-ins. @default - the engine's name on PATH */
  readonly engineExecutable?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Progress and the engine's output (stderr by default, so stdout stays clean for --json). */
  readonly log?: (line: string) => void;
  /** Asks the person at the terminal; undefined when nobody can answer (no TTY). */
  readonly confirm?: (question: string) => Promise<boolean>;
  /** Clock and pacing of manager rolls (tests). */
  readonly rollClock?: RollClock;
}

/** The modes that run the engine: all but the dry run. */
type EngineMode = Exclude<ProvisionMode, { kind: "dry-run" }>;
/** The modes that change the cloud after a confirmation. */
type ChangingMode = Extract<ProvisionMode, { kind: "apply" | "destroy" }>;

export interface ProvisionedCell {
  readonly cell: string;
  readonly modelFile: string;
  readonly stackDir: string;
  readonly summary: CellChangeSummary;
  readonly outcome: "dry-run" | "planned" | "no-changes" | "applied" | "declined" | "drifted" | "in-sync";
  /** Counts for GitLab's Terraform widget, when the cell was planned. */
  readonly terraformReport?: TerraformReport;
  /** With --apply-plan: whether the reviewed plan was applied, or why the cell was planned again. */
  readonly reviewedPlan?: ReviewedPlanUse;
  /** The merge request note of this cell's summary, with --post. */
  readonly note?: NoteUpsertResult;
  readonly onboarded: boolean;
  readonly runnersRemoved: boolean;
}

export interface ProvisionResult {
  readonly mode: "dry-run" | "plan" | "apply" | "destroy" | "drift";
  readonly cells: readonly ProvisionedCell[];
}

export async function runProvision(options: ProvisionOptions): Promise<ProvisionResult> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // 1. Validate: every model and every flag, before anything is written anywhere.
  const { mode } = options;
  const loaded = loadModels(options);
  const noteTarget = options.post ? readMergeRequestNoteTarget(env, options.tokenEnv) : undefined;
  if (mode.kind === "apply" && mode.reviewedPlan && loaded.length !== 1) throw new UserInputError("--apply-plan applies one cell's plan: name exactly one --model");
  const lockTimeout = options.lockTimeout ?? env.RUNNER_LOCK_TIMEOUT ?? DEFAULT_LOCK_TIMEOUT;
  if (!isLockTimeout(lockTimeout)) {
    throw new UserInputError(`--lock-timeout (or RUNNER_LOCK_TIMEOUT) must be a duration such as 5m, 90s or 1h30m, got "${lockTimeout}"`);
  }
  if (mode.kind !== "dry-run" && !options.allowLocalState) refuseLocalStateInCi(loaded, env);
  for (const { model, file, warnings } of loaded) {
    for (const warning of warnings) log(formatIssue(warning));
    // Fail before any side effect when the http backend's credentials are missing.
    if (mode.kind !== "dry-run") backendEnvironment(model, env);
    if (mode.kind === "apply" && model.secrets.store === "local") {
      log(`[${model.cell.id}] warning: ${file} keeps tokens in the local store; managers will wait for /etc/gitlab-runner/runner-token`);
    }
  }
  const secrets = knownSecrets(loaded, env, options.tokenEnv);
  const context: StepContext = { ...options, lockTimeout, env, log, secrets, withheld: withheldVariables(loaded, options.tokenEnv) };

  // 2. Detect the engine, 3. synthesize.
  const engine = mode.kind === "dry-run" ? undefined : detectEngine(options.engine, engineEnvironment(env, { withhold: context.withheld }));
  const outdir = resolve(options.out ?? "cdktf.out");
  log(`synthesizing ${loaded.map((item) => item.model.cell.id).join(", ")} into ${outdir}`);
  const synthesized = synthesizeCells(loaded, { outdir });

  let cells: ProvisionedCell[];
  if (mode.kind === "dry-run" || !engine) {
    cells = synthesized.map((cell, index) => {
      const stack = readSynthesizedStack(cell.stackDir);
      const changes = summarizeSynth(stack, readResourceShards(cell.stackDir), constructPaths(stack));
      return result(cell, cellChangeSummary(loaded[index].model, changes), "dry-run");
    });
  } else {
    // 4. Plan every cell, 5. confirm every cell: a refusal (an engine step, the cloud's
    // validation, nobody to confirm) comes before any runner is created or anything applied.
    const planned: PlannedCell[] = [];
    for (const [index, cell] of synthesized.entries()) planned.push(await planCell(cell, loaded[index], engine, mode, context));
    if (mode.kind === "drift") {
      cells = planned.map((item) => result(item.cell, item.summary, item.changes ? "drifted" : "in-sync"));
    } else if (mode.kind === "plan") {
      cells = planned.map((item) => result(item.cell, item.summary, "planned"));
    } else {
      const approved = await confirmCells(planned, mode, context);
      // 6. Onboard, 7. apply (a destroy applies first, then removes the runners).
      cells = [];
      for (const [index, item] of planned.entries()) {
        cells.push(approved[index] ? await onboardAndApply(item, mode, context) : result(item.cell, item.summary, "declined"));
      }
    }
    cells = cells.map((cell, index) => ({ terraformReport: planned[index].report, reviewedPlan: planned[index].reviewedPlan, ...cell }));
  }

  const summaries = cells.map((cell) => cell.summary);
  if (options.markdownFile) writeFileSync(options.markdownFile, renderSummaryMarkdown(summaries));
  if (options.terraformReportFile) {
    const reports = cells.flatMap((cell) => (cell.terraformReport ? [cell.terraformReport] : []));
    writeFileSync(options.terraformReportFile, `${JSON.stringify(sumReports(reports))}\n`);
  }
  if (noteTarget) {
    for (const [index, cell] of cells.entries()) {
      const note = await upsertMergeRequestNote(noteTarget, renderSummaryMarkdown(cell.summary), cellMarker(cell.cell));
      log(`[${cell.cell}] ${note.action} merge request note ${note.noteId}`);
      cells[index] = { ...cell, note };
    }
  }
  return { mode: mode.kind === "plan" && mode.change === "destroy" ? "destroy" : mode.kind, cells };
}

/** What a plan of this mode does to the cloud, and where it is saved. */
function planOf(mode: EngineMode, cell: string): { destroy: boolean; file: string } {
  const destroy = mode.kind === "destroy" || (mode.kind === "plan" && mode.change === "destroy");
  return { destroy, file: destroy ? `${cell}.destroy.tfplan` : mode.kind === "drift" ? `${cell}.drift.tfplan` : `${cell}.tfplan` };
}

type StepContext = Omit<ProvisionOptions, "mode"> & {
  readonly env: NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
  /** Every secret value known to this run; the engine's output is scrubbed of them. */
  readonly secrets: KnownSecrets;
  /** Variables holding GitLab credentials: never passed to the engine. */
  readonly withheld: readonly string[];
};

interface PlannedCell {
  readonly cell: SynthesizedCell;
  readonly engine: { name: EngineName; version: string };
  readonly loaded: LoadedModel;
  readonly driver: EngineDriver;
  readonly planFile: string;
  readonly changes: boolean;
  readonly summary: CellChangeSummary;
  /** Managers this plan replaces, rolled in phases (none for a destroy). */
  readonly roll?: RollPlan;
  readonly report: TerraformReport;
  readonly reviewedPlan?: ReviewedPlanUse;
}

export interface ReviewedPlanUse {
  readonly applied: boolean;
  /** Why it was not used. */
  readonly reason?: string;
}

async function planCell(
  cell: SynthesizedCell,
  loaded: LoadedModel,
  engine: { name: EngineName; version: string },
  mode: EngineMode,
  context: StepContext,
): Promise<PlannedCell> {
  const { log } = context;
  const how = planOf(mode, cell.cell);
  const driver = new EngineDriver({
    engine: engine.name,
    executable: context.engineExecutable,
    cwd: cell.stackDir,
    env: context.env,
    addEnv: backendEnvironment(loaded.model, context.env),
    withholdEnv: context.withheld,
    redact: (line) => context.secrets.redact(line),
    onOutput: (line) => log(`[${cell.cell}] ${line}`),
    onProgress: (message) => log(`[${cell.cell}] ${message}`),
    lockTimeout: context.lockTimeout,
  });
  await driver.init();
  const digest = planInputsDigest(cell.stackDir, engine);
  const summarize = (plan: PlanJson, planFile: string) => {
    const summary = cellChangeSummary(loaded.model, summarizePlan(plan, readResourceShards(cell.stackDir), constructPaths(readSynthesizedStack(cell.stackDir))), { engine, planFile });
    log(renderSummaryText(summary).trimEnd());
    return summary;
  };
  // The roll is named before anything is confirmed or applied.
  const rollOf = (plan: PlanJson) => {
    const roll = how.destroy ? undefined : provisionRoll().rollOfPlan(loaded, plan, cell.stackDir);
    for (const line of roll ? describeRoll(roll) : []) log(`[${cell.cell}] ${line}`);
    return roll;
  };

  let reviewedPlan: ReviewedPlanUse | undefined;
  const reviewedPlanChoice = mode.kind === "apply" ? mode.reviewedPlan : undefined;
  if (reviewedPlanChoice) {
    const reviewed = checkReviewedPlan(resolve(reviewedPlanChoice.file), cell.cell, digest);
    if (reviewed.fresh) {
      // The reviewed plan is shown (as the merge request saw it), then applied exactly.
      log(`[${cell.cell}] applying the reviewed plan ${reviewed.planFile}: its inputs digest ${digest.slice(0, 12)} matches this checkout`);
      const plan = await driver.showPlanJson(reviewed.planFile);
      const summary = summarize(plan, reviewed.planFile);
      return { cell, engine, loaded, driver, planFile: reviewed.planFile, changes: planChanges(plan), summary, roll: rollOf(plan), report: terraformReport(plan), reviewedPlan: { applied: true } };
    }
    if (reviewedPlanChoice.whenStale === "refuse") {
      throw new UserInputError(`refusing to apply ${reviewedPlanChoice.file} to cell ${cell.cell}: ${reviewed.problem}. Plan again, or pass --replan-if-stale to do so here.`);
    }
    log(`[${cell.cell}] not applying the reviewed plan: ${reviewed.problem}; planning again, and the new plan is shown before it is applied`);
    reviewedPlan = { applied: false, reason: reviewed.problem };
  }

  const planned = await driver.plan({ out: join(cell.stackDir, how.file), destroy: how.destroy });
  writePlanInputs(planned.planFile, { cell: cell.cell, digest, engine: engine.name, engineVersion: engine.version, commit: context.env.CI_COMMIT_SHA });
  const plan = await driver.showPlanJson(planned.planFile);
  const summary = summarize(plan, planned.planFile);
  return { cell, engine, loaded, driver, planFile: planned.planFile, changes: planned.changes, summary, roll: rollOf(plan), report: terraformReport(plan), reviewedPlan };
}

/** Whether a saved plan changes anything (what -detailed-exitcode 2 said when it was made). */
function planChanges(plan: PlanJson): boolean {
  return (
    (plan.resource_changes ?? []).some((change) => change.change.actions.some((action) => action !== "no-op" && action !== "read")) ||
    Object.values(plan.output_changes ?? {}).some((change) => change.actions.some((action) => action !== "no-op"))
  );
}

function checkReviewedPlan(planFile: string, cell: string, digest: string): { fresh: true; planFile: string } | { fresh: false; problem: string } {
  const read = readPlanInputs(planFile);
  if ("problem" in read) return { fresh: false, problem: read.problem };
  if (read.inputs.cell !== cell) return { fresh: false, problem: `the plan was made for cell ${read.inputs.cell}` };
  if (read.inputs.digest !== digest) {
    return {
      fresh: false,
      problem: `its inputs changed since it was planned${read.inputs.commit ? ` on ${read.inputs.commit.slice(0, 12)}` : ""} (digest ${read.inputs.digest.slice(0, 12)}, now ${digest.slice(0, 12)}: the synthesized stack, the provider lock or the engine differ)`,
    };
  }
  return { fresh: true, planFile };
}

/** Whether each planned cell may be applied. Throws (exit 2) when a change needs a confirmation nobody can give. */
async function confirmCells(planned: readonly PlannedCell[], mode: ChangingMode, context: StepContext): Promise<boolean[]> {
  const needed = planned.filter((item) => item.changes);
  if (mode.approval === "auto" || needed.length === 0) return planned.map(() => true);
  if (!context.confirm) {
    const plans = needed.map((item) => item.planFile).join(", ");
    throw new UserInputError(
      `refusing to ${mode.kind} ${needed.map((item) => item.cell.cell).join(", ")} without confirmation: no terminal to ask; pass --auto-approve (nothing was onboarded or applied; the plan is kept at ${plans})`,
    );
  }
  const approved: boolean[] = [];
  for (const item of planned) {
    if (!item.changes) {
      approved.push(true);
      continue;
    }
    const verb = mode.kind === "destroy" ? "Destroy every resource of" : "Apply this plan to";
    const yes = await context.confirm(`${verb} cell ${item.cell.cell}? Type "yes" to continue: `);
    if (!yes) context.log(`[${item.cell.cell}] not applied; the plan is kept at ${item.planFile}`);
    approved.push(yes);
  }
  return approved;
}

/** An approved cell: onboard its runners (apply), apply its plan (rolling managers), remove its runners (destroy). */
async function onboardAndApply(item: PlannedCell, mode: ChangingMode, context: StepContext): Promise<ProvisionedCell> {
  const { cell, loaded, summary } = item;
  let onboarded = false;
  if (mode.kind === "apply" && mode.onboard) {
    context.log(`[${cell.cell}] onboarding runners`);
    await onboardOrFail({ runnerModel: loaded.model, env: context.env, log: context.log, onSecret: (value) => context.secrets.add(value) }, loaded.file);
    onboarded = true;
  }
  if (!item.changes) {
    context.log(`[${cell.cell}] no changes to apply`);
    return result(cell, summary, "no-changes", { onboarded, runnersRemoved: await removeRunnersAfter(mode, loaded, context) });
  }
  if (item.roll && needsRoll(item.roll)) {
    await provisionRoll().rollCell({
      loaded,
      stackDir: cell.stackDir,
      driver: item.driver,
      roll: item.roll,
      env: context.env,
      log: context.log,
      onSecret: (value) => context.secrets.add(value),
      clock: context.rollClock,
    });
  } else {
    try {
      await item.driver.apply(item.planFile);
    } catch (error) {
      const replan = mode.kind === "apply" && item.reviewedPlan?.applied && mode.reviewedPlan?.whenStale === "replan";
      if (!(replan && isStalePlanFailure(error))) throw error;
      // Planned again as a plain apply; runners onboarded already are not onboarded twice.
      const again = await replanStaleReviewedPlan(item, { ...mode, reviewedPlan: undefined, onboard: mode.onboard && !onboarded }, context);
      return { ...again, onboarded: onboarded || again.onboarded };
    }
  }
  return result(cell, summary, "applied", { onboarded, runnersRemoved: await removeRunnersAfter(mode, loaded, context) });
}

/** The engine found the reviewed plan stale against the state (another run applied since): plan again, show it, apply it. */
async function replanStaleReviewedPlan(item: PlannedCell, mode: Extract<ChangingMode, { kind: "apply" }>, context: StepContext): Promise<ProvisionedCell> {
  const reason = "the state changed since it was planned (the engine refused it as stale)";
  context.log(`[${item.cell.cell}] not applying the reviewed plan: ${reason}; planning again, and the new plan is shown before it is applied`);
  const again = await planCell(item.cell, item.loaded, item.engine, mode, context);
  const applied = await onboardAndApply(again, mode, context);
  return { ...applied, terraformReport: again.report, reviewedPlan: { applied: false, reason } };
}

/** Every secret value this run knows from the start: the GitLab tokens, the state password, secret-looking variables. */
function knownSecrets(loaded: readonly LoadedModel[], env: NodeJS.ProcessEnv, tokenEnv: string | undefined): KnownSecrets {
  const names = [...withheldVariables(loaded, tokenEnv)];
  for (const { model } of loaded) if (model.state.backend === "http") names.push(model.state.password_env);
  return new KnownSecrets(env, names);
}

/** Variables holding GitLab credentials of this tool: the admin token each model names, the review token. */
function withheldVariables(loaded: readonly LoadedModel[], tokenEnv: string | undefined): string[] {
  return [...new Set([...loaded.map(({ model }) => model.gitlab.token_env), ...(tokenEnv ? [tokenEnv] : [])])];
}

/** After a destroy, the runners of the cell go too (unless --skip-onboard), so GitLab lists no dead runners. */
async function removeRunnersAfter(mode: ChangingMode, loaded: LoadedModel, context: StepContext): Promise<boolean> {
  if (mode.kind !== "destroy" || !mode.removeRunners) return false;
  context.log(`[${loaded.model.cell.id}] removing runners`);
  await onboardOrFail({ runnerModel: loaded.model, remove: true, env: context.env, log: context.log, onSecret: (value) => context.secrets.add(value) }, loaded.file);
  return true;
}

/** Onboarding reports failures in its result; provisioning must not go on past one. */
async function onboardOrFail(options: OnboardOptions, file: string): Promise<void> {
  const { runOnboard } = require("./onboard") as typeof OnboardModule;
  const result = await runOnboard(options);
  if (!result.ok) {
    throw new OperationalError(`onboarding ${file} failed, nothing was applied (the plan is kept):\n  ${result.problems.join("\n  ")}`);
  }
}

function result(
  cell: SynthesizedCell,
  summary: CellChangeSummary,
  outcome: ProvisionedCell["outcome"],
  done: { readonly onboarded?: boolean; readonly runnersRemoved?: boolean } = {},
): ProvisionedCell {
  return { cell: cell.cell, modelFile: cell.modelFile, stackDir: cell.stackDir, summary, outcome, onboarded: Boolean(done.onboarded), runnersRemoved: Boolean(done.runnersRemoved) };
}

// Onboarding (GitLab's client, locks) and the roll load only on the paths that use them: a dry run or
// a plan never onboards, and their start-up is most of what a person waits for.
function provisionRoll(): typeof ProvisionRollModule {
  return require("../provision/provision-roll") as typeof ProvisionRollModule;
}

function loadModels(options: ProvisionOptions): LoadedModel[] {
  if (options.models.length === 0) throw new UserInputError("name the cell to provision with --model (e.g. --model cell-1.yaml)");
  const dir = modelsDir(options.modelsDir);
  const loaded = options.models.map((argument) => loadModelFile(resolveModelArgument(argument, dir), { requireFileNameMatch: true }));
  const ids = loaded.map((item) => item.model.cell.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate) throw new UserInputError(`cell ${duplicate} is named twice`);
  return loaded;
}

export function formatProvisionResult(result: ProvisionResult): string {
  const lines = [renderSummaryText(result.cells.map((cell) => cell.summary)).trimEnd()];
  for (const cell of result.cells) {
    const what = {
      "dry-run": `dry run: nothing was created; Terraform JSON in ${cell.stackDir}`,
      planned: `planned: ${cell.summary.planFile}`,
      "no-changes": "no changes",
      applied: result.mode === "destroy" ? "destroyed" : "applied",
      declined: "not applied (declined)",
      drifted: "DRIFT: the cell's infrastructure differs from its model (see the plan above)",
      "in-sync": "no drift",
    }[cell.outcome];
    const reviewed = cell.reviewedPlan ? (cell.reviewedPlan.applied ? " (the reviewed plan)" : " (planned again: the reviewed plan was not usable)") : "";
    lines.push(`${cell.cell}: ${what}${reviewed}${cell.runnersRemoved ? "; runners removed" : ""}`);
  }
  if (result.mode === "drift") {
    const drifted = driftedCells(result);
    lines.push(drifted.length === 0 ? `no drift in ${result.cells.length} cell(s)` : `drift in ${drifted.length} of ${result.cells.length} cell(s): ${drifted.join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}

export function driftedCells(result: ProvisionResult): string[] {
  return result.cells.filter((cell) => cell.outcome === "drifted").map((cell) => cell.cell);
}

async function askOnTerminal(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await prompt.question(question)).trim() === "yes";
  } finally {
    prompt.close();
  }
}

export function provisionCommand(): Command {
  return cliCommand("provision")
    .description("Synthesize the cell's stack, plan it with terraform or tofu, confirm, onboard the runners, then apply the plan.")
    .addOption(modelsOption())
    .addOption(modelsDirOption())
    .option("--dry-run", "validate, render and synthesize only; no GitLab, no cloud, no engine")
    .option("--plan", "stop after the plan (the plan file is kept); writes nothing to GitLab and needs no admin token")
    .option("--auto-approve", "apply without asking (pipelines)")
    .option("--skip-onboard", "do not create or reconcile the runners first")
    .option("--destroy", "destroy the cell's resources, then remove its runners")
    .addOption(withDefault(new Option("--engine <engine>", "the engine that plans and applies").choices([...ENGINE_NAMES]), "detected on PATH"))
    .option("--out <dir>", "synthesis output directory", "cdktf.out")
    .option("--drift", `plan every named cell and report drift; nothing is applied or onboarded (exit ${DRIFT_EXIT_CODE} when a cell drifted)`)
    .option("--apply-plan <file>", "apply this saved plan (the one a merge request reviewed) if the inputs digest beside it matches this checkout; refuse otherwise")
    .option("--replan-if-stale", "with --apply-plan: when the saved plan is missing or stale, plan again, show it, and apply that instead")
    .addOption(withDefault(new Option("--lock-timeout <duration>", "how long plan and apply wait for the state lock"), `$RUNNER_LOCK_TIMEOUT, else ${DEFAULT_LOCK_TIMEOUT}`))
    .option("--allow-local-state", "under CI=true, accept local state (it is lost with the job)")
    .option("--markdown <file>", "write the summary as markdown (for a merge request note)")
    .option("--terraform-report <file>", "write GitLab's Terraform report (create/update/delete counts) for artifacts:reports:terraform")
    .option("--post", "create or update each cell's summary as a note on the merge request ($CI_SERVER_URL, $CI_PROJECT_ID, $CI_MERGE_REQUEST_IID)")
    .addOption(withDefault(new Option("--token-env <name>", "variable holding the token for --post"), "GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN"))
    .addOption(jsonOption("print the result as JSON on stdout"))
    .addHelpText(
      "after",
      `\nExit codes: 0 ok (with --drift: no drift), 1 runtime failure (GitLab, cloud, engine step), 2 invalid input, ${DRIFT_EXIT_CODE} drift found (--drift).`,
    )
    .action(async (flags: { json?: boolean }, command: Command) => {
      // zod is loaded here, once commander has parsed: --help and --version do not pay for it.
      const { parseProvisionOptions } = require("./provision-options") as typeof ProvisionOptionsModule;
      const result = await runProvision({ ...parseProvisionOptions(command), confirm: process.stdin.isTTY ? askOnTerminal : undefined });
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatProvisionResult(result));
      // Not an error: the check ran and found drift. The one error handler passes this code through.
      if (result.mode === "drift" && driftedCells(result).length > 0) process.exitCode = DRIFT_EXIT_CODE;
    });
}
