/**
 * `onboard --status` and `status`: each shard's runner and the managers using its token
 * (GET /runners/:id/managers), as GitLab sees them: online, offline, stale, never_contacted.
 * Optionally the jobs it is running (GET /runners/:id/jobs?status=running) and whether
 * the stored token still works (./verify-token.ts). Read-only, except that verifying a
 * token refreshes the runner's contact time in GitLab (see ./verify-token.ts); managers
 * and jobs are therefore read before the token is checked.
 */
import { OperationalError } from "../process/errors";
import type { RunnerModel, Shard } from "../model/schema";
import type { SecretStore } from "../secrets/store";
import type { GitLabClient } from "./client";
import { GitLabApiError, type GitLabFailureKind } from "./errors";
import { locateRunner } from "./locate-runner";
import type { RunnerCensus } from "./runner-census";
import { desiredRunner } from "./runner-spec";
import { checkRunnerToken, type TokenCheck } from "./verify-token";

export interface ManagerStatus {
  readonly systemId: string;
  readonly status: string;
  readonly version: string | null;
  readonly ipAddress: string | null;
  readonly contactedAt: string | null;
}

export interface ShardStatus {
  readonly shard: string;
  readonly runnerId?: number;
  /** How the runner was found: the stored id, its marker, or not at all. */
  readonly foundBy: "stored-id" | "marker" | "none";
  /** GitLab's status of the runner as a whole. */
  readonly runnerStatus?: string;
  readonly paused?: boolean;
  /** Whether the store holds a token for this runner (tokenCheck says whether it works); undefined when the store was not read. */
  readonly tokenStored?: boolean;
  /** Why the stored token is not usable (GitLab refuses it, or it is another runner's), when verified. */
  readonly tokenProblem?: string;
  readonly managers: readonly ManagerStatus[];
  /** Managers GitLab counts as online (contacted in the last 2 hours). */
  readonly onlineManagers: number;
  /** Jobs the runner is running now, over all its managers (with `countRunningJobs`). */
  readonly runningJobs?: number;
  /** What GitLab says of the stored token (with `verifyToken`, when a token is stored). */
  readonly tokenCheck?: TokenCheck;
  readonly error?: string;
  /** What kind of GitLab failure `error` is, when it is one. */
  readonly errorKind?: GitLabFailureKind;
}

export interface StatusContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  /** The run's view of the cell's runners, shared by every shard's lookup. */
  readonly census: RunnerCensus;
  readonly store: SecretStore;
  readonly readSecrets: boolean;
  readonly rememberSecret: (token: string) => void;
  /** Ask GitLab whether the stored token works (POST /runners/verify). @default false */
  readonly verifyToken?: boolean;
  /** Count the runner's running jobs. @default false */
  readonly countRunningJobs?: boolean;
}

export async function collectShardStatus(ctx: StatusContext, shard: Shard): Promise<ShardStatus> {
  try {
    const stored = ctx.readSecrets ? await ctx.store.read(shard) : undefined;
    if (stored) ctx.rememberSecret(stored.token);
    const located = await locateRunner(ctx, shard, desiredRunner(ctx.model, shard), stored);
    const runner = located.runner;
    const tokenStored = ctx.readSecrets ? stored !== undefined && runner !== undefined && stored.runnerId === runner.id : undefined;
    if (!runner) return { shard: shard.name, foundBy: "none", tokenStored, managers: [], onlineManagers: 0 };
    const managers = (await ctx.client.listRunnerManagers(runner.id, `list the managers of runner #${runner.id} (shard ${shard.name})`)).map(
      (manager): ManagerStatus => ({
        systemId: manager.system_id,
        status: manager.status,
        version: manager.version ?? null,
        ipAddress: manager.ip_address ?? null,
        contactedAt: manager.contacted_at ?? null,
      }),
    );
    const runningJobs = ctx.countRunningJobs
      ? (await ctx.client.listRunnerJobs(runner.id, "running", `list the running jobs of runner #${runner.id} (shard ${shard.name})`)).length
      : undefined;
    // After the managers and jobs were read: the check records (and removes) a manager entry of its own.
    const tokenCheck = ctx.verifyToken && stored ? await checkRunnerToken(ctx.client, stored.token, runner.id, `shard ${shard.name}`) : undefined;
    const tokenProblem = tokenCheck && stored ? describeTokenProblem(tokenCheck, stored.runnerId) : undefined;
    return {
      shard: shard.name,
      runnerId: runner.id,
      foundBy: located.foundBy,
      runnerStatus: runner.status,
      paused: runner.paused,
      tokenStored,
      ...(tokenProblem === undefined ? {} : { tokenProblem }),
      managers,
      onlineManagers: managers.filter((manager) => manager.status === "online").length,
      ...(runningJobs === undefined ? {} : { runningJobs }),
      ...(tokenCheck === undefined ? {} : { tokenCheck }),
    };
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    const errorKind = error instanceof GitLabApiError ? { errorKind: error.kind } : {};
    return { shard: shard.name, foundBy: "none", managers: [], onlineManagers: 0, error: error.message, ...errorKind };
  }
}

function describeTokenProblem(check: TokenCheck, storedRunnerId: number): string | undefined {
  if (!check.valid) return `the stored token of runner #${storedRunnerId} no longer works (${check.reason}); run onboard to reset it`;
  if (!check.matchesRunner) return `the stored token belongs to runner #${check.runnerId}, not to the shard's runner; run onboard to reset it`;
  return undefined;
}

/** A table for people: one line per shard, one indented line per manager. */
export function formatStatusTable(statuses: readonly ShardStatus[]): string {
  const rows: string[][] = [["SHARD", "RUNNER", "STATUS", "MANAGERS", "TOKEN"]];
  const details: Map<number, string[]> = new Map();
  statuses.forEach((status, index) => {
    // A shard GitLab could not be asked about is unknown: not "missing", not "0/0 online".
    rows.push([
      status.shard,
      status.runnerId === undefined ? (status.error ? "?" : "-") : `#${status.runnerId}`,
      status.error ? "unknown" : (status.runnerStatus ?? "missing") + (status.paused ? " (paused)" : ""),
      status.error ? "?" : `${status.onlineManagers}/${status.managers.length} online`,
      // A token reset behind our back is not "stored": it no longer works.
      status.tokenProblem ? "invalid" : status.tokenStored === undefined ? "not checked" : status.tokenStored ? "stored" : "missing",
    ]);
    const lines = status.managers.map(
      (manager) => `    manager ${manager.systemId}: ${manager.status}, version ${manager.version ?? "?"}, last contact ${manager.contactedAt ?? "never"}`,
    );
    if (status.tokenProblem) lines.push(`    token: ${status.tokenProblem}`);
    // A GitLab that never answered is the run's one problem line, not repeated per shard.
    if (status.error && status.errorKind !== "not-reached") lines.push(`    error: ${status.error}`);
    details.set(index + 1, lines);
  });
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const out: string[] = [];
  rows.forEach((row, index) => {
    out.push(row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd());
    out.push(...(details.get(index) ?? []));
  });
  return `${out.join("\n")}\n`;
}
