/**
 * How long a stopping runner manager may take, shared by the manager script (systemd's
 * TimeoutStopSec) and the constructs (the AWS termination lifecycle hook).
 *
 * gitlab-runner stops gracefully on SIGQUIT: it asks for no new jobs and exits when the running
 * ones are done. systemd sends SIGTERM by default, which aborts them; GitLab's docs ("Overriding
 * default stopping behavior", docs/configuration/init.md) set KillSignal=SIGQUIT and a
 * TimeoutStopSec that covers the longest job.
 */
import { parseGoDurationSeconds } from "../model/duration";
import type { Shard } from "../model/schema";
import { MAX_HOOK_HEARTBEAT_SECONDS } from "../contract/fleet-contract";

/** After the job timeout a job still uploads its log and artifacts; the stop waits this much longer. */
export const STOP_MARGIN_SECONDS = 300;

/** Seconds between lifecycle heartbeats while a manager drains (well inside the hook's timeout). */
export const DRAIN_HEARTBEAT_INTERVAL_SECONDS = 600;

/** The shard's maximum_timeout plus the margin: how long systemd waits after SIGQUIT before SIGKILL. */
export function gracefulStopSeconds(shard: Shard): number {
  const maximumTimeout = parseGoDurationSeconds(shard.maximum_timeout);
  if (maximumTimeout === undefined) throw new TypeError(`shard ${shard.name}: maximum_timeout ${JSON.stringify(shard.maximum_timeout)} is not a Go duration`);
  return Math.ceil(maximumTimeout) + STOP_MARGIN_SECONDS;
}

/**
 * Heartbeat timeout of the termination hook: the whole drain when AWS allows it, otherwise the cap
 * (the manager then records a heartbeat every DRAIN_HEARTBEAT_INTERVAL_SECONDS while it waits).
 */
export function drainHookHeartbeatSeconds(shard: Shard): number {
  return Math.min(gracefulStopSeconds(shard) + 60, MAX_HOOK_HEARTBEAT_SECONDS);
}
