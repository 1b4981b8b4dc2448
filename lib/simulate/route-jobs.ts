/**
 * Which shard runs each job of a trace. GitLab gives a job to a runner whose tags include all of
 * the job's tags; an untagged job only to a runner with run_untagged (docs.gitlab.com/ci/yaml/#tags,
 * "the runner must have all the tags"). Where several shards match, GitLab gives the job to whichever
 * of their managers asks first; the simulation cannot know that, so it gives the job to the first
 * matching shard in the model's order, and counts the jobs other shards could also have run. A job no
 * shard matches stays pending in GitLab: it is counted as unmatched and not simulated.
 */
import type { JobTrace } from "./job-trace";

export interface RoutableShard {
  readonly name: string;
  readonly tags: readonly string[];
  readonly runUntagged: boolean;
}

export interface JobRouting {
  /** Per shard, its jobs' indexes in the trace, in order of creation. */
  readonly jobsOf: readonly Int32Array[];
  /** Jobs of each shard that a later shard in the model matches too. */
  readonly sharedWithLater: readonly number[];
  readonly unmatched: number;
  /** Tag sets no shard takes, with their job counts, most jobs first. */
  readonly unmatchedTagSets: ReadonlyArray<{ readonly tags: readonly string[]; readonly jobs: number }>;
}

export function shardMatches(shard: RoutableShard, tags: readonly string[]): boolean {
  if (tags.length === 0) return shard.runUntagged;
  return tags.every((tag) => shard.tags.includes(tag));
}

export function routeJobs(trace: JobTrace, shards: readonly RoutableShard[]): JobRouting {
  const firstMatch = trace.tagSets.map((tags) => shards.findIndex((shard) => shardMatches(shard, tags)));
  const alsoLater = trace.tagSets.map((tags, index) => firstMatch[index] >= 0 && shards.some((shard, shardIndex) => shardIndex > firstMatch[index] && shardMatches(shard, tags)));
  const counts = new Array<number>(shards.length).fill(0);
  const unmatchedBySet = new Array<number>(trace.tagSets.length).fill(0);
  for (let job = 0; job < trace.count; job += 1) {
    const shard = firstMatch[trace.tagSet[job]];
    if (shard >= 0) counts[shard] += 1;
    else unmatchedBySet[trace.tagSet[job]] += 1;
  }
  const jobsOf = counts.map((count) => new Int32Array(count));
  const filled = new Array<number>(shards.length).fill(0);
  const sharedWithLater = new Array<number>(shards.length).fill(0);
  for (let job = 0; job < trace.count; job += 1) {
    const set = trace.tagSet[job];
    const shard = firstMatch[set];
    if (shard < 0) continue;
    jobsOf[shard][filled[shard]] = job;
    filled[shard] += 1;
    if (alsoLater[set]) sharedWithLater[shard] += 1;
  }
  const unmatchedTagSets = unmatchedBySet
    .map((jobs, index) => ({ tags: trace.tagSets[index], jobs }))
    .filter((entry) => entry.jobs > 0)
    .sort((a, b) => b.jobs - a.jobs);
  return { jobsOf, sharedWithLater, unmatched: unmatchedTagSets.reduce((sum, entry) => sum + entry.jobs, 0), unmatchedTagSets };
}
