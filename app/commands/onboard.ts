/**
 * `onboard`: reconcile a model's runners with GitLab and keep their tokens in the
 * model's secret store (--rotate, --remove, --dry-run, --status). The rules of
 * reconciliation live in lib/gitlab/reconcile.ts. Progress goes to stderr, results to stdout.
 */
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, singleModelOption, withDefault } from "../cli/options";
import pLimit from "p-limit";
import { UserInputError } from "../../lib/errors";
import { createGitLabClient } from "../../lib/gitlab/client";
import { reconcileShard, type ReconcileMode, type ShardOutcome } from "../../lib/gitlab/reconcile";
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK, formatMs, type RetryClock, type RetryPolicy } from "../../lib/gitlab/retry";
import { desiredRunner } from "../../lib/gitlab/runner-spec";
import { DEFAULT_STALE_AFTER, formatPruneReport, parseStaleAfter, pruneCell, type PruneReport } from "../../lib/gitlab/prune";
import { collectShardStatus, formatStatusTable, type ShardStatus } from "../../lib/gitlab/status";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { loadModelFile } from "../../lib/model/load";
import { modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import type { RunnerModel, Shard } from "../../lib/model/schema";
import { createSecretStore } from "../../lib/secrets/create-store";
import { acquireCellLock, DEFAULT_LOCK_WAIT_MS, describeHolder, stateDirectory } from "../../lib/state/cell-lock";
import { redactSecrets, redactValue } from "../../lib/redact";
import type { SecretStore } from "../../lib/secrets/store";

export const DEFAULT_CONCURRENCY = 4;
export const RETRY_TIMEOUT_ENV = "ONBOARD_RETRY_TIMEOUT";
export const LOCK_WAIT_ENV = "ONBOARD_LOCK_WAIT";

export interface OnboardOptions {
  /** --model: a path, or a name in the models directory. */
  readonly model?: string;
  /** A model already loaded (tests, bin/provision); wins over `model`. */
  readonly runnerModel?: RunnerModel;
  readonly modelsDir?: string;
  readonly dryRun?: boolean;
  readonly rotate?: boolean;
  readonly remove?: boolean;
  readonly status?: boolean;
  /** Delete runners of removed shards and stale managers (with dryRun: list them). */
  readonly prune?: boolean;
  /** With prune: managers not seen for this long are stale ("7d", "36h"). @default 1d */
  readonly staleAfter?: string;
  /** With status: exit 1 unless every shard has an online manager. */
  readonly requireOnline?: boolean;
  /** Limit to these shard names. */
  readonly shards?: readonly string[];
  /** Shards handled at once. @default 4 */
  readonly concurrency?: number;
  /** How long one GitLab call may keep retrying: a Go duration ("2m") or milliseconds. @default $ONBOARD_RETRY_TIMEOUT or 2m */
  readonly retryTimeout?: string | number;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** @default the store the model names */
  readonly secretStore?: SecretStore;
  /** Resolves a relative secrets.local_dir. @default process.cwd() */
  readonly secretsBaseDir?: string;
  /** Injected waiting and time (tests). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Progress lines (already redacted). @default stderr */
  readonly log?: (line: string) => void;
  /** Told every secret value the run sees (runner tokens), so a caller can scrub them from other output. */
  readonly onSecret?: (value: string) => void;
  /** Where the per-cell lock lives (<stateDir>/locks). @default $RUNNER_FLEET_STATE_DIR or ./.state */
  readonly stateDir?: string;
  /** How long to wait for another run's lock on the cell: a Go duration ("2m") or milliseconds. @default $ONBOARD_LOCK_WAIT or 2m */
  readonly lockWait?: string | number;
  /** A lock not refreshed for this long is taken over (its process died). @default 10s */
  readonly lockStaleMs?: number;
}

export type OnboardMode = ReconcileMode | "status" | "prune";

export interface OnboardResult {
  readonly ok: boolean;
  readonly exitCode: 0 | 1;
  readonly mode: OnboardMode;
  readonly dryRun: boolean;
  readonly model: string;
  readonly cell: string;
  readonly gitlabUrl: string;
  /** Per shard, for reconcile/rotate/remove. */
  readonly shards: readonly ShardOutcome[];
  /** Per shard, for --status. */
  readonly status?: readonly ShardStatus[];
  /** For --prune: what was (or would be) deleted. */
  readonly prune?: PruneReport;
  /** Why the run failed, one line each. */
  readonly problems: readonly string[];
  readonly notices: readonly string[];
}

export async function runOnboard(options: OnboardOptions): Promise<OnboardResult> {
  const env = options.env ?? process.env;
  const { model, file } = loadModel(options);
  const mode = chooseMode(options);
  const staleAfterMs = mode === "prune" ? parseStaleAfter(options.staleAfter ?? DEFAULT_STALE_AFTER) : 0;
  const shards = selectShards(model, options.shards ?? []);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new UserInputError(`--concurrency must be a whole number from 1 to 64, received ${String(concurrency)}`);
  }
  // Everything GitLab would refuse is refused here first, before any call (exit 2).
  for (const shard of shards) desiredRunner(model, shard);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, budgetMs: retryBudgetMs(options.retryTimeout ?? env[RETRY_TIMEOUT_ENV]) };
  const clock: RetryClock = {
    now: options.now ?? SYSTEM_CLOCK.now,
    sleep: options.sleep ?? SYSTEM_CLOCK.sleep,
    random: options.random ?? SYSTEM_CLOCK.random,
  };
  const dryRun = Boolean(options.dryRun);
  const tokenEnv = model.gitlab.token_env;
  const adminToken = env[tokenEnv];
  const secrets = new Set<string>(adminToken ? [adminToken] : []);
  const redact = (text: string) => [...secrets].reduce((out, secret) => redactValue(out, secret), redactSecrets(text));
  const write = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (line: string) => write(redact(line));
  const store = options.secretStore ?? createSecretStore(model, { baseDir: options.secretsBaseDir, env });
  const head = { mode, dryRun, model: file, cell: model.cell.id, gitlabUrl: model.gitlab.url };

  if (!adminToken) {
    if (mode !== "status" && mode !== "prune" && dryRun) {
      // No credentials: say what onboarding would look at, and touch nothing.
      const notice = `$${tokenEnv} is not set: GitLab was not queried; every shard is reconciled when onboard runs with a token`;
      log(`warning: ${notice}`);
      const shardsOut = shards.map(
        (shard): ShardOutcome => ({
          shard: shard.name,
          action: "unchecked",
          dryRun,
          ok: true,
          changedFields: [],
          changes: [],
          reason: "GitLab not queried",
          secret: store.describe(shard),
          tokenStored: false,
          notes: [],
        }),
      );
      return { ...head, ok: true, exitCode: 0, shards: shardsOut, problems: [], notices: [notice] };
    }
    throw new UserInputError(
      `$${tokenEnv} is not set: onboard needs a GitLab token with the api scope (an administrator's for instance runners) in the variable the model names in gitlab.token_env`,
    );
  }

  const client = createGitLabClient({
    url: model.gitlab.url,
    token: adminToken,
    tokenEnv,
    policy,
    clock,
    knownSecrets: () => [...secrets],
    onRetry: (event) => log(`gitlab: ${event.reason}; retrying in ${formatMs(event.delayMs)}`),
  });
  const readSecrets = !(dryRun && store.needsCredentials);
  const rememberSecret = (token: string) => {
    if (!token) return;
    secrets.add(token);
    options.onSecret?.(token);
  };
  const limit = pLimit(concurrency);
  // Once GitLab is out of reach, shards not yet started are not attempted (the run stays bounded in time).
  let unreachable: string | undefined;

  if (mode === "status") {
    const status = await Promise.all(
      shards.map((shard) => limit(() => collectShardStatus({ model, client, store, readSecrets, rememberSecret, verifyToken: true }, shard))),
    );
    const problems = status.filter((entry) => entry.error).map((entry) => withShard(entry.shard, redact(entry.error!)));
    // A token GitLab refuses is reported always, and fails the run under --require-online (its managers cannot register).
    const tokenProblems = status.filter((entry) => entry.tokenProblem).map((entry) => withShard(entry.shard, entry.tokenProblem!));
    if (options.requireOnline) {
      for (const entry of status) if (!entry.error && entry.onlineManagers === 0) problems.push(`shard ${entry.shard}: no online runner manager`);
      problems.push(...tokenProblems);
    }
    const cleaned = status.map((entry) => (entry.error ? { ...entry, error: redact(entry.error) } : entry));
    const exitCode = problems.length > 0 ? 1 : 0;
    return { ...head, ok: exitCode === 0, exitCode, shards: [], status: cleaned, problems, notices: options.requireOnline ? [] : tokenProblems };
  }

  // Changing runs hold the cell's lock: two at once would each create the shard's runner.
  const lockWaitMs = durationMs(options.lockWait ?? env[LOCK_WAIT_ENV], DEFAULT_LOCK_WAIT_MS, "--lock-wait", LOCK_WAIT_ENV);
  const notices: string[] = [];
  const lock = dryRun
    ? undefined
    : await acquireCellLock({
        stateDir: options.stateDir ?? stateDirectory(env),
        cell: model.cell.id,
        command: mode === "reconcile" ? "onboard" : `onboard --${mode}`,
        waitMs: lockWaitMs,
        staleMs: options.lockStaleMs,
        onWait: (holder) => log(`${describeHolder(holder)} on cell ${model.cell.id}; waiting up to ${formatMs(lockWaitMs)}`),
        onCompromised: (error) => {
          const notice = `the onboard lock of cell ${model.cell.id} was lost during the run (${error.message}); another run may have started`;
          log(`warning: ${notice}`);
          notices.push(notice);
        },
      });
  try {
    // A store that cannot keep the tokens fails the run before any runner is created.
    if (!dryRun && (mode === "reconcile" || mode === "rotate")) await store.checkWritable?.();
    if (mode === "prune") {
      const prune = await pruneCell({ model, client, store, dryRun, readSecrets, rememberSecret, staleAfterMs, now: clock.now, concurrency, log });
      const cleaned: PruneReport = JSON.parse(redact(JSON.stringify(prune))) as PruneReport;
      const exitCode = cleaned.problems.length > 0 ? 1 : 0;
      const allNotices = [...cleaned.notices, ...notices];
      return { ...head, ok: exitCode === 0, exitCode, shards: [], prune: cleaned, problems: cleaned.problems, notices: allNotices };
    }
    const reconcileMode: ReconcileMode = mode;
    const ctx = { model, client, store, dryRun, readSecrets, policy, clock, log, rememberSecret };
    const outcomes = await Promise.all(
      shards.map((shard) =>
        limit(async (): Promise<ShardOutcome> => {
          if (unreachable) return skippedOutcome(shard, dryRun, store, unreachable);
          const outcome = await reconcileShard(ctx, shard, reconcileMode);
          if (outcome.error && /cannot reach GitLab|kept failing/.test(outcome.error)) unreachable ??= `not attempted: GitLab is out of reach (see shard ${shard.name})`;
          return outcome;
        }),
      ),
    );
    const cleaned = outcomes.map((outcome) => (outcome.error ? { ...outcome, error: redact(outcome.error) } : outcome));
    const problems = cleaned.filter((outcome) => outcome.error).map((outcome) => withShard(outcome.shard, outcome.error!));
    const exitCode = problems.length > 0 ? 1 : 0;
    return { ...head, ok: exitCode === 0, exitCode, shards: cleaned, problems, notices };
  } finally {
    await lock?.release();
  }
}

/** Problems name their shard once. */
function withShard(shard: string, message: string): string {
  return message.includes(`shard ${shard}`) ? message : `shard ${shard}: ${message}`;
}

function skippedOutcome(shard: Shard, dryRun: boolean, store: SecretStore, why: string): ShardOutcome {
  return { shard: shard.name, action: "unchecked", dryRun, ok: false, changedFields: [], changes: [], reason: why, secret: store.describe(shard), tokenStored: false, notes: [], error: why };
}

function loadModel(options: OnboardOptions): { model: RunnerModel; file: string } {
  if (options.runnerModel) return { model: options.runnerModel, file: "(given)" };
  if (!options.model) throw new UserInputError("--model is required: a model file, or a name in the models directory (cell-1)");
  const file = resolveModelArgument(options.model, modelsDir(options.modelsDir));
  return { model: loadModelFile(file).model, file };
}

function chooseMode(options: OnboardOptions): OnboardMode {
  const chosen = (["rotate", "remove", "status", "prune"] as const).filter((flag) => options[flag]);
  if (chosen.length > 1) throw new UserInputError(`choose one of --rotate, --remove, --status and --prune, received ${chosen.map((flag) => `--${flag}`).join(" and ")}`);
  if (options.requireOnline && !options.status) throw new UserInputError("--require-online goes with --status");
  if (options.staleAfter !== undefined && !options.prune) throw new UserInputError("--stale-after goes with --prune");
  if (options.prune && options.shards && options.shards.length > 0) throw new UserInputError("--prune works on the whole cell: leave out --shard");
  return chosen[0] ?? "reconcile";
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

/** --retry-timeout / $ONBOARD_RETRY_TIMEOUT: a Go duration ("90s", "2m") or a number of milliseconds. */
export function retryBudgetMs(value: string | number | undefined): number {
  return durationMs(value, DEFAULT_RETRY_POLICY.budgetMs, "--retry-timeout", RETRY_TIMEOUT_ENV);
}

/** A flag or variable holding a Go duration ("90s", "2m") or a number of milliseconds. */
function durationMs(value: string | number | undefined, fallback: number, flag: string, variable: string): number {
  if (value === undefined || value === "") return fallback;
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  const seconds = typeof value === "string" ? parseGoDurationSeconds(value.trim()) : undefined;
  if (seconds === undefined) throw new UserInputError(`${flag} (or $${variable}) must be a Go duration such as "2m" or "90s", received ${JSON.stringify(value)}`);
  return seconds * 1000;
}

const ACTION_WORDS: Record<ShardOutcome["action"], [done: string, planned: string]> = {
  create: ["created", "would create"],
  update: ["updated", "would update"],
  adopt: ["recovered", "would recover"],
  rotate: ["rotated", "would rotate"],
  delete: ["deleted", "would delete"],
  none: ["unchanged", "unchanged"],
  unchecked: ["not checked", "not checked"],
};

export function formatOnboardReport(result: OnboardResult): string {
  const lines: string[] = [`cell ${result.cell} on ${result.gitlabUrl}${result.dryRun ? " (dry run: nothing was changed)" : ""}`];
  if (result.prune) {
    lines.push(...formatPruneReport(result.prune));
  } else if (result.status) {
    lines.push(formatStatusTable(result.status).trimEnd());
  } else {
    const width = Math.max(...result.shards.map((outcome) => outcome.shard.length), 5);
    for (const outcome of result.shards) {
      const [done, planned] = ACTION_WORDS[outcome.action];
      const verb = outcome.error ? `failed (${planned.replace("would ", "")})` : outcome.dryRun ? planned : done;
      const runner = outcome.runnerId === undefined ? "" : ` runner #${outcome.runnerId}`;
      lines.push(`  ${outcome.shard.padEnd(width)}  ${verb}${runner}: ${outcome.reason}`);
      for (const change of outcome.changes) lines.push(`      ${change}`);
      if (outcome.tokenStored) lines.push(`      token stored in ${outcome.secret}`);
      for (const note of outcome.notes) lines.push(`      note: ${note}`);
      if (outcome.error) lines.push(`      error: ${outcome.error}`);
    }
  }
  for (const notice of result.notices) lines.push(`warning: ${notice}`);
  for (const problem of result.problems) lines.push(`error: ${problem}`);
  return `${redactSecrets(lines.join("\n"))}\n`;
}

export function onboardCommand(): Command {
  return cliCommand("onboard")
    .description("Create or update the model's runners in GitLab and keep their tokens in the model's secret store.")
    .addOption(singleModelOption())
    .addOption(modelsDirOption())
    .option("--shard <name>", "only this shard (repeatable)", collect, [])
    .option("--dry-run", "print what would change; write nothing to GitLab or the secret store")
    .option("--rotate", "reset the shards' runner tokens and store the new ones")
    .option("--remove", "delete the shards' runners from GitLab and their secrets")
    .option("--status", "show each shard's runner, its managers, and whether the stored token still works")
    .option("--require-online", "with --status: exit 1 unless every shard has an online manager and a working stored token")
    .option("--prune", "delete runners that carry this cell's marker but belong to no shard of the model, and stale runner managers, with their secrets (with --dry-run: list them)")
    .addOption(withDefault(new Option("--stale-after <duration>", 'with --prune: a manager not seen for this long is stale, e.g. "7d", "36h" (at least 2h)'), DEFAULT_STALE_AFTER))
    .addOption(withDefault(new Option("--concurrency <n>", "shards handled at once"), String(DEFAULT_CONCURRENCY)))
    .addOption(withDefault(new Option("--retry-timeout <duration>", "how long one GitLab call may keep retrying, e.g. 2m"), `$${RETRY_TIMEOUT_ENV} or 2m`))
    .addOption(withDefault(new Option("--lock-wait <duration>", "how long to wait while another onboard of the cell holds its lock, e.g. 5m"), `$${LOCK_WAIT_ENV} or 2m`))
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nThe GitLab token is read from the variable named by gitlab.token_env in the model (default: GITLAB_TOKEN).\nExit codes: 0 ok, 1 GitLab or secret store failure (or no online manager with --require-online), 2 invalid model or usage.",
    )
    .action(async (flags: Record<string, unknown>) => {
      const concurrency = flags.concurrency === undefined ? undefined : Number(flags.concurrency);
      const result = await runOnboard({
        model: flags.model as string,
        modelsDir: flags.modelsDir as string | undefined,
        shards: flags.shard as string[],
        dryRun: Boolean(flags.dryRun),
        rotate: Boolean(flags.rotate),
        remove: Boolean(flags.remove),
        status: Boolean(flags.status),
        prune: Boolean(flags.prune),
        staleAfter: flags.staleAfter as string | undefined,
        requireOnline: Boolean(flags.requireOnline),
        concurrency,
        retryTimeout: flags.retryTimeout as string | undefined,
        lockWait: flags.lockWait as string | undefined,
      });
      process.stdout.write(flags.json ? `${redactSecrets(JSON.stringify(result, null, 2))}\n` : formatOnboardReport(result));
      process.exitCode = result.exitCode;
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
