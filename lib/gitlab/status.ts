/**
 * `onboard --status`: each shard's runner and the managers using its token
 * (GET /runners/:id/managers), as GitLab sees them: online, offline, stale, never_contacted.
 * Read-only.
 */
import { OperationalError } from "../errors";
import type { RunnerModel, Shard } from "../model/schema";
import type { SecretStore } from "../secrets/store";
import type { GitLabClient } from "./client";
import { locateRunner } from "./locate-runner";
import { desiredRunner } from "./runner-spec";

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
  /** Whether the store holds a token for this runner; undefined when the store was not read. */
  readonly tokenStored?: boolean;
  readonly managers: readonly ManagerStatus[];
  /** Managers GitLab counts as online (contacted in the last 2 hours). */
  readonly onlineManagers: number;
  readonly error?: string;
}

export interface StatusContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  readonly store: SecretStore;
  readonly readSecrets: boolean;
  readonly rememberSecret: (token: string) => void;
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
    return {
      shard: shard.name,
      runnerId: runner.id,
      foundBy: located.foundBy,
      runnerStatus: runner.status,
      paused: runner.paused,
      tokenStored,
      managers,
      onlineManagers: managers.filter((manager) => manager.status === "online").length,
    };
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    return { shard: shard.name, foundBy: "none", managers: [], onlineManagers: 0, error: error.message };
  }
}

/** A table for people: one line per shard, one indented line per manager. */
export function formatStatusTable(statuses: readonly ShardStatus[]): string {
  const rows: string[][] = [["SHARD", "RUNNER", "STATUS", "MANAGERS", "TOKEN"]];
  const details: Map<number, string[]> = new Map();
  statuses.forEach((status, index) => {
    rows.push([
      status.shard,
      status.runnerId === undefined ? "-" : `#${status.runnerId}`,
      status.error ? "error" : (status.runnerStatus ?? "missing") + (status.paused ? " (paused)" : ""),
      `${status.onlineManagers}/${status.managers.length} online`,
      status.tokenStored === undefined ? "not checked" : status.tokenStored ? "stored" : "missing",
    ]);
    const lines = status.managers.map(
      (manager) => `    manager ${manager.systemId}: ${manager.status}, version ${manager.version ?? "?"}, last contact ${manager.contactedAt ?? "never"}`,
    );
    if (status.error) lines.push(`    error: ${status.error}`);
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
