/**
 * `provision`: from a model to a running fleet.
 *
 *   onboard (unless --skip-onboard) -> synthesize in-process -> engine init -> plan -out
 *   -> summary -> confirmation -> apply exactly the saved plan
 *
 * --dry-run stops after synthesis and summarizes the synthesized JSON: no GitLab,
 * no cloud, no engine. --destroy plans a destroy, applies it, then removes the runners.
 */
import { createInterface } from "node:readline/promises";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, Option } from "commander";
import { OperationalError, UserInputError } from "../errors";
import { loadModelFile, type LoadedModel } from "../model/load";
import { modelsDir, resolveModelArgument } from "../model/model-files";
import { formatIssue } from "../model/issues";
import { cellChangeSummary, type CellChangeSummary } from "../review/cell-summary";
import { summarizePlan, summarizeSynth } from "../review/change-summary";
import { cellMarker, renderSummaryMarkdown, renderSummaryText } from "../review/render-summary";
import { readMergeRequestNoteTarget, upsertMergeRequestNote, type NoteUpsertResult } from "../gitlab/merge-request-note";
import { readResourceShards, readSynthesizedStack } from "../review/stack-files";
import { backendEnvironment } from "../terraform/backend-env";
import { detectEngine, EngineDriver } from "../terraform/engine";
import type { EngineName } from "../toolchain/check";
import { synthesizeCells, type SynthesizedCell } from "../../stacks/synthesize";
import { runOnboard, type OnboardOptions } from "./onboard";

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
  /** Create or update each cell's plan summary as a note on the merge request of $CI_MERGE_REQUEST_IID. */
  readonly post?: boolean;
  /** Variable holding the token for --post. @default - GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN */
  readonly tokenEnv?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Progress and the engine's output (stderr by default, so stdout stays clean for --json). */
  readonly log?: (line: string) => void;
  /** Asks the person at the terminal; undefined when nobody can answer (no TTY). */
  readonly confirm?: (question: string) => Promise<boolean>;
}

export interface ProvisionedCell {
  readonly cell: string;
  readonly modelFile: string;
  readonly stackDir: string;
  readonly summary: CellChangeSummary;
  readonly outcome: "dry-run" | "planned" | "no-changes" | "applied" | "declined";
  /** The merge request note of this cell's summary, with --post. */
  readonly note?: NoteUpsertResult;
  readonly onboarded: boolean;
  readonly runnersRemoved: boolean;
}

export interface ProvisionResult {
  readonly mode: "dry-run" | "plan" | "apply" | "destroy";
  readonly cells: readonly ProvisionedCell[];
}

export async function runProvision(options: ProvisionOptions): Promise<ProvisionResult> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const loaded = loadModels(options);
  const mode = options.dryRun ? "dry-run" : options.destroy ? "destroy" : options.planOnly ? "plan" : "apply";
  // Missing CI variables are a usage error, found before any side effect.
  const noteTarget = options.post ? readMergeRequestNoteTarget(env, options.tokenEnv) : undefined;
  if (options.dryRun && (options.destroy || options.autoApprove)) {
    throw new UserInputError("--dry-run cannot be combined with --destroy or --auto-approve");
  }
  for (const { model, file, warnings } of loaded) {
    for (const warning of warnings) log(formatIssue(warning));
    // Fail before any side effect when the http backend's credentials are missing.
    if (!options.dryRun) backendEnvironment(model, env);
    if (!options.dryRun && !options.planOnly && !options.destroy && model.secrets.store === "local") {
      log(`[${model.cell.id}] warning: ${file} keeps tokens in the local store; managers will wait for /etc/gitlab-runner/runner-token`);
    }
  }

  const onboarded = new Set<string>();
  if (!options.dryRun && !options.skipOnboard && !options.destroy) {
    for (const { model, file } of loaded) {
      log(`[${model.cell.id}] onboarding runners`);
      await onboardOrFail({ runnerModel: model, env, log }, file);
      onboarded.add(model.cell.id);
    }
  }

  const outdir = resolve(options.out ?? "cdktf.out");
  log(`synthesizing ${loaded.map((item) => item.model.cell.id).join(", ")} into ${outdir}`);
  const synthesized = synthesizeCells(loaded, { outdir });

  const engine = options.dryRun ? undefined : detectEngine(options.engine, env);
  const cells: ProvisionedCell[] = [];
  for (const [index, cell] of synthesized.entries()) {
    const { model } = loaded[index];
    if (!engine) {
      const changes = summarizeSynth(readSynthesizedStack(cell.stackDir), readResourceShards(cell.stackDir));
      cells.push(result(cell, cellChangeSummary(model, changes), "dry-run", false, false));
      continue;
    }
    cells.push(await planAndApply(cell, loaded[index], engine, { ...options, env, log }, onboarded.has(cell.cell)));
  }

  const summaries = cells.map((cell) => cell.summary);
  if (options.markdownFile) writeFileSync(options.markdownFile, renderSummaryMarkdown(summaries));
  if (noteTarget) {
    for (const [index, cell] of cells.entries()) {
      const note = await upsertMergeRequestNote(noteTarget, renderSummaryMarkdown(cell.summary), cellMarker(cell.cell));
      log(`[${cell.cell}] ${note.action} merge request note ${note.noteId}`);
      cells[index] = { ...cell, note };
    }
  }
  return { mode, cells };
}

async function planAndApply(
  cell: SynthesizedCell,
  loaded: LoadedModel,
  engine: { name: EngineName; version: string },
  options: ProvisionOptions & { env: NodeJS.ProcessEnv; log: (line: string) => void },
  onboarded: boolean,
): Promise<ProvisionedCell> {
  const { log } = options;
  const driver = new EngineDriver({
    engine: engine.name,
    executable: options.engineExecutable,
    cwd: cell.stackDir,
    env: { ...options.env, ...backendEnvironment(loaded.model, options.env) },
    onOutput: (line) => log(`[${cell.cell}] ${line}`),
    onProgress: (message) => log(`[${cell.cell}] ${message}`),
  });
  await driver.init();
  const planFile = join(cell.stackDir, options.destroy ? `${cell.cell}.destroy.tfplan` : `${cell.cell}.tfplan`);
  const planned = await driver.plan({ out: planFile, destroy: options.destroy });
  const changes = summarizePlan(await driver.showPlanJson(planned.planFile), readResourceShards(cell.stackDir));
  const summary = cellChangeSummary(loaded.model, changes, { engine, planFile: planned.planFile });
  log(renderSummaryText(summary).trimEnd());

  if (options.planOnly) return result(cell, summary, "planned", onboarded, false);
  if (!planned.changes) {
    log(`[${cell.cell}] no changes to apply`);
    const removed = options.destroy ? await removeRunners(loaded, options) : false;
    return result(cell, summary, "no-changes", onboarded, removed);
  }
  if (!options.autoApprove) {
    if (!options.confirm) {
      throw new UserInputError(
        `refusing to ${options.destroy ? "destroy" : "apply"} ${cell.cell} without confirmation: no terminal to ask; pass --auto-approve (the plan is kept at ${planned.planFile})`,
      );
    }
    const verb = options.destroy ? "Destroy every resource of" : "Apply this plan to";
    if (!(await options.confirm(`${verb} cell ${cell.cell}? Type "yes" to continue: `))) {
      log(`[${cell.cell}] not applied; the plan is kept at ${planned.planFile}`);
      return result(cell, summary, "declined", onboarded, false);
    }
  }
  await driver.apply(planned.planFile);
  const removed = options.destroy ? await removeRunners(loaded, options) : false;
  return result(cell, summary, "applied", onboarded, removed);
}

/** After a destroy, the runners of the cell go too, so GitLab lists no dead runners. */
async function removeRunners(loaded: LoadedModel, options: ProvisionOptions & { env: NodeJS.ProcessEnv; log: (line: string) => void }): Promise<boolean> {
  if (options.skipOnboard) return false;
  options.log(`[${loaded.model.cell.id}] removing runners`);
  await onboardOrFail({ runnerModel: loaded.model, remove: true, env: options.env, log: options.log }, loaded.file);
  return true;
}

/** Onboarding reports failures in its result; provisioning must not go on past one. */
async function onboardOrFail(options: OnboardOptions, file: string): Promise<void> {
  const result = await runOnboard(options);
  if (!result.ok) {
    throw new OperationalError(`onboarding ${file} failed, nothing was planned or applied:\n  ${result.problems.join("\n  ")}`);
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
    }[cell.outcome];
    lines.push(`${cell.cell}: ${what}${cell.runnersRemoved ? "; runners removed" : ""}`);
  }
  return `${lines.join("\n")}\n`;
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
  return new Command("provision")
    .description("Onboard runners, synthesize the cell's stack, plan and apply it with terraform or tofu.")
    .option("-m, --model <model>", "model path or name in the models directory (repeatable)", (value: string, previous: string[]) => [...previous, value], [])
    .option("--models-dir <dir>", "directory of the models (default: $RUNNER_MODELS_DIR or ./models)")
    .option("--dry-run", "validate, render and synthesize only; no GitLab, no cloud, no engine")
    .option("--plan", "stop after the plan (the plan file is kept)")
    .option("--auto-approve", "apply without asking (pipelines)")
    .option("--skip-onboard", "do not create or reconcile the runners first")
    .option("--destroy", "destroy the cell's resources, then remove its runners")
    .addOption(new Option("--engine <engine>", "terraform or tofu (default: detected)").choices(["terraform", "tofu"]))
    .option("--out <dir>", "synthesis output directory", "cdktf.out")
    .option("--markdown <file>", "write the summary as markdown (for a merge request note)")
    .option("--post", "create or update each cell's summary as a note on the merge request ($CI_SERVER_URL, $CI_PROJECT_ID, $CI_MERGE_REQUEST_IID)")
    .option("--token-env <name>", "variable holding the token for --post (default: GITLAB_REVIEW_TOKEN, else GITLAB_TOKEN)")
    .option("--json", "print the result as JSON on stdout")
    .addHelpText("after", "\nExit codes: 0 ok, 1 runtime failure (GitLab, cloud, engine step), 2 invalid input.")
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
        post: Boolean(flags.post),
        tokenEnv: flags.tokenEnv as string | undefined,
        confirm: process.stdin.isTTY ? askOnTerminal : undefined,
      });
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatProvisionResult(result));
    });
}
