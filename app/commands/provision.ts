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
 * infrastructure differs from their model (exit 3), touching nothing. --reviewed-plan applies this
 * checkout's plan only when it makes the same changes as the plan a merge request reviewed (which
 * is read, never applied); --allow-unreviewed applies it when there is no reviewed plan at all.
 *
 * The engine sees only the environment it needs (lib/terraform/engine-env.ts) and its
 * output is scrubbed of every secret value this run knows (lib/secrets/known-secrets.ts).
 *
 * This file is the command and the order of the steps; the steps live in app/provision/ (load-models,
 * plan-cell, reviewed-plan, apply-cell, provision-roll, provision-result).
 */
import { createInterface } from "node:readline/promises";
import { isatty } from "node:tty";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, modelsOption, withDefault } from "../cli/options";
import type * as ProvisionOptionsModule from "./provision-options";
import type { ProvisionCliOptions } from "./provision-options";
import { DRIFT_EXIT_CODE, UserInputError } from "../../lib/process/errors";
import { formatIssue } from "../../lib/model/issues";
import { alertTopicName } from "../../lib/model/aws-names";
import { alarmSubscriptionWarnings, awsCliSubscriptions, type SnsSubscriptionSource } from "../../lib/fleet/alarm-subscriptions";
import { cellChangeSummary } from "../../lib/review/cell-summary";
import { summarizeSynth } from "../../lib/review/change-summary";
import { sumReports } from "../../lib/review/terraform-report";
import { refuseLocalStateInCi } from "../../lib/terraform/local-state-guard";
import { cellMarker, renderSummaryMarkdown } from "../../lib/review/render-summary";
import { readMergeRequestNoteTarget, upsertMergeRequestNote } from "../../lib/gitlab/merge-request-note";
import { describeTally } from "../../lib/gitlab/request-pacer";
import { formatMs } from "../../lib/gitlab/retry";
import { constructPaths, readResourceShards, readSynthesizedStack } from "../../lib/review/stack-files";
import { backendEnvironment } from "../../lib/terraform/backend-env";
import { DEFAULT_LOCK_TIMEOUT, detectEngine, isLockTimeout } from "../../lib/terraform/engine";
import { engineEnvironment } from "../../lib/terraform/engine-env";
import { ENGINE_NAMES } from "../../lib/terraform/toolchain-check";
import { synthesizeCells } from "../../stacks/synthesize";
import { defaultSynthOutDir, workspaceDir } from "../../lib/files/workspace";
import { confirmCells, onboardAndApply } from "../provision/apply-cell";
import { planCell, type PlannedCell } from "../provision/plan-cell";
import type { StepContext } from "../provision/provision-context";
import type { RollClock } from "../provision/provision-roll";
import { driftedCells, formatProvisionResult, provisionedCell, type ProvisionedCell, type ProvisionResult } from "../provision/provision-result";
import { loadModels } from "../provision/load-models";
import { knownSecrets, withheldVariables } from "../provision/run-secrets";

export type { Approval, ProvisionMode } from "./provision-options";
export type { ProvisionedCell, ProvisionResult } from "../provision/provision-result";
// The command's output; the bundle (dist/bundle/provision.js) exports it from here.
export { driftedCells, formatProvisionResult } from "../provision/provision-result";

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
  /** Where AWS alert subscriptions are listed after an apply. @default - the AWS CLI */
  readonly snsSubscriptions?: SnsSubscriptionSource;
}

export async function runProvision(options: ProvisionOptions): Promise<ProvisionResult> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // 1. Validate: every model and every flag, before anything is written anywhere.
  const { mode } = options;
  const loaded = loadModels(options.models, options.modelsDir);
  const noteTarget = options.post ? readMergeRequestNoteTarget(env, options.tokenEnv) : undefined;
  if (mode.kind === "apply" && mode.reviewedPlan && loaded.length !== 1) throw new UserInputError("--reviewed-plan is one cell's plan: name exactly one --model");
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
  const workspace = workspaceDir(options.modelsDir);
  const context: StepContext = {
    env,
    workspace,
    log,
    secrets: knownSecrets(loaded, env, options.tokenEnv),
    withheld: withheldVariables(loaded, options.tokenEnv),
    engineExecutable: options.engineExecutable,
    lockTimeout,
    confirm: options.confirm,
    rollClock: options.rollClock,
  };

  // 2. Detect the engine, 3. synthesize.
  const engine = mode.kind === "dry-run" ? undefined : detectEngine(options.engine, engineEnvironment(env, { withhold: context.withheld }));
  // --out is typed by a person: relative to the current directory. Its default belongs to the workspace.
  const outdir = options.out === undefined ? defaultSynthOutDir(workspace) : resolve(options.out);
  log(`synthesizing ${loaded.map((item) => item.model.cell.id).join(", ")} into ${outdir}`);
  const synthesized = synthesizeCells(loaded, { outdir, workDir: workspace });

  let cells: ProvisionedCell[];
  if (mode.kind === "dry-run" || !engine) {
    cells = synthesized.map((cell, index) => {
      const stack = readSynthesizedStack(cell.stackDir);
      const changes = summarizeSynth(stack, readResourceShards(cell.stackDir), constructPaths(stack));
      return provisionedCell(cell, cellChangeSummary(loaded[index].model, changes), "dry-run");
    });
  } else {
    // 4. Plan every cell, 5. confirm every cell: a refusal (an engine step, the cloud's
    // validation, nobody to confirm) comes before any runner is created or anything applied.
    const planned: PlannedCell[] = [];
    for (const [index, cell] of synthesized.entries()) planned.push(await planCell(cell, loaded[index], engine, mode, context));
    if (mode.kind === "drift") {
      cells = planned.map((item) => provisionedCell(item.cell, item.summary, item.changes ? "drifted" : "in-sync"));
    } else if (mode.kind === "plan") {
      cells = planned.map((item) => provisionedCell(item.cell, item.summary, "planned"));
    } else {
      const approved = await confirmCells(planned, mode, context);
      // 6. Onboard, 7. apply (a destroy applies first, then removes the runners).
      cells = [];
      for (const [index, item] of planned.entries()) {
        cells.push(approved[index] ? await onboardAndApply(item, mode, context) : provisionedCell(item.cell, item.summary, "declined"));
      }
    }
    cells = cells.map((cell, index) => ({ terraformReport: planned[index].report, reviewedPlan: planned[index].reviewedPlan, ...cell }));
    // 8. Alarms that reach no one: e-mail subscriptions still waiting for their confirmation click.
    for (const [index, cell] of cells.entries()) {
      const { model } = loaded[index];
      if (mode.kind !== "apply" || cell.outcome !== "applied" || model.cloud.provider !== "aws" || !model.monitoring.enabled || model.monitoring.notifications.emails.length === 0) continue;
      const topic = { region: model.cloud.region, name: alertTopicName(model.cell.id) };
      for (const warning of await alarmSubscriptionWarnings(topic, options.snsSubscriptions ?? awsCliSubscriptions(env))) log(`[${cell.cell}] warning: ${warning}`);
    }
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
      log(`[${cell.cell}] ${note.action} merge request note ${note.noteId}; ${describeTally(note.requests, formatMs)}`);
      cells[index] = { ...cell, note };
    }
  }
  return { mode: mode.kind === "plan" && mode.change === "destroy" ? "destroy" : mode.kind, cells };
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
    .addOption(withDefault(new Option("--out <dir>", "synthesis output directory"), "cdktf.out beside the models directory"))
    .option("--drift", `plan every named cell and report drift; nothing is applied or onboarded (exit ${DRIFT_EXIT_CODE} when a cell drifted)`)
    .option("--reviewed-plan <file>", "the plan a merge request reviewed: this checkout's plan is applied only if it makes the same changes (the file itself is never applied); a difference is shown and nothing is applied")
    .option("--allow-unreviewed", "with --reviewed-plan: when there is no such file (a direct push, a web run, expired artifacts), apply this checkout's plan")
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
      // isatty(0), not process.stdin.isTTY: reading process.stdin makes its stream (a socket for a pipe), which
      // a run that asks nothing (a dry run, a pipeline's --auto-approve) does not need.
      const result = await runProvision({ ...parseProvisionOptions(command), confirm: isatty(0) ? askOnTerminal : undefined });
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatProvisionResult(result));
      // Not an error: the check ran and found drift. The one error handler passes this code through.
      if (result.mode === "drift" && driftedCells(result).length > 0) process.exitCode = DRIFT_EXIT_CODE;
    });
}
