/**
 * `prepare`: validate models, check the toolchain, write models/schema.json;
 * with --generate, write a new cell's model from trigger variables.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, modelsOption } from "../cli/options";
import type * as PrepareOptionsModule from "./prepare-options";
import type { PrepareCliOptions, PrepareMode } from "./prepare-options";
import { UserInputError } from "../../lib/process/errors";
import { generateModel, readTriggerVariables, TRIGGER_VARIABLES } from "../prepare/generate-model";
import { ModelValidationError, formatIssue, type ModelIssue } from "../../lib/model/issues";
import { runnerModelJsonSchemaText } from "../../lib/model/json-schema";
import { withDerivedDefaults } from "../../lib/model/derived-defaults";
import { loadModelFile } from "../../lib/model/load";
import type { RunnerModel } from "../../lib/model/schema";
import { writeModelFile } from "../../lib/model/write-model-file";
import { listModelFiles, modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import { renderedCellErrors } from "../../lib/render/check-rendered";
import { renderedFilesForCell } from "../../lib/render/rendered-files";
import { missingStoreSdk } from "../../lib/secrets/store-sdk";
import { checkToolchain, MIN_ENGINE_VERSION, MIN_NODE_VERSION, type ToolchainReport } from "../../lib/terraform/toolchain-check";
import { workspaceDir } from "../../lib/files/workspace";

export type { PrepareMode } from "./prepare-options";

export interface PrepareOptions extends Partial<Omit<PrepareCliOptions, "mode">> {
  /** @default validate the models */
  readonly mode?: PrepareMode;
  readonly env?: NodeJS.ProcessEnv;
}

export interface ModelReport {
  readonly file: string;
  readonly valid: boolean;
  readonly cell?: string;
  readonly cloud?: string;
  readonly shards?: readonly string[];
  /** The model as the commands use it: every default filled in, derived ones too (what --json prints for each valid model). */
  readonly resolved?: RunnerModel;
  readonly errors: readonly ModelIssue[];
  readonly warnings: readonly ModelIssue[];
}

export interface PrepareResult {
  readonly ok: boolean;
  readonly exitCode: 0 | 1 | 2;
  readonly models: readonly ModelReport[];
  readonly toolchain: ToolchainReport;
  readonly problems: readonly string[];
  readonly notices: readonly string[];
  readonly schemaFile: string;
  readonly schemaChanged: boolean;
  readonly generated?: { readonly file: string; readonly written: boolean; readonly cell: string };
}

export function runPrepare(options: PrepareOptions = {}): PrepareResult {
  const env = options.env ?? process.env;
  const dir = modelsDir(options.modelsDir);
  const mode = options.mode ?? { kind: "validate" };
  const generated = mode.kind === "generate" ? writeGeneratedModel(dir, mode, env) : undefined;

  const files =
    options.models && options.models.length > 0
      ? options.models.map((argument) => resolveModelArgument(argument, dir))
      : generated
        ? [generated.file]
        : listModelFiles(dir);
  if (files.length === 0) throw new UserInputError(`no models (*.yaml) in ${dir}`);
  const workspace = workspaceDir(options.modelsDir);
  const models = files.map((file) => validateModel(file, workspace));

  const toolchain = checkToolchain(env);
  const problems: string[] = [];
  const notices: string[] = [];
  if (!toolchain.node.supported) problems.push(`Node ${toolchain.node.version} is too old; ${MIN_NODE_VERSION} or newer is required`);
  if (!toolchain.engine) {
    const found = toolchain.engines.map((engine) => `${engine.name} ${engine.version}`).join(", ");
    const message = `no terraform or tofu >= ${MIN_ENGINE_VERSION} on PATH${found ? ` (found ${found})` : ""}: only --dry-run provisioning is possible`;
    (options.requireEngine ? problems : notices).push(message);
  }

  // A template that renders a broken config.toml or script is a bug of the toolkit, found before any synth.
  const resolved = models.flatMap((model) => (model.resolved ? [model.resolved] : []));
  // Only onboard, status and import use a store's SDK (an optional peer): provisioning does without it.
  for (const store of new Set(resolved.map((model) => model.secrets.store))) {
    const missing = missingStoreSdk(store);
    if (missing) notices.push(`${missing}; onboard, status and import need it`);
  }
  for (const error of renderedCellErrors(resolved.map((model) => ({ cell: model.cell.id, files: renderedFilesForCell(model) })))) {
    if (error) problems.push(error.message);
  }

  const invalid = models.some((model) => !model.valid);
  // Invalid input has no side effects: the schema is refreshed only on a clean run.
  const schemaFile = join(dir, "schema.json");
  const schemaChanged = invalid ? false : writeIfChanged(schemaFile, runnerModelJsonSchemaText());

  const exitCode = invalid ? 2 : problems.length > 0 ? 1 : 0;
  return { ok: exitCode === 0, exitCode, models, toolchain, problems, notices, schemaFile, schemaChanged, generated };
}

function validateModel(file: string, workspace: string): ModelReport {
  try {
    const { model, warnings } = loadModelFile(file, { requireFileNameMatch: true, workspace });
    return {
      file,
      valid: true,
      cell: model.cell.id,
      cloud: model.cloud.provider,
      shards: model.shards.map((shard) => shard.name),
      resolved: withDerivedDefaults(model),
      errors: [],
      warnings,
    };
  } catch (error) {
    if (error instanceof ModelValidationError) return { file, valid: false, errors: error.issues, warnings: [] };
    throw error;
  }
}

/** Every variable is validated and the model built before anything is written. */
function writeGeneratedModel(dir: string, mode: Extract<PrepareMode, { kind: "generate" }>, env: NodeJS.ProcessEnv) {
  const { cellId, text } = generateModel(readTriggerVariables(env, mode.varsFile), { env, destinations: mode.destinations });
  const { file, outcome } = writeModelFile(dir, cellId, text, { replace: mode.whenExists === "replace" });
  if (outcome === "exists") {
    if (mode.whenExists === "keep") return { file, written: false, cell: cellId };
    throw new UserInputError(`${file} already exists; pass --if-missing to keep it or --force to replace it`);
  }
  return { file, written: true, cell: cellId };
}

function writeIfChanged(file: string, text: string): boolean {
  if (existsSync(file) && readFileSync(file, "utf8") === text) return false;
  writeFileSync(file, text);
  return true;
}

export function formatPrepareReport(result: PrepareResult): string {
  const lines: string[] = [];
  if (result.generated) {
    lines.push(
      result.generated.written
        ? `generated ${result.generated.file} for cell ${result.generated.cell}`
        : `kept existing ${result.generated.file} (--if-missing)`,
    );
  }
  for (const model of result.models) {
    if (model.valid) {
      lines.push(`ok      ${model.file}: cell ${model.cell} on ${model.cloud}, shards ${model.shards!.join(", ")}`);
    } else {
      lines.push(`invalid ${model.file}: ${model.errors.length} problem${model.errors.length === 1 ? "" : "s"}`);
      for (const issue of model.errors) lines.push(`  ${formatIssue(issue)}`);
    }
    for (const warning of model.warnings) lines.push(`  ${formatIssue(warning)}`);
  }
  const { toolchain } = result;
  lines.push(`node    ${toolchain.node.version}${toolchain.node.supported ? "" : ` (needs >= ${MIN_NODE_VERSION})`}`);
  if (toolchain.engines.length === 0) lines.push("engine  none found (terraform or tofu)");
  for (const engine of toolchain.engines) {
    lines.push(`engine  ${engine.name} ${engine.version}${engine.supported ? "" : ` (needs >= ${MIN_ENGINE_VERSION})`}`);
  }
  const schemaState = result.models.some((model) => !model.valid) ? "not written: invalid models" : result.schemaChanged ? "updated" : "up to date";
  lines.push(`schema  ${result.schemaFile} (${schemaState})`);
  for (const notice of result.notices) lines.push(`warning: ${notice}`);
  for (const problem of result.problems) lines.push(`error: ${problem}`);
  return `${lines.join("\n")}\n`;
}

export function prepareCommand(): Command {
  return cliCommand("prepare")
    .description("Validate runner models, check the toolchain and write models/schema.json.")
    .addOption(modelsOption("every model in the models directory"))
    .addOption(modelsDirOption())
    .option("--require-engine", "fail (exit 1) when no terraform/tofu >= 1.5 is available")
    .option("--generate", "write models/<CELL_ID>.yaml from trigger variables, then validate it")
    .option("--vars-file <file>", "with --generate: JSON object of trigger variables (wins over the environment)")
    .option("--if-missing", "with --generate: keep an existing model and succeed")
    .option("--force", "with --generate: replace an existing model")
    .option("--admin-token-env <name>", "with --generate: the variable this project keeps the GitLab admin token in; GITLAB_TOKEN_ENV may name only this one (default: GITLAB_TOKEN)")
    .option("--allowed-gitlab-urls <urls>", "with --generate: the GitLab root URLs GITLAB_URL may name, separated by spaces or commas (the admin token is sent there); \"\" allows none")
    .addOption(jsonOption("print a machine-readable report, with each model as resolved (all defaults filled in)"))
    .addHelpText(
      "after",
      `\nTrigger variables for --generate:\n${Object.entries(TRIGGER_VARIABLES)
        .map(([name, variable]) => `  ${name.padEnd(22)}${variable.required ? "(required) " : ""}${variable.help}${"default" in variable ? ` (default: ${variable.default})` : ""}`)
        .join("\n")}\n\nExit codes: 0 ok, 2 invalid model or usage, 1 environment problem.`,
    )
    .action((flags: { json?: boolean }, command: Command) => {
      // zod is loaded here, once commander has parsed: --help and --version do not pay for it.
      const { parsePrepareOptions } = require("./prepare-options") as typeof PrepareOptionsModule;
      const result = runPrepare(parsePrepareOptions(command));
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : formatPrepareReport(result));
      process.exitCode = result.exitCode;
    });
}
