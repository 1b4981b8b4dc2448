/**
 * What in a shard's status needs someone's attention (the `status` command pages on
 * these), and what is only worth a note. Pure: no I/O.
 */
import type { ShardStatus } from "../gitlab/status";
import type { Shard } from "../model/schema";
import { relativeTime } from "../time/relative-time";

export interface ShardHealth {
  /** Problems: a schedule running `status` should page on any of them. */
  readonly attention: readonly string[];
  /** Worth knowing, not worth a page (a roll in progress, a paused runner). */
  readonly notes: readonly string[];
}

export function shardHealth(shard: Shard, status: ShardStatus, nowMs: number): ShardHealth {
  const attention: string[] = [];
  const notes: string[] = [];
  if (status.error) return { attention: [status.error], notes };
  if (status.runnerId === undefined) {
    attention.push("no runner in GitLab: run onboard for this cell");
    return { attention, notes };
  }
  const replaced = status.onlineManagers >= shard.managers.count;
  for (const manager of status.managers) {
    if (manager.status === "online") continue;
    const what = manager.status === "never_contacted" ? "has never contacted GitLab" : `is ${manager.status}, last contact ${relativeTime(manager.contactedAt, nowMs)}`;
    // With every slot online, a silent manager is most likely a replaced VM: say how to clear it.
    attention.push(`manager ${manager.systemId} ${what}${replaced ? " (a replaced VM? onboard --prune removes it)" : ""}`);
  }
  const expected = shard.managers.count;
  if (status.onlineManagers < expected) attention.push(`${status.onlineManagers} of ${expected} managers online`);
  if (status.tokenStored === false) attention.push(`no token for runner #${status.runnerId} in the secret store: run onboard for this cell`);
  if (status.tokenCheck && !status.tokenCheck.valid) attention.push(`the stored token does not work: ${status.tokenCheck.reason}; run onboard --rotate for this shard`);
  if (status.tokenCheck?.valid && !status.tokenCheck.matchesRunner) {
    attention.push(`the stored token belongs to runner #${status.tokenCheck.runnerId}, not #${status.runnerId}: run onboard for this cell`);
  }
  const versions = [...new Set(status.managers.map((manager) => manager.version).filter((version): version is string => Boolean(version)))];
  const others = versions.filter((version) => version !== shard.managers.runner_version);
  if (others.length > 0) notes.push(`runner version ${others.join(", ")} differs from the model's ${shard.managers.runner_version}`);
  if (status.paused && !shard.paused) notes.push("the runner is paused in GitLab; the model does not pause it");
  return { attention, notes };
}
