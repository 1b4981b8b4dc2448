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
import { runOnboard, type OnboardOptions } from "./onboard";
import { rollCell, rollOfPlan, type RollClock } from "../provision/provision-roll";
import { describeRoll, needsRoll, type RollPlan } from "../../lib/roll/roll-plan";

export interface ProvisionOptions {
  readonly models: readonly string[];
  readonly modelsDir?: string;
  readonly dryRun?: boolean;
  /** Stop after the plan. */
  readonly planOnly?: boolean;
  readonly autoApprove?: boolean;
  readonly skipOnboard?: boolean;
  readonly destroy?: boolean;
  readonly engine?: EngineName;
  /** Path of the engine executable, for stand-ins. @default - the engine's name on PATH */
  readonly engineExecutable?: string;
  /** Synthesis output directory. @default cdktf.out */
  readonly out?: string;
  readonly markdownFile?: string;
  /** Write GitLab's Terraform report ({"create","update","delete"} counts, summed over the cells) here. */
  readonly terraformReportFile?: string;
  /** The engine's -lock-timeout for plan and apply. @default $RUNNER_LOCK_TIMEOUT, else DEFAULT_LOCK_TIMEOUT */
  readonly lockTimeout?: string;
  /** Under CI=true, accept models whose state is local (lost with the job). */
  readonly allowLocalState?: boolean;
  /** Plan each cell and report drift; nothing is applied, nobody is onboarded. */
  readonly drift?: boolean;
  /** Apply this saved plan (the reviewed one) when its inputs digest matches this checkout's stack. */
  readonly applyPlan?: string;
  /** With applyPlan: when the saved plan is missing or stale, plan again (and show it) instead of refusing. */
  readonly replanIfStale?: boolean;
  /** Create or update each cell's plan summary as a note on the merge request of $CI_MERGE_REQUEST_IID. */
  readonly post?: boolean;
  /** Variable holding the token for --post. @default - GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN */
  readonly tokenEnv?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Progress and the engine's output (stderr by default, so stdout stays clean for --json). */
  readonly log?: (line: string) => void;
  /** Asks the person at the terminal; undefined when nobody can answer (no TTY). */
  readonly confirm?: (question: string) => Promise<boolean>;
  /** Clock and pacing of manager rolls (tests). */
  readonly rollClock?: RollClock;
}

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
  const loaded = loadModels(options);
  const mode = options.dryRun ? "dry-run" : options.drift ? "drift" : options.destroy ? "destroy" : options.planOnly ? "plan" : "apply";
  const noteTarget = options.post ? readMergeRequestNoteTarget(env, options.tokenEnv) : undefined;
  checkFlagCombinations(options, loaded.length);
  const lockTimeout = options.lockTimeout ?? env.RUNNER_LOCK_TIMEOUT ?? DEFAULT_LOCK_TIMEOUT;
  if (!isLockTimeout(lockTimeout)) {
    throw new UserInputError(`--lock-timeout (or RUNNER_LOCK_TIMEOUT) must be a duration such as 5m, 90s or 1h30m, got "${lockTimeout}"`);
  }
  if (!options.dryRun && !options.allowLocalState) refuseLocalStateInCi(loaded, env);
  for (const { model, file, warnings } of loaded) {
    for (const warning of warnings) log(formatIssue(warning));
    // Fail before any side effect when the http backend's credentials are missing.
    if (!options.dryRun) backendEnvironment(model, env);
    if (mode === "apply" && model.secrets.store === "local") {
      log(`[${model.cell.id}] warning: ${file} keeps tokens in the local store; managers will wait for /etc/gitlab-runner/runner-token`);
    }
  }
  const secrets = knownSecrets(loaded, env, options.tokenEnv);
  const context: StepContext = { ...options, lockTimeout, env, log, secrets, withheld: withheldVariables(loaded, options.tokenEnv) };

  // 2. Detect the engine, 3. synthesize.
  const engine = options.dryRun ? undefined : detectEngine(options.engine, engineEnvironment(env, { withhold: context.withheld }));
  const outdir = resolve(options.out ?? "cdktf.out");
  log(`synthesizing ${loaded.map((item) => item.model.cell.id).join(", ")} into ${outdir}`);
  const synthesized = synthesizeCells(loaded, { outdir });

  let cells: ProvisionedCell[];
  if (!engine) {
    cells = synthesized.map((cell, index) => {
      const stack = readSynthesizedStack(cell.stackDir);
      const changes = summarizeSynth(stack, readResourceShards(cell.stackDir), constructPaths(stack));
      return result(cell, cellChangeSummary(loaded[index].model, changes), "dry-run", false, false);
    });
  } else {
    // 4. Plan every cell, 5. confirm every cell: a refusal (an engine step, the cloud's
    // validation, nobody to confirm) comes before any runner is created or anything applied.
    const planned: PlannedCell[] = [];
    for (const [index, cell] of synthesized.entries()) planned.push(await planCell(cell, loaded[index], engine, context));
    if (options.drift) {
      cells = planned.map((item) => result(item.cell, item.summary, item.changes ? "drifted" : "in-sync", false, false));
    } else if (options.planOnly) {
      cells = planned.map((item) => result(item.cell, item.summary, "planned", false, false));
    } else {
      const approved = await confirmCells(planned, context);
      // 6. Onboard, 7. apply (a destroy applies first, then removes the runners).
      cells = [];
      for (const [index, item] of planned.entries()) cells.push(await onboardAndApply(item, approved[index], context));
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
  return { mode, cells };
}

type StepContext = ProvisionOptions & {
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

async function planCell(cell: SynthesizedCell, loaded: LoadedModel, engine: { name: EngineName; version: string }, context: StepContext): Promise<PlannedCell> {
  const { log } = context;
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
    const roll = context.destroy ? undefined : rollOfPlan(loaded, plan, cell.stackDir);
    for (const line of roll ? describeRoll(roll) : []) log(`[${cell.cell}] ${line}`);
    return roll;
  };

  let reviewedPlan: ReviewedPlanUse | undefined;
  if (context.applyPlan) {
    const reviewed = checkReviewedPlan(resolve(context.applyPlan), cell.cell, digest);
    if (reviewed.fresh) {
      // The reviewed plan is shown (as the merge request saw it), then applied exactly.
      log(`[${cell.cell}] applying the reviewed plan ${reviewed.planFile}: its inputs digest ${digest.slice(0, 12)} matches this checkout`);
      const plan = await driver.showPlanJson(reviewed.planFile);
      const summary = summarize(plan, reviewed.planFile);
      return { cell, engine, loaded, driver, planFile: reviewed.planFile, changes: planChanges(plan), summary, roll: rollOf(plan), report: terraformReport(plan), reviewedPlan: { applied: true } };
    }
    if (!context.replanIfStale) {
      throw new UserInputError(`refusing to apply ${context.applyPlan} to cell ${cell.cell}: ${reviewed.problem}. Plan again, or pass --replan-if-stale to do so here.`);
    }
    log(`[${cell.cell}] not applying the reviewed plan: ${reviewed.problem}; planning again, and the new plan is shown before it is applied`);
    reviewedPlan = { applied: false, reason: reviewed.problem };
  }

  const planFile = join(cell.stackDir, context.destroy ? `${cell.cell}.destroy.tfplan` : context.drift ? `${cell.cell}.drift.tfplan` : `${cell.cell}.tfplan`);
  const planned = await driver.plan({ out: planFile, destroy: context.destroy });
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

function checkFlagCombinations(options: ProvisionOptions, modelCount: number): void {
  if (options.dryRun && (options.destroy || options.autoApprove)) {
    throw new UserInputError("--dry-run cannot be combined with --destroy or --auto-approve");
  }
  if (options.drift && (options.dryRun || options.destroy || options.planOnly || options.autoApprove || options.applyPlan)) {
    throw new UserInputError("--drift only plans: it cannot be combined with --dry-run, --destroy, --plan, --auto-approve or --apply-plan");
  }
  if (options.applyPlan && (options.dryRun || options.destroy || options.planOnly)) {
    throw new UserInputError("--apply-plan applies a saved plan: it cannot be combined with --dry-run, --destroy or --plan");
  }
  if (options.applyPlan && modelCount !== 1) throw new UserInputError("--apply-plan applies one cell's plan: name exactly one --model");
  if (options.replanIfStale && !options.applyPlan) throw new UserInputError("--replan-if-stale goes with --apply-plan");
}

/** Whether each planned cell may be applied. Throws (exit 2) when a change needs a confirmation nobody can give. */
async function confirmCells(planned: readonly PlannedCell[], context: StepContext): Promise<boolean[]> {
  const needed = planned.filter((item) => item.changes);
  if (context.autoApprove || needed.length === 0) return planned.map(() => true);
  if (!context.confirm) {
    const plans = needed.map((item) => item.planFile).join(", ");
    throw new UserInputError(
      `refusing to ${context.destroy ? "destroy" : "apply"} ${needed.map((item) => item.cell.cell).join(", ")} without confirmation: no terminal to ask; pass --auto-approve (nothing was onboarded or applied; the plan is kept at ${plans})`,
    );
  }
  const approved: boolean[] = [];
  for (const item of planned) {
    if (!item.changes) {
      approved.push(true);
      continue;
    }
    const verb = context.destroy ? "Destroy every resource of" : "Apply this plan to";
    const yes = await context.confirm(`${verb} cell ${item.cell.cell}? Type "yes" to continue: `);
    if (!yes) context.log(`[${item.cell.cell}] not applied; the plan is kept at ${item.planFile}`);
    approved.push(yes);
  }
  return approved;
}

async function onboardAndApply(item: PlannedCell, approved: boolean, context: StepContext): Promise<ProvisionedCell> {
  const { cell, loaded, summary } = item;
  if (!approved) return result(cell, summary, "declined", false, false);
  let onboarded = false;
  if (!context.skipOnboard && !context.destroy) {
    context.log(`[${cell.cell}] onboarding runners`);
    await onboardOrFail({ runnerModel: loaded.model, env: context.env, log: context.log, onSecret: (value) => context.secrets.add(value) }, loaded.file);
    onboarded = true;
  }
  if (!item.changes) {
    context.log(`[${cell.cell}] no changes to apply`);
    const removed = context.destroy ? await removeRunners(loaded, context) : false;
    return result(cell, summary, "no-changes", onboarded, removed);
  }
  if (item.roll && needsRoll(item.roll)) {
    await rollCell({
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
      if (!(item.reviewedPlan?.applied && context.replanIfStale && isStalePlanFailure(error))) throw error;
      return replanStaleReviewedPlan(item, onboarded, context);
    }
  }
  const removed = context.destroy ? await removeRunners(loaded, context) : false;
  return result(cell, summary, "applied", onboarded, removed);
}

/** The engine found the reviewed plan stale against the state (another run applied since): plan again, show it, apply it. */
async function replanStaleReviewedPlan(item: PlannedCell, onboarded: boolean, context: StepContext): Promise<ProvisionedCell> {
  const reason = "the state changed since it was planned (the engine refused it as stale)";
  context.log(`[${item.cell.cell}] not applying the reviewed plan: ${reason}; planning again, and the new plan is shown before it is applied`);
  const again = await planCell(item.cell, item.loaded, item.engine, { ...context, applyPlan: undefined });
  const applied = await onboardAndApply({ ...again, reviewedPlan: undefined }, true, { ...context, skipOnboard: context.skipOnboard || onboarded });
  return { ...applied, onboarded: onboarded || applied.onboarded, terraformReport: again.report, reviewedPlan: { applied: false, reason } };
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

/** After a destroy, the runners of the cell go too, so GitLab lists no dead runners. */
async function removeRunners(loaded: LoadedModel, context: StepContext): Promise<boolean> {
  if (context.skipOnboard) return false;
  context.log(`[${loaded.model.cell.id}] removing runners`);
  await onboardOrFail({ runnerModel: loaded.model, remove: true, env: context.env, log: context.log, onSecret: (value) => context.secrets.add(value) }, loaded.file);
  return true;
}

/** Onboarding reports failures in its result; provisioning must not go on past one. */
async function onboardOrFail(options: OnboardOptions, file: string): Promise<void> {
  const result = await runOnboard(options);
  if (!result.ok) {
    throw new OperationalError(`onboarding ${file} failed, nothing was applied (the plan is kept):\n  ${result.problems.join("\n  ")}`);
  }
}

function result(
  cell: SynthesizedCell,
  summary: CellChangeSummary,
  outcome: ProvisionedCell["outcome"],
  onboarded: boolean,
  runnersRemoved: boolean,
): ProvisionedCell {
  return { cell: cell.cell, modelFile: cell.modelFile, stackDir: cell.stackDir, summary, outcome, onboarded, runnersRemoved };
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
    .action(async (flags: Record<string, unknown>) => {
      const result = await runProvision({
        models: flags.model as string[],
        modelsDir: flags.modelsDir as string | undefined,
        dryRun: Boolean(flags.dryRun),
        planOnly: Boolean(flags.plan),
        autoApprove: Boolean(flags.autoApprove),
        skipOnboard: Boolean(flags.skipOnboard),
        destroy: Boolean(flags.destroy),
        engine: flags.engine as EngineName | undefined,
        out: flags.out as string,
        markdownFile: flags.markdown as string | undefined,
        terraformReportFile: flags.terraformReport as string | undefined,
        drift: Boolean(flags.drift),
        applyPlan: flags.applyPlan as string | undefined,
        replanIfStale: Boolean(flags.replanIfStale),
        lockTimeout: flags.lockTimeout as string | undefined,
        allowLocalState: Boolean(flags.allowLocalState),
        post: Boolean(flags.post),
        tokenEnv: flags.tokenEnv as string | undefined,
        confirm: process.stdin.isTTY ? askOnTerminal : undefined,
      });
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatProvisionResult(result));
      // Not an error: the check ran and found drift. The one error handler passes this code through.
      if (result.mode === "drift" && driftedCells(result).length > 0) process.exitCode = DRIFT_EXIT_CODE;
    });
}
