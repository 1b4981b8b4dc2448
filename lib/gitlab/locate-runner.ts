/**
 * Finding a shard's runner again (onboarding fetches it in lib/onboard/observe.ts and plans on it in lib/onboard/plan.ts):
 * first by the runner id stored with its token, then by the marker in the maintenance
 * note. The marker alone decides: a runner whose tags no longer match the model (the
 * model's tags changed and the stored token was lost) is still the shard's runner.
 *
 * Every lookup also lists the other runners carrying the marker, so duplicates (two
 * operators onboarding at once, a create whose answer was lost) are found and repaired.
 * Lookups go through the run's census (./runner-census.ts), so a cell's listing and each
 * runner's details are fetched once per run, not once per shard.
 */
import type { RunnerModel, Shard } from "../model/schema";
import type { StoredRunnerToken } from "../secrets/store";
import type { NewRunner, RunnerDetails } from "./client";
import type { RunnerCensus } from "./runner-census";

export interface LocatedRunner {
  /** The shard's runner, when one exists: the stored id's, else the oldest carrying the marker. */
  readonly runner?: RunnerDetails;
  readonly foundBy: "stored-id" | "marker" | "none";
  /** Other runners carrying the shard's marker: duplicates to delete. */
  readonly duplicates: readonly RunnerDetails[];
  /** Set when a stored id pointed at nothing (the runner was deleted by hand). */
  readonly staleStoredId?: number;
}

export interface LocateContext {
  readonly model: RunnerModel;
  /** The run's view of the cell's runners: what the lookups of all shards share. */
  readonly census: RunnerCensus;
}

export async function locateRunner(ctx: LocateContext, shard: Shard, desired: NewRunner, stored: StoredRunnerToken | undefined): Promise<LocatedRunner> {
  let staleStoredId: number | undefined;
  let byStoredId: RunnerDetails | undefined;
  if (stored && Number.isInteger(stored.runnerId) && stored.runnerId > 0) {
    byStoredId = await ctx.census.runner(stored.runnerId, `read runner #${stored.runnerId} of shard ${shard.name}`);
    if (!byStoredId) staleStoredId = stored.runnerId;
  }
  const marked = await findRunnersByMarker(ctx, shard, desired);
  if (byStoredId) {
    return { runner: byStoredId, foundBy: "stored-id", duplicates: marked.filter((other) => other.id !== byStoredId.id) };
  }
  const [runner, ...duplicates] = marked;
  return { runner, foundBy: runner ? "marker" : "none", duplicates, staleStoredId };
}

/** Runners carrying the shard's marker, oldest first (./runner-census.ts: each listing and runner read once per run). */
export function findRunnersByMarker(ctx: LocateContext, shard: Shard, desired: NewRunner): Promise<RunnerDetails[]> {
  return ctx.census.markedRunners(shard, desired);
}
