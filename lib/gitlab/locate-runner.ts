/**
 * Finding a shard's runner again (the identity rules are spelled out in ./reconcile.ts):
 * first by the runner id stored with its token, then by the marker in the maintenance
 * note among the runners listed for the shard's owner, type and tags.
 */
import type { RunnerModel, Shard } from "../model/schema";
import type { StoredRunnerToken } from "../secrets/store";
import type { GitLabClient, NewRunner, RunnerDetails } from "./client";
import { hasRunnerMarker, runnerScope } from "./runner-spec";

export interface LocatedRunner {
  /** The shard's runner, when one exists. */
  readonly runner?: RunnerDetails;
  readonly foundBy: "stored-id" | "marker" | "none";
  /** Other runners carrying the shard's marker: duplicates someone should look at. */
  readonly duplicates: readonly number[];
  /** Set when a stored id pointed at nothing (the runner was deleted by hand). */
  readonly staleStoredId?: number;
}

export interface LocateContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
}

export async function locateRunner(ctx: LocateContext, shard: Shard, desired: NewRunner, stored: StoredRunnerToken | undefined): Promise<LocatedRunner> {
  let staleStoredId: number | undefined;
  if (stored && Number.isInteger(stored.runnerId) && stored.runnerId > 0) {
    const runner = await ctx.client.getRunner(stored.runnerId, `read runner #${stored.runnerId} of shard ${shard.name}`);
    if (runner) return { runner, foundBy: "stored-id", duplicates: [] };
    staleStoredId = stored.runnerId;
  }
  const found = await findRunnersByMarker(ctx, shard, desired);
  const [runner, ...duplicates] = found;
  return { runner, foundBy: runner ? "marker" : "none", duplicates: duplicates.map((other) => other.id), staleStoredId };
}

/**
 * Runners carrying the shard's marker, oldest first. The listing (all pages) gives no
 * maintenance note, so details are read one runner at a time: first the runners whose
 * description is the shard's (the usual case: one GET), and only when none of them
 * carries the marker, the rest (a runner whose description was edited by hand).
 */
export async function findRunnersByMarker(ctx: LocateContext, shard: Shard, desired: NewRunner): Promise<RunnerDetails[]> {
  const listed = await ctx.client.listRunners(runnerScope(desired), `search the runners of shard ${shard.name}`);
  const byId = [...listed].sort((a, b) => a.id - b.id);
  const likely = byId.filter((runner) => runner.description === desired.description);
  const rest = byId.filter((runner) => runner.description !== desired.description);
  for (const group of [likely, rest]) {
    const matches: RunnerDetails[] = [];
    for (const candidate of group) {
      const details = await ctx.client.getRunner(candidate.id, `read runner #${candidate.id} while searching for shard ${shard.name}`);
      if (details && hasRunnerMarker(details, ctx.model, shard)) matches.push(details);
    }
    if (matches.length > 0) return matches;
  }
  return [];
}
