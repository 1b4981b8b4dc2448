/**
 * What one run knows of a cell's runners in GitLab, asked once: each listing (an owner's
 * runners of one type, optionally with tags) is fetched once per run, and each runner's
 * details once per run, whichever shard (or prune, or status) asks first. Shards that
 * ask at the same time share the answer in flight.
 *
 * This is what keeps a run linear in its shards: before it, every shard listed its
 * owner's runners and read the details of the runners sharing its tags, so a cell whose
 * shards share a tag (both examples: `docker`) cost shards × runners requests. And the
 * cell's tag (lib/model/cell-tag.ts) keeps it apart from the instance's other runners:
 * only the cell's own are read.
 *
 * Details only change through this run (it keeps the marker it writes), so they are
 * not read again. Listings do change under another operator's run; a lookup that must
 * see runners created since (after a create, ../onboard/create-runner.ts) asks
 * `relisted()`, which lists again but keeps the details already read.
 */
import pLimit from "p-limit";
import type { GitLabClient, NewRunner, RunnerDetails, RunnerScope, RunnerSummary } from "./client";
import type { RunnerModel, Shard } from "../model/schema";
import { cellTag } from "../model/cell-tag";
import { hasRunnerMarker, runnerScope } from "./runner-spec";

/** Runner details read at once while searching; the pacer (./request-pacer.ts) still sets the rate. */
const DETAIL_READS_AT_ONCE = 4;

type Details = Promise<RunnerDetails | undefined>;

/** Listings (by scope) and runner details (by id) of one GitLab, as a run learnt them; cells on that GitLab may share it (./traffic.ts). */
export interface RunnerKnowledge {
  readonly listings: Map<string, Promise<RunnerSummary[]>>;
  readonly details: Map<number, Details>;
}

export function newRunnerKnowledge(): RunnerKnowledge {
  return { listings: new Map(), details: new Map() };
}

export class RunnerCensus {
  private readonly listings: Map<string, Promise<RunnerSummary[]>>;
  private readonly details: Map<number, Details>;
  private readonly limit = pLimit(DETAIL_READS_AT_ONCE);

  constructor(
    readonly client: GitLabClient,
    readonly model: RunnerModel,
    /** What other cells of the run learnt of the same GitLab. @default nothing yet */
    known: RunnerKnowledge = newRunnerKnowledge(),
  ) {
    this.listings = known.listings;
    this.details = known.details;
  }

  /** All pages of the listing for `scope`, fetched once per run. */
  listing(scope: RunnerScope, action: string): Promise<RunnerSummary[]> {
    const key = scopeKey(scope);
    let listed = this.listings.get(key);
    if (!listed) {
      listed = this.client.listRunners(scope, action);
      this.listings.set(key, listed);
    }
    return listed;
  }

  /** GET /runners/:id once per run; undefined when the runner does not exist. */
  runner(id: number, action: string): Details {
    let read = this.details.get(id);
    if (!read) {
      read = this.limit(() => this.client.getRunner(id, action));
      this.details.set(id, read);
    }
    return read;
  }

  /** A runner this run created: its details are what it asked for, no need to read them. */
  created(id: number, desired: NewRunner): void {
    const details: RunnerDetails = { ...desired, id, tag_list: [...desired.tag_list], online: false, status: "never_contacted" };
    this.details.set(id, Promise.resolve(details));
  }

  /** A runner this run deleted. */
  deleted(id: number): void {
    this.details.set(id, Promise.resolve(undefined));
  }

  /** The same census with its listings fetched again (runners another run created since), keeping the details read. */
  relisted(): RunnerCensus {
    return new RunnerCensus(this.client, this.model, { listings: new Map(), details: this.details });
  }

  /**
   * Runners carrying the shard's marker, oldest first. The listing gives no maintenance
   * note, so details are read, in this order, stopping at the first step that finds one:
   * 1. the runners listed with the cell's tag (lib/model/cell-tag.ts) whose description is
   *    the shard's: the usual case, one read per shard;
   * 2. the rest of the cell's tagged runners (a description edited by hand), each read
   *    once per run whichever shard asks;
   * 3. runners from before the cell's tag: in the owner's whole listing, those whose
   *    description is the shard's (the next onboard run adds the tag to them).
   * So a lookup reads only the cell's runners, never the instance's others, whatever tags
   * they share with the cell's shards.
   */
  async markedRunners(shard: Shard, desired: NewRunner): Promise<RunnerDetails[]> {
    const tag = cellTag(this.model);
    const tagged = await this.listing(runnerScope(desired, [tag]), `list the ${desired.runner_type} runners tagged ${tag} to find shard ${shard.name}'s`);
    const described = (runners: readonly RunnerSummary[]) => runners.filter((runner) => runner.description === desired.description).map((runner) => runner.id);
    const likely = described(tagged);
    const byDescription = await this.markedAmong(shard, likely);
    if (byDescription.length > 0) return byDescription;
    const renamed = await this.markedAmong(shard, tagged.map((runner) => runner.id).filter((id) => !likely.includes(id)));
    if (renamed.length > 0) return renamed;
    const taggedIds = new Set(tagged.map((runner) => runner.id));
    const everyRunner = await this.listing(runnerScope(desired), `list the ${desired.runner_type} runners to find shard ${shard.name}'s, from before the tag ${tag}`);
    return this.markedAmong(shard, described(everyRunner).filter((id) => !taggedIds.has(id)));
  }

  private async markedAmong(shard: Shard, ids: readonly number[]): Promise<RunnerDetails[]> {
    const sorted = [...ids].sort((a, b) => a - b);
    const details = await Promise.all(sorted.map((id) => this.runner(id, `read runner #${id} while searching for shard ${shard.name}`)));
    return details.filter((runner): runner is RunnerDetails => runner !== undefined && hasRunnerMarker(runner, this.model, shard));
  }
}

function scopeKey(scope: RunnerScope): string {
  const tags = [...new Set(scope.tags ?? [])].sort().join(",");
  return `${scope.runnerType} group=${scope.groupId ?? ""} project=${scope.projectId ?? ""} tags=${tags}`;
}
