/**
 * `status`: the whole fleet in one view. For every cell in the models directory (or
 * the ones named with --model), every shard: its runner, its managers (online or not,
 * last contact, version), whether the stored token still works, and the jobs it runs
 * against what the shard can run. Exit 1 when anything needs attention, so a
 * schedule can page on it. Progress and problems go to stderr, the report to stdout.
 *
 * GitLab reports running jobs per runner, not worker instances: those live in the
 * runner's own Prometheus metrics (fleeting), which are not reachable from here. The
 * report says so instead of guessing.
 */
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, modelsOption, withDefault } from "../cli/options";
import type * as StatusOptionsModule from "./status-options";
import pLimit from "p-limit";
import { OperationalError } from "../../lib/process/errors";
import { gitlabClientModule } from "../../lib/gitlab/load-client";
import { modelConnection } from "../../lib/gitlab/wire/model-connection";
import { isOutOfReach } from "../../lib/gitlab/errors";
import { describeTally, type PaceSettings, type RequestTally } from "../../lib/gitlab/request-pacer";
import { GitLabTraffic } from "../../lib/gitlab/traffic";
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK, formatMs } from "../../lib/gitlab/retry";
import { RunnerCensus } from "../../lib/gitlab/runner-census";
import { collectShardStatus, type ManagerStatus, type ShardStatus } from "../../lib/gitlab/status";
import type { TokenCheck } from "../../lib/gitlab/verify-token";
import { relativeTime } from "../../lib/time/relative-time";
import { recordedToolkitVersion, type RecordedVersion } from "../../lib/terraform/recorded-version";
import { readAppliedVersion } from "../../lib/terraform/state-version";
import { detectEngine } from "../../lib/terraform/detect-engine";
import { engineEnvironment, GITLAB_CREDENTIAL_NAMES } from "../../lib/terraform/engine-env";
import { ENGINE_NAMES, type EngineName } from "../../lib/terraform/toolchain-check";
import { shardHealth } from "../../lib/fleet/shard-health";
import { loadModelFile } from "../../lib/model/load";
import { listModelFiles, modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import { workspaceDir } from "../../lib/files/workspace";
import type { RunnerModel } from "../../lib/model/schema";
import { shardCapacity } from "../../lib/review/capacity";
import { createSecretStore } from "../../lib/secrets/create-store";
import { redactSecrets, redactValue } from "../../lib/text/redact";
import type { SecretStore } from "../../lib/secrets/store";
import { DEFAULT_CELL_CONCURRENCY, DEFAULT_CONCURRENCY, RATE_LIMIT_ENV, RETRY_TIMEOUT_ENV, requestsPerMinute, retryBudgetMs } from "../cli/gitlab-settings";

export const WORKERS_NOT_REPORTED = "not reported by GitLab (worker instances are in the runner's Prometheus metrics, not reachable from here)";

export interface StatusOptions {
  /** --model (repeatable): paths or names in the models directory. @default every model in the directory */
  readonly models?: readonly string[];
  readonly modelsDir?: string;
  /** Models already loaded (tests, the bench), with the name their reports give; win over `models`. */
  readonly runnerModels?: ReadonlyArray<{ readonly file: string; readonly model: RunnerModel }>;
  /** Check each stored token with GitLab (POST /runners/verify). @default true */
  readonly verifyTokens?: boolean;
  /** How long one GitLab call may keep retrying: a Go duration or milliseconds. @default $ONBOARD_RETRY_TIMEOUT or 2m */
  readonly retryTimeout?: string | number;
  /** Requests a minute to each GitLab (per token), shared by the cells on it; 0: unpaced. @default $GITLAB_REQUESTS_PER_MINUTE or 100 */
  readonly rateLimit?: string | number;
  /** The pacing, burst included (the bench scales GitLab's window down); wins over rateLimit. @default - `rateLimit`, with its default burst */
  readonly pace?: PaceSettings;
  /** Cells checked at once. @default 4 */
  readonly cellConcurrency?: number;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The secret store of a model. @default the store the model names */
  readonly secretStore?: (model: RunnerModel) => SecretStore;
  /** Resolves a relative secrets.local_dir. @default - the workspace (lib/files/workspace.ts) */
  readonly secretsBaseDir?: string;
  /** Resolves a relative local state path (the version that applied each cell). @default - the workspace */
  readonly workDir?: string;
  /**
   * Read the applied version from remote states (gcs, s3, http) too: the engine inits a workspace of the
   * cell's backend alone and reads its outputs, with the backend's credentials. @default false: local states only
   */
  readonly readState?: boolean;
  /** The engine readState runs. @default the first supported of terraform and tofu on PATH */
  readonly engine?: EngineName;
  /** Path of the engine's executable, for stand-ins. @default - its name on PATH */
  readonly engineExecutable?: string;
  /** @default Date.now */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Progress lines (already redacted). @default stderr */
  readonly log?: (line: string) => void;
}

export interface ManagerReport extends ManagerStatus {
  /** "3m ago", "never". */
  readonly lastContact: string;
}

export type TokenState = "valid" | "refused" | "other-runner" | "missing" | "not-checked";

export interface ShardReport {
  readonly shard: string;
  /** False when GitLab could not be asked about the shard: its runner, managers and token are unknown (not absent). */
  readonly checked: boolean;
  readonly runnerId?: number;
  readonly runnerStatus?: string;
  readonly paused?: boolean;
  readonly managers: readonly ManagerReport[];
  readonly expectedManagers: number;
  /** Null when the shard was not checked. */
  readonly onlineManagers: number | null;
  readonly modelRunnerVersion: string;
  readonly runnerVersions: readonly string[];
  readonly token: TokenState;
  readonly tokenCheck?: TokenCheck;
  readonly jobs: { readonly running: number | null; readonly max: number };
  readonly workers: { readonly inUse: null; readonly max: number; readonly inUseNote: string };
  readonly attention: readonly string[];
  readonly notes: readonly string[];
}

export interface CellReport {
  readonly cell: string;
  readonly model: string;
  readonly gitlabUrl: string;
  /** The runner-fleet version that last applied the cell (its stack's runner_fleet_version output): from a local state, or with readState from any. */
  readonly provisionedBy: RecordedVersion;
  /** False when GitLab could not be asked at all (no token, or nothing answered at gitlab.url). */
  readonly checked: boolean;
  readonly shards: readonly ShardReport[];
  readonly attention: readonly string[];
}

export interface StatusReport {
  readonly ok: boolean;
  readonly exitCode: 0 | 1;
  readonly checkedAt: string;
  readonly cells: readonly CellReport[];
  /** Every problem, prefixed with its cell and shard. */
  readonly attention: readonly string[];
  /** What the run asked GitLab, over every cell. */
  readonly requests: RequestTally;
}

export async function runStatus(options: StatusOptions = {}): Promise<StatusReport> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  // Every model is loaded (and refused, exit 2) before GitLab is asked anything.
  const models = options.runnerModels ?? loadModels(options);
  // The engine is found (or its absence reported, exit 1) before anything is asked too.
  const engine = options.readState && models.some(({ model }) => model.state.backend !== "local") ? detectEngine(options.engine, engineEnvironment(env, { withhold: GITLAB_CREDENTIAL_NAMES })).name : undefined;
  const budgetMs = retryBudgetMs(options.retryTimeout ?? env[RETRY_TIMEOUT_ENV]);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sleep = options.sleep ?? SYSTEM_CLOCK.sleep;
  // One pacer per GitLab and token, shared by the cells checked at once: the limit is the user's, not the cell's.
  const traffic = new GitLabTraffic(options.pace ?? { requestsPerMinute: requestsPerMinute(options.rateLimit ?? env[RATE_LIMIT_ENV]) }, { now, sleep });

  // Cells at once, each reported whole and in the models' order: progress lines name their cell.
  const limit = pLimit(options.cellConcurrency ?? DEFAULT_CELL_CONCURRENCY);
  const workspace = workspaceDir(options.modelsDir);
  const where = { secretsBaseDir: options.secretsBaseDir ?? workspace, workDir: options.workDir ?? workspace };
  const cells = await Promise.all(models.map(({ file, model }) => limit(() => cellStatus(file, model, { ...options, ...where, env, now, sleep, budgetMs, log, traffic, stateEngine: engine }))));
  const attention = cells.flatMap((cell) => cell.attention);
  const exitCode = attention.length > 0 ? 1 : 0;
  const requests = traffic.tally();
  return { ok: exitCode === 0, exitCode, checkedAt: new Date(now()).toISOString(), cells, attention, requests };
}

function loadModels(options: StatusOptions): Array<{ file: string; model: RunnerModel }> {
  const dir = modelsDir(options.modelsDir);
  const files = options.models && options.models.length > 0 ? options.models.map((name) => resolveModelArgument(name, dir)) : listModelFiles(dir);
  const workspace = workspaceDir(options.modelsDir);
  return files.map((file) => ({ file, model: loadModelFile(file, { workspace }).model }));
}

interface CellContext extends StatusOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly traffic: GitLabTraffic;
  readonly budgetMs: number;
  readonly log: (line: string) => void;
  /** The engine that reads remote states; unset: local states only. */
  readonly stateEngine?: EngineName;
}

async function cellStatus(file: string, model: RunnerModel, ctx: CellContext): Promise<CellReport> {
  const head = { cell: model.cell.id, model: file, gitlabUrl: model.gitlab.url, provisionedBy: await provisionedBy(model, ctx) };
  const adminToken = ctx.env[model.gitlab.token_env];
  if (!adminToken) {
    const why = `cell ${model.cell.id}: not checked: $${model.gitlab.token_env} is not set (a GitLab token with the api scope)`;
    return { ...head, checked: false, shards: [], attention: [why] };
  }
  const secrets = new Set<string>([adminToken]);
  const redact = (text: string) => [...secrets].reduce((out, secret) => redactValue(out, secret), redactSecrets(text));
  const client = gitlabClientModule().createGitLabClient({
    url: model.gitlab.url,
    token: adminToken,
    tokenEnv: model.gitlab.token_env,
    policy: { ...DEFAULT_RETRY_POLICY, budgetMs: ctx.budgetMs },
    clock: { now: ctx.now, sleep: ctx.sleep, random: SYSTEM_CLOCK.random },
    pacer: ctx.traffic.pacerFor(model.gitlab.url, adminToken),
    contact: ctx.traffic.contactWith(model.gitlab.url),
    knownSecrets: () => [...secrets],
    onRetry: (event) => ctx.log(redact(`cell ${model.cell.id}: gitlab: ${event.reason}; retrying in ${formatMs(event.delayMs)}`)),
    ...modelConnection(model.gitlab),
    warn: (line) => ctx.log(`cell ${model.cell.id}: ${line}`),
  });
  let store: SecretStore;
  try {
    store = ctx.secretStore ? ctx.secretStore(model) : createSecretStore(model, { baseDir: ctx.secretsBaseDir, env: ctx.env });
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    return { ...head, checked: false, shards: [], attention: [`cell ${model.cell.id}: ${redact(error.message)}`] };
  }
  const statusContext = {
    model,
    client,
    census: new RunnerCensus(client, model, ctx.traffic.runnersOf(model.gitlab.url, adminToken)),
    store,
    readSecrets: true,
    rememberSecret: (token: string) => {
      if (token) secrets.add(token);
    },
    verifyToken: ctx.verifyTokens ?? true,
    countRunningJobs: true,
  };
  const limit = pLimit(DEFAULT_CONCURRENCY);
  // Once GitLab is out of reach, the cell's remaining shards are not asked: a status run stays bounded in time.
  let unreachable: Pick<ShardStatus, "error" | "errorKind"> | undefined;
  const statuses = await Promise.all(
    model.shards.map((shard) =>
      limit(async (): Promise<ShardStatus> => {
        if (unreachable) return { shard: shard.name, foundBy: "none", managers: [], onlineManagers: 0, ...unreachable };
        const status = await collectShardStatus(statusContext, shard);
        if (status.errorKind && isOutOfReach(status.errorKind)) {
          // Nothing at gitlab.url: one cause for the cell, kept whole. Else the shard that met it is named.
          unreachable ??= status.errorKind === "not-reached" ? { error: status.error, errorKind: status.errorKind } : { error: `not checked: GitLab is out of reach (see shard ${shard.name})` };
        }
        return status;
      }),
    ),
  );
  const nowMs = ctx.now();
  const shards = model.shards.map((shard, index) => {
    const status = statuses[index].error ? { ...statuses[index], error: redact(statuses[index].error!) } : statuses[index];
    return shardReport(shard, status, { nowMs, tokensVerified: statusContext.verifyToken });
  });
  const notReached = statuses.find((status) => status.errorKind === "not-reached");
  if (notReached) {
    // One line for the cause, not one per shard; the shards say "unknown".
    return { ...head, checked: false, shards: shards.map((shard) => ({ ...shard, attention: [] })), attention: [`cell ${model.cell.id}: ${redact(notReached.error!)}`] };
  }
  const attention = shards.flatMap((shard) => shard.attention.map((problem) => `cell ${model.cell.id}, shard ${shard.shard}: ${problem}`));
  return { ...head, checked: true, shards, attention };
}

/** The version that applied the cell: offline from a local state, through the engine from a remote one when asked. */
async function provisionedBy(model: RunnerModel, ctx: CellContext): Promise<RecordedVersion> {
  if (ctx.stateEngine === undefined || model.state.backend === "local") return recordedToolkitVersion(model, ctx.workDir);
  ctx.log(`cell ${model.cell.id}: reading the applied version from its ${model.state.backend} state (${ctx.stateEngine} init)...`);
  const tokens = [model.gitlab.token_env, ...GITLAB_CREDENTIAL_NAMES].map((name) => ctx.env[name]);
  return readAppliedVersion(model, {
    engine: ctx.stateEngine,
    executable: ctx.engineExecutable,
    env: ctx.env,
    workDir: ctx.workDir!,
    // The GitLab token status holds stays out of the engine's environment, and out of its words.
    withholdEnv: [model.gitlab.token_env],
    // The same bound as one GitLab call's: a status run ends, whatever a backend does.
    stepTimeoutMs: ctx.budgetMs,
    redact: (line) => tokens.reduce((out: string, token) => redactValue(out, token), redactSecrets(line)),
  });
}

function shardReport(
  shard: RunnerModel["shards"][number],
  status: ShardStatus,
  { nowMs, tokensVerified }: { readonly nowMs: number; readonly tokensVerified: boolean },
): ShardReport {
  const health = shardHealth(shard, status, nowMs);
  const capacity = shardCapacity(shard);
  const versions = [...new Set(status.managers.map((manager) => manager.version).filter((version): version is string => Boolean(version)))].sort();
  return {
    shard: shard.name,
    checked: status.error === undefined,
    ...(status.runnerId === undefined ? {} : { runnerId: status.runnerId, runnerStatus: status.runnerStatus, paused: status.paused }),
    managers: status.managers.map((manager) => ({ ...manager, lastContact: relativeTime(manager.contactedAt, nowMs) })),
    expectedManagers: shard.managers.count,
    onlineManagers: status.error === undefined ? status.onlineManagers : null,
    modelRunnerVersion: shard.managers.runner_version,
    runnerVersions: versions,
    token: tokenState(status, { verified: tokensVerified }),
    ...(status.tokenCheck ? { tokenCheck: status.tokenCheck } : {}),
    jobs: { running: status.runningJobs ?? null, max: capacity.maxConcurrentJobs },
    workers: { inUse: null, max: capacity.maxWorkers, inUseNote: WORKERS_NOT_REPORTED },
    attention: health.attention,
    notes: health.notes,
  };
}

function tokenState(status: ShardStatus, { verified }: { readonly verified: boolean }): TokenState {
  if (status.runnerId === undefined) return "not-checked";
  if (status.tokenStored === false) return "missing";
  if (!verified || !status.tokenCheck) return "not-checked";
  if (!status.tokenCheck.valid) return "refused";
  return status.tokenCheck.matchesRunner ? "valid" : "other-runner";
}

const TOKEN_WORDS: Record<TokenState, string> = {
  valid: "token valid",
  refused: "token REFUSED",
  "other-runner": "token of another runner",
  missing: "token MISSING",
  "not-checked": "token not checked",
};

function describeProvisionedBy(recorded: RecordedVersion): string {
  return recorded.version === null ? `applied by runner-fleet ? (${recorded.reason})` : `applied by runner-fleet ${recorded.version}`;
}

export function formatStatusReport(report: StatusReport): string {
  const lines: string[] = [];
  for (const cell of report.cells) {
    lines.push(`${cell.cell}  ${cell.gitlabUrl}${cell.checked ? "" : "  (not checked)"}  ${describeProvisionedBy(cell.provisionedBy)}`);
    for (const shard of cell.shards) {
      if (!shard.checked) {
        // Not "no runner", not "managers 0/2 online": GitLab was not asked, so nothing is known.
        lines.push(`  ${shard.shard}  unknown (not checked)  managers ?/${shard.expectedManagers}  token not checked  jobs ?/${shard.jobs.max}`);
        for (const problem of shard.attention) lines.push(`    ! ${problem}`);
        continue;
      }
      const runner = shard.runnerId === undefined ? "no runner" : `runner #${shard.runnerId}${shard.paused ? " (paused)" : ""}`;
      const jobs = shard.jobs.running === null ? `jobs ?/${shard.jobs.max}` : `jobs ${shard.jobs.running}/${shard.jobs.max} running`;
      const versions = shard.runnerVersions.length > 0 ? `  runner ${shard.runnerVersions.join(", ")}` : "";
      lines.push(`  ${shard.shard}  ${runner}  managers ${shard.onlineManagers}/${shard.expectedManagers} online  ${TOKEN_WORDS[shard.token]}  ${jobs}  workers in use: not reported by GitLab (max ${shard.workers.max})${versions}`);
      const width = Math.max(0, ...shard.managers.map((manager) => manager.systemId.length));
      for (const manager of shard.managers) {
        lines.push(`    ${manager.systemId.padEnd(width)}  ${manager.status.padEnd(15)}  last contact ${manager.lastContact.padEnd(9)}  ${manager.version ?? "?"}${manager.ipAddress ? `  ${manager.ipAddress}` : ""}`);
      }
      for (const problem of shard.attention) lines.push(`    ! ${problem}`);
      for (const note of shard.notes) lines.push(`    note: ${note}`);
    }
    if (!cell.checked) for (const problem of cell.attention) lines.push(`  ! ${problem}`);
  }
  lines.push(report.attention.length === 0 ? `all ${report.cells.length} cell(s) healthy` : `${report.attention.length} problem(s) need attention`);
  lines.push(describeTally(report.requests, formatMs));
  return `${redactSecrets(lines.join("\n"))}\n`;
}

export function statusCommand(): Command {
  return cliCommand("status")
    .description("Show every cell's runners, managers, tokens and running jobs as GitLab sees them; exit 1 when something needs attention.")
    .addOption(modelsOption("every model in the models directory"))
    .addOption(modelsDirOption())
    .option("--no-verify", "do not check the stored tokens with GitLab (POST /runners/verify refreshes the runner's contact time)")
    .option("--read-state", "read which runner-fleet version applied each cell from remote states (gcs, s3, http) too: runs the engine's init on the backend alone, with its credentials")
    .addOption(withDefault(new Option("--engine <engine>", "the engine --read-state runs").choices([...ENGINE_NAMES]), "detected on PATH"))
    .addOption(withDefault(new Option("--retry-timeout <duration>", "how long one GitLab call may keep retrying, e.g. 30s"), `$${RETRY_TIMEOUT_ENV} or 2m`))
    .addOption(withDefault(new Option("--rate-limit <requests-per-minute>", "requests a minute to each GitLab after a burst of up to 600, shared by its cells (0: no limit; a 429 and GitLab's RateLimit-Remaining are honoured either way)"), `$${RATE_LIMIT_ENV} or 100`))
    .addOption(withDefault(new Option("--cell-concurrency <n>", "cells checked at once"), String(DEFAULT_CELL_CONCURRENCY)))
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nEach cell's GitLab token is read from the variable named by gitlab.token_env in its model.\n" +
        "Needs attention: a missing runner, a manager that is offline, stale or never contacted, fewer online managers than the model asks for,\n" +
        "a missing store entry, a stored token GitLab refuses or that belongs to another runner, a cell that could not be checked.\n" +
        "Exit codes: 0 all healthy, 1 something needs attention (or GitLab / the secret store failed), 2 invalid model or usage.",
    )
    .action(async (flags: { json?: boolean }, command: Command) => {
      // zod is loaded here, once commander has parsed: --help and --version do not pay for it.
      const { parseStatusOptions } = require("./status-options") as typeof StatusOptionsModule;
      const report = await runStatus(parseStatusOptions(command));
      process.stdout.write(flags.json ? `${redactSecrets(JSON.stringify(report, null, 2))}\n` : formatStatusReport(report));
      process.exitCode = report.exitCode;
    });
}
