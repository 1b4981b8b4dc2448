/**
 * Finding a shard's runner again (onboarding fetches it in lib/onboard/observe.ts and plans on it in lib/onboard/plan.ts):
 * first by the runner id stored with its token, then by the marker in the maintenance
 * note. The marker alone decides: a runner whose tags no longer match the model (the
 * model's tags changed and the stored token was lost) is still the shard's runner.
 *
 * Every lookup also lists the other runners carrying the marker, so duplicates (two
 * operators onboarding at once, a create whose answer was lost) are found and repaired.
 */
import type { RunnerModel, Shard } from "../model/schema";
import type { StoredRunnerToken } from "../secrets/store";
import type { GitLabClient, NewRunner, RunnerDetails } from "./client";
import { hasRunnerMarker, runnerScope } from "./runner-spec";

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
  readonly client: GitLabClient;
}

export async function locateRunner(ctx: LocateContext, shard: Shard, desired: NewRunner, stored: StoredRunnerToken | undefined): Promise<LocatedRunner> {
  let staleStoredId: number | undefined;
  let byStoredId: RunnerDetails | undefined;
  if (stored && Number.isInteger(stored.runnerId) && stored.runnerId > 0) {
    byStoredId = await ctx.client.getRunner(stored.runnerId, `read runner #${stored.runnerId} of shard ${shard.name}`);
    if (!byStoredId) staleStoredId = stored.runnerId;
  }
  const marked = await findRunnersByMarker(ctx, shard, desired);
  if (byStoredId) {
    return { runner: byStoredId, foundBy: "stored-id", duplicates: marked.filter((other) => other.id !== byStoredId.id) };
  }
  const [runner, ...duplicates] = marked;
  return { runner, foundBy: runner ? "marker" : "none", duplicates, staleStoredId };
}

/**
 * Runners carrying the shard's marker, oldest first. The listing gives no maintenance
 * note, so details are read one runner at a time: first every runner of the shard's
 * owner and type whose description is the shard's (whatever its tags: the usual case,
 * one GET), and only when none of them carries the marker, the runners listed with the
 * shard's tags (a runner whose description was edited by hand). Runners with neither
 * the description nor the tags are not read, so a lookup stays a few calls on an
 * instance with thousands of runners.
 */
export async function findRunnersByMarker(ctx: LocateContext, shard: Shard, desired: NewRunner): Promise<RunnerDetails[]> {
  const { tags: _tags, ...anyTags } = runnerScope(desired);
  const listed = await ctx.client.listRunners(anyTags, `search the runners of shard ${shard.name}`);
  const likely = listed.filter((runner) => runner.description === desired.description).map((runner) => runner.id);
  const matches = await markedAmong(ctx, shard, likely);
  if (matches.length > 0) return matches;
  const tagged = await ctx.client.listRunners(runnerScope(desired), `search the runners tagged like shard ${shard.name}`);
  return markedAmong(ctx, shard, tagged.map((runner) => runner.id).filter((id) => !likely.includes(id)));
}

async function markedAmong(ctx: LocateContext, shard: Shard, ids: readonly number[]): Promise<RunnerDetails[]> {
  const matches: RunnerDetails[] = [];
  for (const id of [...ids].sort((a, b) => a - b)) {
    const details = await ctx.client.getRunner(id, `read runner #${id} while searching for shard ${shard.name}`);
    if (details && hasRunnerMarker(details, ctx.model, shard)) matches.push(details);
  }
  return matches;
}
