/**
 * `import`: writes a cell's model from the config.toml files of existing runner managers
 * (docker+machine, docker-autoscaler or docker executors), and with --adopt stores each runner's
 * verified glrt- token in the model's secret store, so that onboard adopts those runners instead
 * of creating new ones (lib/onboard/adopt-imported.ts).
 *
 * Order: read and map every file, verify the tokens (--adopt), check the model as prepare does,
 * check that the secret store can take tokens; only then write the model, then the tokens. Bad
 * input (a flag, a file, a key) stops before anything is written (exit 2).
 */
import { basename, dirname, join, resolve } from "node:path";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, withDefault } from "../cli/options";
import type * as ImportOptionsModule from "./import-options";
import type { ImportCliOptions } from "./import-options";
import { UserInputError } from "../../lib/process/errors";
import { gitlabClientModule } from "../../lib/gitlab/load-client";
import { formatIssue, formatPath, ModelValidationError } from "../../lib/model/issues";
import { parseModel } from "../../lib/model/load";
import { modelsDir } from "../../lib/model/model-files";
import { runningToolkit, toolkitCommand } from "../../lib/ci/toolkit-invocation";
import { workspaceDir } from "../../lib/files/workspace";
import { writeModelFile } from "../../lib/model/write-model-file";
import { createSecretStore } from "../../lib/secrets/create-store";
import { acquireCellLock, DEFAULT_LOCK_WAIT_MS, describeHolder, stateDirectory } from "../../lib/state/cell-lock";
import { redactSecrets } from "../../lib/text/redact";
import { adoptShardTokens, withRunnerSettings, type ShardAdoption } from "../import/adopt-tokens";
import { importModel, type ImportedShard } from "../import/imported-model";
import type { UnmappedKey } from "../import/key-ledger";
import { formatUnmapped, importedModelText } from "../import/model-text";
import { readTomlSource } from "../import/toml-source";

export interface ImportOptions extends Partial<Omit<ImportCliOptions, "configs" | "cell" | "cloud">> {
  readonly configs: readonly string[];
  readonly cell: string;
  readonly cloud: "google" | "aws";
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Resolves a relative secrets.local_dir. @default - the workspace (lib/files/workspace.ts) */
  readonly secretsBaseDir?: string;
  /** @default new Date() */
  readonly now?: Date;
  /** How long --adopt waits for an onboard run's lock on the cell. @default 2m */
  readonly lockWaitMs?: number;
  /** Progress lines (waiting for the lock). @default stderr */
  readonly log?: (line: string) => void;
}

export interface ImportedShardReport {
  readonly shard: string;
  readonly entries: readonly string[];
  /** The runner adopted (--adopt), whose token is now in the store. */
  readonly adoptedRunnerId?: number;
}

export interface ImportResult {
  readonly file: string;
  readonly cell: string;
  readonly shards: readonly ImportedShardReport[];
  readonly unmapped: readonly UnmappedKey[];
  readonly notes: readonly string[];
  readonly adoption: readonly string[];
  readonly warnings: readonly string[];
  /** What prepare refuses in the model written with --write-refused (empty otherwise). */
  readonly refused: readonly string[];
}

/** The admin token's variable: the model's gitlab.token_env default, as onboard reads it. */
const TOKEN_ENV = "GITLAB_TOKEN";

export async function runImport(options: ImportOptions): Promise<ImportResult> {
  const env = options.env ?? process.env;
  const now = options.now ?? new Date();
  const file = resolve(options.out ?? join(modelsDir(), `${options.cell}.yaml`));
  if (basename(file) !== `${options.cell}.yaml`) {
    throw new UserInputError(`--out ${options.out}: expected a file named ${options.cell}.yaml (a model's file name is its cell id, which prepare checks)`);
  }
  const sources = options.configs.map((config) => readTomlSource(config));
  const imported = importModel(sources, options);

  const adoptions: ShardAdoption[] = [];
  if (options.adopt) {
    const adminToken = env[TOKEN_ENV];
    if (!adminToken) throw new UserInputError(`--adopt needs $${TOKEN_ENV}: an administrator's token with the api scope, to verify each runner token and read its runner's settings`);
    const url = String((imported.model.gitlab as { url: string }).url);
    const client = gitlabClientModule().createGitLabClient({ url, token: adminToken, tokenEnv: TOKEN_ENV, urlSource: "the url of the runners in the config.toml files", knownSecrets: () => imported.shards.flatMap((shard) => shard.tokens.map((token) => token.value)) });
    for (const shard of imported.shards) adoptions.push(await adoptShardTokens(client, shard));
  }
  const shards = imported.shards.map((shard, index) => {
    const adoption = adoptions[index];
    return adoption?.adopted ? withRunnerSettings(shard.shard, adoption.runner) : shard.shard;
  });
  const adoption = adoptions.flatMap((result) =>
    result.adopted
      ? [`shard ${result.shard} adopts runner #${result.runner.id}${result.runner.description ? ` ("${result.runner.description}")` : ""}: its token is in the secret store, its settings are GitLab's`]
      : [],
  );
  const adoptionNotes = adoptions.flatMap((result) => result.notes);
  const model = { ...imported.model, shards };
  const textInput = { model, files: options.configs, notes: [...imported.notes, ...adoptionNotes], unmapped: imported.unmapped, adoption, now };
  let text = importedModelText(textInput);

  let loaded;
  let refused: string[] = [];
  try {
    loaded = parseModel(text, file, options.cell);
  } catch (error) {
    if (!(error instanceof ModelValidationError)) throw error;
    refused = error.issues.map((issue) => `${formatPath(issue.path)}: expected ${issue.expected}${issue.received ? `, received ${issue.received}` : ""}`);
    if (!options.writeRefused) {
      throw new UserInputError(
        `the imported model does not pass prepare, so it was not written:\n${refused.map((line) => `  ${line}`).join("\n")}\n` +
          "(--write-refused writes it all the same, with these at the top of its header, to fix by hand before prepare and onboard)",
      );
    }
    // Written as imported, with what prepare refuses at the top: the models directory fails prepare until it is fixed.
    text = importedModelText({ ...textInput, refused });
  }
  // The store and the lock onboard uses: the workspace of the models directory in force.
  const workspace = workspaceDir();
  const adopted = adoptions.filter((result): result is Extract<ShardAdoption, { adopted: true }> => result.adopted);
  const store = adopted.length > 0 && loaded ? createSecretStore(loaded.model, { baseDir: options.secretsBaseDir ?? workspace, env }) : undefined;
  await store?.checkWritable?.();

  // Tokens go into the store under the cell's onboarding lock: an onboard of the same cell never sees half of them.
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const lock =
    adopted.length > 0
      ? await acquireCellLock({
          stateDir: stateDirectory(env, workspace),
          cell: options.cell,
          command: "import --adopt",
          waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
          onWait: (holder) => log(`${describeHolder(holder)} on cell ${options.cell}; waiting`),
        })
      : undefined;
  let written: { file: string };
  try {
    const outcome = writeModelFile(dirname(file), options.cell, text, { replace: Boolean(options.force) });
    if (outcome.outcome === "exists") throw new UserInputError(`${file} exists; nothing was written (--force replaces it)`);
    written = outcome;
    for (const result of adopted) {
      const shard = loaded!.model.shards.find((candidate) => candidate.name === result.shard)!;
      await store!.write(shard, {
        token: result.token,
        runnerId: result.runner.id,
        gitlabUrl: loaded!.model.gitlab.url,
        tokenExpiresAt: result.tokenExpiresAt,
        createdAt: now.toISOString(),
      });
    }
  } finally {
    await lock?.release();
  }
  return {
    file: written.file,
    cell: options.cell,
    shards: imported.shards.map((shard: ImportedShard, index) => {
      const result = adoptions[index];
      return { shard: shard.name, entries: shard.entries, ...(result?.adopted ? { adoptedRunnerId: result.runner.id } : {}) };
    }),
    unmapped: imported.unmapped,
    notes: [...imported.notes, ...adoptionNotes],
    adoption,
    // As prepare prints them: the model is written now, so its file:line:col point at it.
    warnings: loaded?.warnings.map(formatIssue) ?? [],
    refused,
  };
}

export function formatImportReport(result: ImportResult): string {
  const lines = [`${result.file}: cell ${result.cell}, ${result.shards.length} shard${result.shards.length === 1 ? "" : "s"}`];
  for (const shard of result.shards) {
    const runner = shard.adoptedRunnerId === undefined ? "a new runner at onboard" : `adopts runner #${shard.adoptedRunnerId}`;
    lines.push(`  ${shard.shard}: ${runner} (from ${shard.entries.join(", ")})`);
  }
  if (result.notes.length > 0) lines.push("notes:", ...result.notes.map((note) => `  ${note}`));
  if (result.warnings.length > 0) lines.push("warnings (as prepare prints them):", ...result.warnings.map((warning) => `  ${warning}`));
  if (result.refused.length > 0) lines.push("prepare refuses the model until these are fixed (listed at the top of its header too):", ...result.refused.map((line) => `  ${line}`));
  const toolkit = runningToolkit();
  lines.push(`next: review the model (its header lists what was not imported), then ${toolkitCommand(toolkit, "prepare")} and ${toolkitCommand(toolkit, "onboard")} --model ${result.cell} --dry-run`);
  return `${lines.join("\n")}\n`;
}

/** Every unmapped key on stderr, one line each: nothing is dropped without a word. */
export function formatUnmappedKeys(unmapped: readonly UnmappedKey[]): string {
  if (unmapped.length === 0) return "";
  return `not imported (${unmapped.length} key${unmapped.length === 1 ? "" : "s"} with no place in the model):\n${unmapped.map((key) => `  ${formatUnmapped(key)}`).join("\n")}\n`;
}

export function importCommand(): Command {
  return cliCommand("import")
    .description("write a cell's model from existing runner managers' config.toml files (docker+machine, docker-autoscaler, docker); --adopt keeps their runners")
    .addOption(new Option("--config <file>", "a gitlab-runner config.toml (repeatable)").argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]))
    .addOption(new Option("--cell <id>", "the cell id of the model"))
    .addOption(new Option("--cloud <cloud>", "where the new fleet runs").choices(["google", "aws"]))
    .addOption(new Option("--region <region>", "the cloud region, when the files name none"))
    .addOption(new Option("--project <project>", "the Google Cloud project, when the files name none"))
    .addOption(new Option("--account-id <id>", "the AWS account id (12 digits)"))
    .addOption(withDefault(new Option("--secrets-store <store>", "where runner tokens are kept").choices(["local", "google-secret-manager", "aws-ssm"]), "the cloud's own store"))
    .addOption(new Option("--adopt", "verify each runner's glrt- token (POST /runners/verify, with $GITLAB_TOKEN) and store it, so onboard adopts the runner"))
    .addOption(withDefault(new Option("--out <file>", "the model file to write"), "<models dir>/<cell>.yaml"))
    .addOption(new Option("--force", "replace an existing model file"))
    .addOption(new Option("--write-refused", "write the model even when prepare would refuse it (an http:// GitLab, a machine type it does not know), with the refusals at the top of its header, to fix by hand"))
    .addOption(jsonOption())
    .action(async function (this: Command) {
      const { parseImportOptions } = require("./import-options") as typeof ImportOptionsModule;
      const parsed = parseImportOptions(this);
      const result = await runImport(parsed);
      // The report holds no token; redacted all the same, as every line that leaves the process.
      process.stderr.write(redactSecrets(formatUnmappedKeys(result.unmapped)));
      process.stdout.write(redactSecrets(this.opts().json ? `${JSON.stringify(result, null, 2)}\n` : formatImportReport(result)));
    });
}
