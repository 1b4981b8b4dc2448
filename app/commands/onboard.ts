/**
 * `onboard`: reconcile a model's runners with GitLab and keep their tokens in the
 * model's secret store (--rotate, --remove, --dry-run, --status, --prune). Options are
 * parsed once into a mode (./onboard-options.ts, on app/cli/parse-options.ts); reconciling is a pure plan and its
 * execution (lib/onboard/). Progress goes to stderr, results to stdout.
 *
 * Several cells at once (--model repeated, or --all): runOnboardCells, `--cell-concurrency` at
 * a time, each cell one runOnboard with its own lock, store and report, all sharing one
 * GitLabTraffic (lib/gitlab/traffic.ts): cells on the same GitLab and token share its request
 * rate and what was learnt of its runners, cells on other GitLabs go at their own pace.
 * Progress is held per cell and printed as one block when the cell is done, and the report
 * lists the cells in the order given, so the output reads cell by cell however runs interleave.
 */
import { rotationText } from "../../lib/review/render-summary";
import { rotationMode } from "../../lib/model/rotation-mode";
import { Option, type Command } from "commander";
import pLimit from "p-limit";
import { cliCommand, jsonOption, modelsDirOption, modelsOption, withDefault } from "../cli/options";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { gitlabClientModule } from "../../lib/gitlab/load-client";
import { modelConnection } from "../../lib/gitlab/wire/model-connection";
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK, formatMs, type RetryClock, type RetryPolicy } from "../../lib/gitlab/retry";
import { GitLabTraffic } from "../../lib/gitlab/traffic";
import type { PaceSettings } from "../../lib/gitlab/request-pacer";
import { RunnerCensus } from "../../lib/gitlab/runner-census";
import { desiredRunner } from "../../lib/gitlab/runner-spec";
import { DEFAULT_STALE_AFTER, pruneCell, type PruneReport } from "../../lib/gitlab/prune";
import { collectShardStatus } from "../../lib/gitlab/status";
import { loadModelFile } from "../../lib/model/load";
import { listModelFiles, modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import { workspaceDir } from "../../lib/files/workspace";
import type { RunnerModel, Shard } from "../../lib/model/schema";
import { shardProblems, uncheckedOutcome, type ShardFailure, type ShardOutcome } from "../../lib/onboard/outcome";
import type { ExecuteContext } from "../../lib/onboard/execute-context";
import { reconcileCell } from "../../lib/onboard/reconcile-cell";
import { createSecretStore } from "../../lib/secrets/create-store";
import { acquireCellLock, describeHolder, describeTakeover, stateDirectory, type HeldCellLock } from "../../lib/state/cell-lock";
import { redactSecrets, redactValue } from "../../lib/text/redact";
import type { SecretStore } from "../../lib/secrets/store";
import { DEFAULT_CELL_CONCURRENCY, DEFAULT_CONCURRENCY, LOCK_WAIT_ENV, RATE_LIMIT_ENV, RETRY_TIMEOUT_ENV, requestsPerMinute } from "../cli/gitlab-settings";
import type * as OnboardOptionsModule from "./onboard-options";
import type { OnboardFlags, OnboardMode } from "./onboard-options";
import { formatOnboardCellsReport, formatOnboardReport, type OnboardCellsResult, type OnboardResult } from "./onboard-report";

export { formatOnboardCellsReport, formatOnboardReport, type OnboardCellsResult, type OnboardResult };

export interface OnboardOptions extends OnboardFlags {
  /** --model: a path, or a name in the models directory. */
  readonly model?: string;
  /** A model already loaded (tests, bin/provision); wins over `model`. */
  readonly runnerModel?: RunnerModel;
  /** The file `runnerModel` was loaded from, for the report. @default "(given)" */
  readonly modelFile?: string;
  readonly modelsDir?: string;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default the store the model names */
  readonly secretStore?: SecretStore;
  /** The workspace (lib/files/workspace.ts). @default - the one of `modelsDir` */
  readonly workspace?: string;
  /** Resolves a relative secrets.local_dir. @default - the workspace */
  readonly secretsBaseDir?: string;
  /** Injected waiting and time (tests). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Progress lines (already redacted). @default stderr */
  readonly log?: (line: string) => void;
  /** Told every secret value the run sees (runner tokens), so a caller can scrub them from other output. */
  readonly onSecret?: (value: string) => void;
  /** Where the per-cell lock lives (<stateDir>/locks). @default $RUNNER_FLEET_STATE_DIR, else .state in the workspace */
  readonly stateDir?: string;
  /** A lock not refreshed for this long is taken over (its process died). @default 10s */
  readonly lockStaleMs?: number;
  /** The pacing shared with other runs of this process against the same GitLab (several cells at once). @default one of its own, at the rate of `rateLimit` */
  readonly traffic?: GitLabTraffic;
}

/** What every mode of a run shares once the model and options are read. */
interface Session extends ExecuteContext {
  readonly options: OnboardOptions;
  readonly env: NodeJS.ProcessEnv;
  /** Where the cell lock's default state directory is (lib/files/workspace.ts). */
  readonly workspace: string;
  readonly shards: readonly Shard[];
  readonly concurrency: number;
  /** False in dry runs against cloud stores: no credentials are touched. */
  readonly readSecrets: boolean;
  readonly redact: (text: string) => string;
  readonly head: Pick<OnboardResult, "mode" | "dryRun" | "model" | "cell" | "gitlabUrl">;
}

export async function runOnboard(options: OnboardOptions): Promise<OnboardResult> {
  const env = options.env ?? process.env;
  const { model, file } = loadModel(options);
  // Loaded here, not at the top: it brings zod, which --help and --version do without.
  const { parseOnboardOptions } = require("./onboard-options") as typeof OnboardOptionsModule;
  const { mode, concurrency, retryBudgetMs, requestsPerMinute } = parseOnboardOptions(options, env);
  const shards = selectShards(model, mode.kind === "prune" ? [] : mode.shards);
  // Everything GitLab would refuse is refused here first, before any call (exit 2).
  for (const shard of shards) desiredRunner(model, shard);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, budgetMs: retryBudgetMs };
  const clock: RetryClock = { now: options.now ?? SYSTEM_CLOCK.now, sleep: options.sleep ?? SYSTEM_CLOCK.sleep, random: options.random ?? SYSTEM_CLOCK.random };
  const tokenEnv = model.gitlab.token_env;
  const adminToken = env[tokenEnv];
  const secrets = new Set<string>(adminToken ? [adminToken] : []);
  const redact = (text: string) => [...secrets].reduce((out, secret) => redactValue(out, secret), redactSecrets(text));
  const write = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (line: string) => write(redact(line));
  const workspace = options.workspace ?? workspaceDir(options.modelsDir);
  const store = options.secretStore ?? createSecretStore(model, { baseDir: options.secretsBaseDir ?? workspace, env });
  const head = { mode: mode.kind, dryRun: mode.dryRun, model: file, cell: model.cell.id, gitlabUrl: model.gitlab.url };

  if (!adminToken) {
    if (!needsToken(mode)) {
      // No credentials: say what onboarding would look at, and touch nothing.
      // The notice is part of the report (stdout, or --json), so it is not logged too: printed once.
      const notice = `$${tokenEnv} is not set: GitLab was not queried; every shard is reconciled when onboard runs with a token`;
      const outcomes = shards.map((shard) => uncheckedOutcome({ shard: shard.name, secret: store.describe(shard), reason: "GitLab not queried", dryRun: true }));
      // What each shard asks GitLab for, so the dry run shows the runners even without a token.
      const intended = shards.map((shard) => ({ shard: shard.name, checkedAgainstGitLab: false as const, runner: desiredRunner(model, shard), secret: store.describe(shard) }));
      return { ...head, ok: true, exitCode: 0, shards: outcomes, plan: [], intended, problems: [], notices: [notice] };
    }
    throw new UserInputError(
      `$${tokenEnv} is not set: onboard needs a GitLab token with the api scope (an administrator's for instance runners) in the variable the model names in gitlab.token_env`,
    );
  }

  const traffic = options.traffic ?? new GitLabTraffic({ requestsPerMinute }, clock);
  // This cell's requests, counted apart from other cells sharing the GitLab's pacer.
  const pacer = traffic.pacerFor(model.gitlab.url, adminToken).metered();
  const client = gitlabClientModule().createGitLabClient({
    url: model.gitlab.url,
    token: adminToken,
    tokenEnv,
    policy,
    clock,
    pacer,
    contact: traffic.contactWith(model.gitlab.url),
    knownSecrets: () => [...secrets],
    onRetry: (event) => log(`gitlab: ${event.reason}; retrying in ${formatMs(event.delayMs)}`),
    ...modelConnection(model.gitlab),
    warn: log,
  });
  const census = new RunnerCensus(client, model, traffic.runnersOf(model.gitlab.url, adminToken));
  const rememberSecret = (token: string) => {
    if (!token) return;
    secrets.add(token);
    options.onSecret?.(token);
  };
  const readSecrets = !(mode.dryRun && store.needsCredentials);
  const session: Session = { model, options, env, workspace, shards, concurrency, client, census, store, policy, clock, readSecrets, log, redact, rememberSecret, head };

  const result = await runMode(session, mode);
  return { ...result, requests: pacer.tally() };
}

/** A dry run of the shards can say what it would ask GitLab without a token; every other mode needs one. */
function needsToken(mode: OnboardMode): boolean {
  return mode.kind === "status" || mode.kind === "prune" || !mode.dryRun;
}

function runMode(session: Session, mode: OnboardMode): Promise<OnboardResult> {
  switch (mode.kind) {
    case "status":
      return onboardStatus(session, mode.requireOnline);
    case "prune":
      return withCellLock(session, mode, (notices) => onboardPrune(session, mode, notices));
    default:
      return withCellLock(session, mode, (notices) => onboardShards(session, mode, notices));
  }
}


async function onboardStatus(session: Session, requireOnline: boolean): Promise<OnboardResult> {
  const { model, client, census, store, readSecrets, rememberSecret, redact } = session;
  const limit = pLimit(session.concurrency);
  const status = await Promise.all(session.shards.map((shard) => limit(() => collectShardStatus({ model, client, census, store, readSecrets, rememberSecret, verifyToken: true }, shard))));
  // A GitLab that never answered is one cause, said once; other failures name their shard.
  const problems = [...new Set(status.flatMap((entry) => (entry.error ? [entry.errorKind === "not-reached" ? redact(entry.error) : withShard(entry.shard, redact(entry.error))] : [])))];
  // A token GitLab refuses is reported always, and fails the run under --require-online (its managers cannot register).
  const tokenProblems = status.flatMap((entry) => (entry.tokenProblem ? [withShard(entry.shard, entry.tokenProblem)] : []));
  if (requireOnline) {
    for (const entry of status) if (!entry.error && entry.onlineManagers === 0) problems.push(`shard ${entry.shard}: no online runner manager`);
    problems.push(...tokenProblems);
  }
  const cleaned = status.map((entry) => (entry.error ? { ...entry, error: redact(entry.error) } : entry));
  const exitCode = problems.length > 0 ? 1 : 0;
  return { ...session.head, ok: exitCode === 0, exitCode, shards: [], status: cleaned, problems, notices: requireOnline ? [] : tokenProblems };
}

type ChangingMode = Exclude<OnboardMode, { kind: "status" }>;

/** Changing runs hold the cell's lock: two at once would each create the shard's runner. Dry runs take none. */
async function withCellLock(session: Session, mode: ChangingMode, run: (notices: string[]) => Promise<OnboardResult>): Promise<OnboardResult> {
  const { model, log, options } = session;
  const notices: string[] = [];
  let lock: HeldCellLock | undefined;
  if (!mode.dryRun) {
    lock = await acquireCellLock({
      stateDir: options.stateDir ?? stateDirectory(session.env, session.workspace),
      cell: model.cell.id,
      command: mode.kind === "reconcile" ? "onboard" : `onboard --${mode.kind}`,
      waitMs: mode.lockWaitMs,
      staleMs: options.lockStaleMs,
      onWait: (holder) => log(`${describeHolder(holder)} on cell ${model.cell.id}; waiting up to ${formatMs(mode.lockWaitMs)}`),
      onTakeover: (previous) => log(`warning: ${describeTakeover(model.cell.id, previous)}`),
      onCompromised: (error) => {
        // In the report's notices (stdout or --json): not logged as well, so it is printed once.
        notices.push(`the onboard lock of cell ${model.cell.id} was lost during the run (${error.message}); another run may have started`);
      },
    });
  }
  try {
    return await run(notices);
  } finally {
    await lock?.release();
  }
}

async function onboardPrune(session: Session, mode: Extract<OnboardMode, { kind: "prune" }>, notices: readonly string[]): Promise<OnboardResult> {
  const { model, client, census, store, readSecrets, rememberSecret, clock, log, concurrency } = session;
  const prune = await pruneCell({ model, client, census, store, dryRun: mode.dryRun, readSecrets, rememberSecret, staleAfterMs: mode.staleAfterMs, searchUntagged: mode.searchUntagged, now: clock.now, concurrency, log });
  const cleaned: PruneReport = JSON.parse(session.redact(JSON.stringify(prune))) as PruneReport;
  const exitCode = cleaned.problems.length > 0 ? 1 : 0;
  return { ...session.head, ok: exitCode === 0, exitCode, shards: [], prune: cleaned, problems: cleaned.problems, notices: [...cleaned.notices, ...notices] };
}

async function onboardShards(session: Session, mode: Extract<OnboardMode, { kind: "reconcile" | "rotate" | "remove" }>, notices: readonly string[]): Promise<OnboardResult> {
  // A store that cannot keep the tokens fails the run before any runner is created.
  if (!mode.dryRun && mode.kind !== "remove") await session.store.checkWritable?.();
  const results = await reconcileCell({ ...session, dryRun: mode.dryRun }, session.shards, mode.kind);
  const outcomes = results.map(({ outcome }) => (outcome.failure ? redactOutcome(outcome, outcome.failure, session.redact) : outcome));
  const problems = shardProblems(outcomes);
  const exitCode = problems.length > 0 ? 1 : 0;
  const plan = mode.dryRun ? results.flatMap((result) => (result.plan ? [result.plan] : [])) : undefined;
  // What the managers do with the new token depends on their runner version: say it with every rotation.
  const rotation =
    mode.kind === "rotate"
      ? session.shards.map((shard) => `shard ${shard.name}: token rotation ${rotationText({ runnerVersion: shard.managers.runner_version, tokenRotation: rotationMode(shard.managers.runner_version) })}`)
      : [];
  return { ...session.head, ok: exitCode === 0, exitCode, shards: outcomes, ...(plan ? { plan } : {}), problems, notices: [...notices, ...rotation] };
}

/** Failure messages may quote what GitLab said; tokens seen in this run are scrubbed from them. */
function redactOutcome(outcome: ShardOutcome, failure: ShardFailure, redact: (text: string) => string): ShardOutcome {
  const message = redact(failure.message);
  return { ...outcome, failure: { ...failure, message }, error: message };
}

/** Problems name their shard once. */
function withShard(shard: string, message: string): string {
  return message.includes(`shard ${shard}`) ? message : `shard ${shard}: ${message}`;
}

export interface OnboardCellsOptions extends Omit<OnboardOptions, "model" | "runnerModel" | "modelFile" | "traffic" | "log"> {
  /** The cells, loaded, in the order the report lists them. */
  readonly runnerModels: readonly RunnerModel[];
  /** The files they were loaded from, in the same order, for the report. */
  readonly modelFiles?: readonly string[];
  /** Cells onboarded at once (a number, or its text from the command line). @default 4 */
  readonly cellConcurrency?: number | string;
  /** One cell's progress, as a block of lines, when the cell is done. @default stderr */
  readonly log?: (lines: readonly string[]) => void;
  /** The pacing, burst included (the bench scales GitLab's window down). @default - `rateLimit`, with its default burst */
  readonly pace?: PaceSettings;
}

export async function runOnboardCells(options: OnboardCellsOptions): Promise<OnboardCellsResult> {
  const { runnerModels, modelFiles, cellConcurrency, log, pace, ...each } = options;
  const env = options.env ?? process.env;
  // Every flag and every shard is checked before any cell starts: a bad value fails the run (exit 2) with nothing done.
  const { parseOnboardOptions, parseCellConcurrency } = require("./onboard-options") as typeof OnboardOptionsModule;
  const { mode } = parseOnboardOptions(each, env);
  if (runnerModels.length > 1 && "shards" in mode && mode.shards.length > 0) {
    throw new UserInputError("--shard goes with one --model: shard names are the cell's own");
  }
  for (const model of runnerModels) for (const shard of selectShards(model, "shards" in mode ? mode.shards : [])) desiredRunner(model, shard);
  const tokenless = needsToken(mode) ? runnerModels.filter((model) => !env[model.gitlab.token_env]) : [];
  if (tokenless.length > 0) {
    const missing = tokenless.map((model) => `$${model.gitlab.token_env} (cell ${model.cell.id})`);
    throw new UserInputError(`${[...new Set(missing)].join(", ")} not set: onboard needs a GitLab token with the api scope for every cell, in the variable its model names in gitlab.token_env`);
  }
  const limit = pLimit(cellConcurrency === undefined ? DEFAULT_CELL_CONCURRENCY : parseCellConcurrency(cellConcurrency));
  const traffic = new GitLabTraffic(
    pace ?? { requestsPerMinute: requestsPerMinute(options.rateLimit ?? env[RATE_LIMIT_ENV]) },
    { now: options.now ?? SYSTEM_CLOCK.now, sleep: options.sleep ?? SYSTEM_CLOCK.sleep },
  );
  const print = log ?? ((lines: readonly string[]) => process.stderr.write(lines.map((line) => `${line}\n`).join("")));
  const cells = await Promise.all(
    runnerModels.map((model, index) =>
      limit(async () => {
        const lines: string[] = [];
        try {
          return await runOnboard({ ...each, runnerModel: model, modelFile: modelFiles?.[index], traffic, log: (line) => lines.push(line) });
        } catch (error) {
          // A cell that fails as a whole (its lock held elsewhere, its store unwritable) fails alone: the others' reports stand.
          if (!(error instanceof OperationalError)) throw error;
          return cellFailure(model, modelFiles?.[index], mode, error, env[model.gitlab.token_env]);
        } finally {
          print([`== cell ${model.cell.id}`, ...lines]);
        }
      }),
    ),
  );
  const exitCode = cells.some((cell) => cell.exitCode !== 0) ? 1 : 0;
  // The traffic's own count: waits of cells sharing a pacer overlap, and count once.
  return { ok: exitCode === 0, exitCode, cells, requests: traffic.tally() };
}

function cellFailure(model: RunnerModel, file: string | undefined, mode: OnboardMode, error: OperationalError, adminToken: string | undefined): OnboardResult {
  const message = redactSecrets(adminToken ? redactValue(error.message, adminToken) : error.message);
  const head = { mode: mode.kind, dryRun: mode.dryRun, model: file ?? "(given)", cell: model.cell.id, gitlabUrl: model.gitlab.url };
  return { ...head, ok: false, exitCode: 1, shards: [], problems: [message], notices: [] };
}

/** The model files the command line names: --all for every model in the directory, else each --model. */
function modelFilesOf(models: readonly string[], all: boolean, dir: string | undefined): string[] {
  if (all && models.length > 0) throw new UserInputError("--all onboards every model in the models directory: leave out --model, or leave out --all");
  if (all) {
    const files = listModelFiles(modelsDir(dir));
    if (files.length === 0) throw new UserInputError(`--all: no model in ${modelsDir(dir)} (files named <cell>.yaml)`);
    return files;
  }
  if (models.length === 0) throw new UserInputError("--model is required: a model file, or a name in the models directory (cell-1); repeat it, or use --all, for several cells");
  return models.map((name) => resolveModelArgument(name, modelsDir(dir)));
}

function loadModel(options: OnboardOptions): { model: RunnerModel; file: string } {
  if (options.runnerModel) return { model: options.runnerModel, file: options.modelFile ?? "(given)" };
  if (!options.model) throw new UserInputError("--model is required: a model file, or a name in the models directory (cell-1)");
  const file = resolveModelArgument(options.model, modelsDir(options.modelsDir));
  return { model: loadModelFile(file, { workspace: options.workspace ?? workspaceDir(options.modelsDir) }).model, file };
}

function selectShards(model: RunnerModel, names: readonly string[]): Shard[] {
  if (names.length === 0) return model.shards;
  const known = new Set(model.shards.map((shard) => shard.name));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new UserInputError(`--shard ${unknown.join(", ")}: no such shard in cell ${model.cell.id}; expected one of ${[...known].join(", ")}`);
  }
  return model.shards.filter((shard) => names.includes(shard.name));
}

export function onboardCommand(): Command {
  return cliCommand("onboard")
    .description("Create or update the model's runners in GitLab and keep their tokens in the model's secret store.")
    .addOption(modelsOption())
    .option("--all", "every model in the models directory")
    .addOption(modelsDirOption())
    .option("--shard <name>", "only this shard (repeatable; with one --model)", collect, [])
    .option("--dry-run", "print the plan: what would change, step by step; write nothing to GitLab or the secret store")
    .option("--rotate", "reset the shards' runner tokens and store the new ones")
    .option("--remove", "delete the shards' runners from GitLab and their secrets")
    .option("--status", "show each shard's runner, its managers, and whether the stored token still works")
    .option("--require-online", "with --status: exit 1 unless every shard has an online manager and a working stored token")
    .option("--prune", "delete runners that carry this cell's marker but belong to no shard of the model, and stale runner managers, with their secrets (with --dry-run: list them)")
    .option("--search-untagged", "with --prune: also read every runner without the cell's tag, to find runners of shards removed before onboard tagged them (one request per runner on the instance)")
    .addOption(withDefault(new Option("--stale-after <duration>", 'with --prune: a manager not seen for this long is stale, e.g. "7d", "36h" (at least 2h)'), DEFAULT_STALE_AFTER))
    .addOption(withDefault(new Option("--concurrency <n>", "shards handled at once, per cell"), String(DEFAULT_CONCURRENCY)))
    .addOption(withDefault(new Option("--cell-concurrency <n>", "cells handled at once, with several --model or --all"), String(DEFAULT_CELL_CONCURRENCY)))
    .addOption(withDefault(new Option("--retry-timeout <duration>", "how long one GitLab call may keep retrying, e.g. 2m"), `$${RETRY_TIMEOUT_ENV} or 2m`))
    .addOption(withDefault(new Option("--rate-limit <requests-per-minute>", "requests a minute to each GitLab after a burst of up to 600, shared by its cells (0: no limit; a 429 and GitLab's RateLimit-Remaining are honoured either way)"), `$${RATE_LIMIT_ENV} or 100`))
    .addOption(withDefault(new Option("--lock-wait <duration>", "how long to wait while another onboard of the cell holds its lock, e.g. 5m"), `$${LOCK_WAIT_ENV} or 2m`))
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nEach cell's GitLab token is read from the variable named by gitlab.token_env in its model (default: GITLAB_TOKEN).\n" +
        "With several cells, each cell's progress is printed as one block when it is done, and the report lists the cells in the order given.\n" +
        "Exit codes: 0 ok, 1 GitLab or secret store failure in any cell (or no online manager with --require-online), 2 invalid model or usage.",
    )
    .action(async (flags: Record<string, unknown>) => {
      // Handed over as given: runOnboard parses them (./onboard-options.ts), as it does for every caller.
      const { model, all, modelsDir: dir, shard, json, cellConcurrency, ...rest } = flags;
      const files = modelFilesOf(model as string[], Boolean(all), dir as string | undefined);
      const workspace = workspaceDir(dir as string | undefined);
      if (files.length === 1 && !all) {
        const result = await runOnboard({ ...(rest as OnboardFlags), model: files[0], workspace, shards: shard as string[] });
        process.stdout.write(json ? `${redactSecrets(JSON.stringify(result, null, 2))}\n` : formatOnboardReport(result));
        process.exitCode = result.exitCode;
        return;
      }
      // Every model is loaded (and refused, exit 2) before any cell starts.
      const runnerModels = files.map((file) => loadModelFile(file, { workspace }).model);
      const result = await runOnboardCells({ ...(rest as OnboardFlags), runnerModels, modelFiles: files, workspace, shards: shard as string[], cellConcurrency: cellConcurrency as string | undefined });
      process.stdout.write(json ? `${redactSecrets(JSON.stringify(result, null, 2))}\n` : formatOnboardCellsReport(result));
      process.exitCode = result.exitCode;
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
