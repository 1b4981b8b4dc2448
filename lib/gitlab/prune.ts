/**
 * `onboard --prune`: what a cell leaves behind in GitLab over the years.
 * - Runners that carry this cell's marker (see ./runner-spec.ts) for a shard the model
 *   no longer has (removed or renamed): deleted, with their secret when it is theirs.
 * - Runner managers of the cell's shards not seen for longer than a threshold (replaced
 *   VMs): deleted with DELETE /runners/managers, which needs the runner's own token and
 *   the manager's system_id. GitLab itself deletes managers stale for 7 days
 *   (Ci::Runners::StaleMachinesCleanupCronWorker); a shorter threshold clears them after
 *   a roll. A deleted manager that is in fact alive comes back on its next contact.
 * A runner of a removed shard that still has online managers is kept (its VMs still run
 * jobs until provision removes them). Only runners whose marker names exactly this cell are touched: a runner without the
 * marker, or with another cell's (cell-10 next to cell-1), is never deleted.
 *
 * Cost: the listing shows no maintenance note, but it filters by tag, and every runner of the
 * cell carries the cell's tag (lib/model/cell-tag.ts). So prune reads the runners listed with
 * that tag, and of the others only those named as this tool names them (runners from before
 * the tag: see candidateIds), once; the shards' own lookups then reuse those reads (the run's
 * census, ./runner-census.ts). It costs the listings' pages, one read per runner of the cell
 * and one managers listing per shard: linear in the cell's shards, whatever else the
 * instance holds. A runner from before the tag with a description of the model's, whose shard
 * was removed before any onboard run tagged it, is found only with `--search-untagged`.
 */
import pLimit from "p-limit";
import { OperationalError, UserInputError } from "../process/errors";
import { relativeTime } from "../time/relative-time";
import { parseGoDurationSeconds } from "../model/duration";
import type { RunnerModel, Shard } from "../model/schema";
import type { SecretStore } from "../secrets/store";
import type { GitLabClient, RunnerDetails, RunnerManager, RunnerScope, RunnerSummary, RunnerTypeName } from "./client";
import { GitLabApiError } from "./errors";
import { locateRunner } from "./locate-runner";
import type { RunnerCensus } from "./runner-census";
import { cellTag } from "../model/cell-tag";
import { desiredRunner } from "./runner-spec";
import { TOKEN_CHECK_SYSTEM_ID } from "./verify-token";

/** Managers are "online" in GitLab when seen within 2 hours; a shorter threshold would delete live ones. */
export const MIN_STALE_AFTER_MS = 2 * 3600_000;
export const DEFAULT_STALE_AFTER = "1d";

const MARKER = /\[runner-fleet cell=([^\s\]]+) shard=([^\s\]]+)\]/;

/** The cell and shard a runner's marker names, if it has one. */
export function readRunnerMarker(runner: Pick<RunnerDetails, "maintenance_note" | "description">): { cell: string; shard: string } | undefined {
  const match = runner.maintenance_note?.match(MARKER) ?? runner.description?.match(MARKER);
  return match ? { cell: match[1], shard: match[2] } : undefined;
}

/** --stale-after: a Go duration ("36h") or whole days ("7d"); at least 2h. */
export function parseStaleAfter(value: string): number {
  const text = value.trim();
  const days = text.match(/^(\d+)d$/);
  const seconds = days ? Number(days[1]) * 86_400 : parseGoDurationSeconds(text);
  if (seconds === undefined) throw new UserInputError(`--stale-after must be a duration such as "7d", "36h" or "90m", received ${JSON.stringify(value)}`);
  if (seconds * 1000 < MIN_STALE_AFTER_MS) {
    throw new UserInputError(`--stale-after must be at least 2h (GitLab counts a manager as online for 2 hours after its last contact), received ${JSON.stringify(value)}`);
  }
  return seconds * 1000;
}

export interface OrphanRunner {
  readonly runnerId: number;
  /** The shard its marker names, which the model does not have. */
  readonly shard: string;
  readonly description: string | null;
  readonly status: string;
  readonly deleted: boolean;
  /** The secret stored under the removed shard's name, when it holds this runner's token. */
  readonly secret?: string;
  readonly secretRemoved: boolean;
  readonly notes: readonly string[];
  readonly error?: string;
}

export interface StaleManager {
  readonly shard: string;
  readonly runnerId: number;
  readonly systemId: string;
  readonly status: string;
  readonly contactedAt: string | null;
  readonly lastContact: string;
  readonly reason: string;
  readonly deleted: boolean;
  readonly error?: string;
}

export interface PruneReport {
  readonly dryRun: boolean;
  readonly staleAfterMs: number;
  /** Which runner listings were searched for the cell's marker. */
  readonly searched: string;
  readonly runners: readonly OrphanRunner[];
  readonly managers: readonly StaleManager[];
  readonly problems: readonly string[];
  readonly notices: readonly string[];
}

export interface PruneContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  /** The run's view of the cell's runners: each listing and runner read once. */
  readonly census: RunnerCensus;
  readonly store: SecretStore;
  readonly dryRun: boolean;
  /** False in a dry run whose store needs cloud credentials. */
  readonly readSecrets: boolean;
  readonly rememberSecret: (token: string) => void;
  readonly staleAfterMs: number;
  /** Read every listed runner, not only those with the cell's tag or named like the cell's. @default false */
  readonly searchUntagged?: boolean;
  readonly now: () => number;
  readonly concurrency: number;
  readonly log: (line: string) => void;
}

export async function pruneCell(ctx: PruneContext): Promise<PruneReport> {
  const problems: string[] = [];
  const notices: string[] = [];
  const { lists, searched } = await listCandidates(ctx, notices);
  const runners = await pruneOrphans(ctx, lists, problems);
  const limit = pLimit(ctx.concurrency);
  // Each shard's problems apart, then in the model's order: the report does not depend on timing.
  const perShard = await Promise.all(
    ctx.model.shards.map((shard) =>
      limit(async () => {
        const shardProblems: string[] = [];
        return { managers: await pruneStaleManagers(ctx, shard, shardProblems), problems: shardProblems };
      }),
    ),
  );
  const managers = perShard.flatMap((entry) => entry.managers);
  problems.push(...perShard.flatMap((entry) => entry.problems));
  return { dryRun: ctx.dryRun, staleAfterMs: ctx.staleAfterMs, searched, runners, managers, problems, notices };
}

const TYPES: readonly RunnerTypeName[] = ["instance_type", "group_type", "project_type"];

/** A listing to search, and the same owner's runners carrying the cell's tag. */
interface Searched {
  readonly every: RunnerSummary[];
  readonly tagged: RunnerSummary[];
}

/**
 * Where runners of removed shards may be: an administrator's token lists all runners of
 * the instance; an Owner's only those of the groups and projects the model names. Each
 * owner's listing is fetched whole and with the cell's tag.
 */
async function listCandidates(ctx: PruneContext, notices: string[]): Promise<{ lists: Searched[]; searched: string }> {
  const tag = cellTag(ctx.model);
  const search = async (scope: RunnerScope, where: string): Promise<Searched> => ({
    every: await ctx.census.listing(scope, `list ${where} to find the ones of removed shards`),
    tagged: await ctx.census.listing({ ...scope, tags: [tag] }, `list ${where} tagged ${tag}`),
  });
  try {
    const lists: Searched[] = [];
    for (const runnerType of TYPES) lists.push(await search({ runnerType }, `all ${runnerType} runners`));
    return { lists, searched: searchedText(ctx, "the instance") };
  } catch (error) {
    if (!(error instanceof GitLabApiError && error.kind === "forbidden")) throw error;
  }
  const scopes: RunnerScope[] = [];
  for (const id of new Set(ctx.model.shards.flatMap((shard) => (shard.group_id === undefined ? [] : [shard.group_id])))) scopes.push({ runnerType: "group_type", groupId: id });
  for (const id of new Set(ctx.model.shards.flatMap((shard) => (shard.project_id === undefined ? [] : [shard.project_id])))) scopes.push({ runnerType: "project_type", projectId: id });
  const whereOf = (scope: RunnerScope) => (scope.groupId !== undefined ? `group ${scope.groupId}` : `project ${scope.projectId}`);
  const lists: Searched[] = [];
  for (const scope of scopes) lists.push(await search(scope, `the runners of ${whereOf(scope)}`));
  const where = scopes.map(whereOf);
  notices.push(
    `the token is not an administrator's: only the runners of ${where.length > 0 ? where.join(", ") : "no group or project"} were searched; instance runners of removed shards need an administrator's token`,
  );
  return { lists, searched: where.length > 0 ? searchedText(ctx, where.join(", ")) : "nothing" };
}

function searchedText(ctx: PruneContext, where: string): string {
  if (ctx.searchUntagged) return `every runner of ${where}`;
  return `the runners of ${where} tagged ${cellTag(ctx.model)} and the untagged ones named ${ctx.model.cell.id}-… (--search-untagged reads every runner)`;
}

/**
 * The runners whose details may show this cell's marker: those carrying the cell's tag,
 * and, of the others, those named as this tool names runners (from before the tag: the
 * default description `<cell>-<shard>`, or the marker itself), or all of them with
 * `searchUntagged` (a removed shard's runner from before the tag with a description of the
 * model's: found only so, at one read per runner of the instance). The listing carries no
 * maintenance note, so these are read, once per run (the shards' lookups reuse the reads);
 * the instance's other runners are not.
 */
function candidateIds(model: Pick<RunnerModel, "cell">, lists: readonly Searched[], searchUntagged: boolean): number[] {
  const ids = new Set<number>();
  for (const { every, tagged } of lists) {
    tagged.forEach((runner) => ids.add(runner.id));
    every.filter((runner) => searchUntagged || namedLikeTheCell(model, runner.description)).forEach((runner) => ids.add(runner.id));
  }
  return [...ids].sort((a, b) => a - b);
}

function namedLikeTheCell(model: Pick<RunnerModel, "cell">, description: string | null | undefined): boolean {
  if (!description) return false;
  return description.startsWith(`${model.cell.id}-`) || description.includes(`[runner-fleet cell=${model.cell.id} `);
}

async function pruneOrphans(ctx: PruneContext, lists: readonly Searched[], problems: string[]): Promise<OrphanRunner[]> {
  // A renamed shard's runner carries its former name's marker until onboard renames it: it is not a removed shard's.
  const shardNames = new Set(ctx.model.shards.flatMap((shard) => [shard.name, ...(shard.renamed_from === undefined ? [] : [shard.renamed_from])]));
  const details = await Promise.all(candidateIds(ctx.model, lists, ctx.searchUntagged ?? false).map((id) => ctx.census.runner(id, `read runner #${id} to look for the cell's marker`)));
  const orphans = details.filter((runner): runner is RunnerDetails => {
    const marker = runner ? readRunnerMarker(runner) : undefined;
    return marker !== undefined && marker.cell === ctx.model.cell.id && !shardNames.has(marker.shard);
  });
  const out: OrphanRunner[] = [];
  for (const runner of orphans) out.push(await pruneOrphan(ctx, runner, problems));
  return out;
}

async function pruneOrphan(ctx: PruneContext, runner: RunnerDetails, problems: string[]): Promise<OrphanRunner> {
  const shardName = readRunnerMarker(runner)!.shard;
  // The store names secrets by cell and shard name only (lib/model/names.ts secretLocation), so the removed shard is addressed by name.
  const { renamed_from: _renamed, ...anyShard } = ctx.model.shards[0];
  const removedShard: Shard = { ...anyShard, name: shardName };
  const head = { runnerId: runner.id, shard: shardName, description: runner.description, status: runner.status };
  const notes: string[] = [];
  let ownsSecret = false;
  try {
    if (ctx.readSecrets) {
      const stored = await ctx.store.read(removedShard);
      if (stored) ctx.rememberSecret(stored.token);
      ownsSecret = stored !== undefined && stored.runnerId === runner.id;
      if (stored && !ownsSecret) notes.push(`${ctx.store.describe(removedShard)} holds runner #${stored.runnerId}'s token, not this runner's: left in place`);
    } else {
      notes.push(`secret ${ctx.store.describe(removedShard)} not checked (dry run without store credentials)`);
    }
    const secret = ownsSecret ? { secret: ctx.store.describe(removedShard) } : {};
    // A shard removed from the model may still have VMs running jobs until provision destroys them: never cut them off.
    const online = (await ctx.client.listRunnerManagers(runner.id, `list the managers of runner #${runner.id} (removed shard ${shardName})`)).filter((manager) => manager.status === "online");
    if (online.length > 0) {
      const why = `still has ${online.length} online manager(s) (${online.map((manager) => manager.system_id).join(", ")}): run provision to remove the shard's VMs first, then prune`;
      problems.push(`runner #${runner.id} of removed shard ${shardName}: ${why}`);
      return { ...head, deleted: false, ...secret, secretRemoved: false, notes, error: why };
    }
    if (ctx.dryRun) return { ...head, deleted: false, ...secret, secretRemoved: false, notes };
    ctx.log(`deleting runner #${runner.id} of removed shard ${shardName}`);
    await ctx.client.deleteRunner(runner.id, `delete runner #${runner.id} of removed shard ${shardName}`);
    // The secret goes after the runner: a failure in between leaves a token of a deleted runner, never a runner without its token.
    const secretRemoved = ownsSecret ? await ctx.store.remove(removedShard) : false;
    return { ...head, deleted: true, ...secret, secretRemoved, notes };
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    problems.push(`runner #${runner.id} of removed shard ${shardName}: ${error.message}`);
    return { ...head, deleted: false, secretRemoved: false, notes, error: error.message };
  }
}

async function pruneStaleManagers(ctx: PruneContext, shard: Shard, problems: string[]): Promise<StaleManager[]> {
  const nowMs = ctx.now();
  try {
    const stored = ctx.readSecrets ? await ctx.store.read(shard) : undefined;
    if (stored) ctx.rememberSecret(stored.token);
    const { runner } = await locateRunner(ctx, shard, desiredRunner(ctx.model, shard), stored);
    if (!runner) return [];
    const managers = await ctx.client.listRunnerManagers(runner.id, `list the managers of runner #${runner.id} (shard ${shard.name})`);
    const stale = managers.flatMap((manager) => {
      const reason = staleReason(manager, nowMs, ctx.staleAfterMs);
      return reason ? [{ manager, reason }] : [];
    });
    const token = stored && stored.runnerId === runner.id ? stored.token : undefined;
    const out: StaleManager[] = [];
    for (const { manager, reason } of stale) {
      const entry = { shard: shard.name, runnerId: runner.id, systemId: manager.system_id, status: manager.status, contactedAt: manager.contacted_at, lastContact: relativeTime(manager.contacted_at, nowMs), reason };
      if (ctx.dryRun) {
        out.push({ ...entry, deleted: false });
      } else if (!token) {
        const why = `cannot delete manager ${manager.system_id}: GitLab deletes managers only with the runner's own token, and the store holds none for runner #${runner.id} (run onboard for this cell first)`;
        problems.push(`shard ${shard.name}: ${why}`);
        out.push({ ...entry, deleted: false, error: why });
      } else {
        ctx.log(`deleting manager ${manager.system_id} of shard ${shard.name} (${reason})`);
        const deleted = await ctx.client.deleteRunnerManager(token, manager.system_id, `delete manager ${manager.system_id} of runner #${runner.id} (shard ${shard.name})`);
        out.push({ ...entry, deleted: true, ...(deleted ? {} : { reason: `${reason}; already gone` }) });
      }
    }
    return out;
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    problems.push(`shard ${shard.name}: ${error.message}`);
    return [];
  }
}

/** Why a manager counts as stale, or undefined when it does not. */
export function staleReason(manager: Pick<RunnerManager, "system_id" | "contacted_at" | "created_at">, nowMs: number, staleAfterMs: number): string | undefined {
  if (manager.system_id === TOKEN_CHECK_SYSTEM_ID) return "left behind by an interrupted token check";
  if (manager.contacted_at) {
    const age = nowMs - Date.parse(manager.contacted_at);
    return age > staleAfterMs ? `not seen for ${relativeTime(manager.contacted_at, nowMs).replace(" ago", "")}` : undefined;
  }
  const created = manager.created_at ? Date.parse(manager.created_at) : Number.NaN;
  if (Number.isNaN(created)) return undefined;
  return nowMs - created > staleAfterMs ? `never contacted GitLab, registered ${relativeTime(manager.created_at!, nowMs)}` : undefined;
}

export function formatPruneReport(report: PruneReport): string[] {
  const lines: string[] = [`  searched ${report.searched} for runners of removed shards; managers not seen for ${formatThreshold(report.staleAfterMs)} count as stale`];
  if (report.runners.length === 0) lines.push("  no runners of removed shards");
  for (const runner of report.runners) {
    const verb = runner.error ? "failed to delete" : runner.deleted ? "deleted" : "would delete";
    const secret = runner.secret && (!runner.deleted || runner.secretRemoved) ? ` and its secret (${runner.secret})` : "";
    lines.push(`  ${verb} runner #${runner.runnerId} (${runner.status}) of removed shard ${runner.shard}${secret}`);
    for (const note of runner.notes) lines.push(`      note: ${note}`);
    if (runner.error) lines.push(`      error: ${runner.error}`);
  }
  if (report.managers.length === 0) lines.push("  no stale managers");
  for (const manager of report.managers) {
    const verb = manager.error ? "cannot delete" : manager.deleted ? "deleted" : "would delete";
    lines.push(`  ${verb} manager ${manager.systemId} of shard ${manager.shard} (runner #${manager.runnerId}): ${manager.reason}`);
  }
  return lines;
}

function formatThreshold(ms: number): string {
  const hours = ms / 3600_000;
  return hours % 24 === 0 ? `${hours / 24}d` : `${hours}h`;
}
