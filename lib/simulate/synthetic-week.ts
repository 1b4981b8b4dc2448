/**
 * `simulate --synthetic office-week`: a made-up but plausible week of CI jobs for a model's shards,
 * the load the examples, the tests and a review use when a team has no exported trace.
 *
 * The `office-week` profile, in the time zone given (by default the model's office-hours policy zone):
 * - weekdays 08:00-18:00 carry the load (weight 1), 06:00-08:00 and 18:00-22:00 a quarter of it,
 *   other hours and the weekend a twentieth;
 * - Monday 09:00-12:00 is the week's peak (weight 1.6): the weekend's merge requests all start at once;
 * - every night at 02:00 a batch of scheduled pipelines (10% of the week's jobs, a seventh each night)
 *   is created within ten minutes;
 * - arrivals are Poisson minute by minute at those rates; durations are log-normal, median 5 minutes
 *   (spread 0.8), at least 10 s and at most the shard's maximum_timeout;
 * - each shard gets an equal share of the jobs, tagged with all of the shard's tags; a shard with
 *   run_untagged gets half of its share untagged.
 * The week starts on the Monday given (default 2024-01-08, an ordinary week) at 00:00 in the time zone.
 * Same inputs and seed, same week, on any machine.
 */
import { localClock } from "../cost/policy-time";
import { JobTraceBuilder, type JobTrace } from "./job-trace";
import { poisson, seededRandom, standardNormal } from "./seeded-random";

// Module constants, not reads of the global Math: under jest (a vm context) each such read goes through
// the context's interceptor, several times slower in these loops (as in ./simulate-fleet.ts).
const { exp, floor, max, min, round } = Math;

export const SYNTHETIC_PROFILES = ["office-week"] as const;
export type SyntheticProfile = (typeof SYNTHETIC_PROFILES)[number];

export const DEFAULT_SYNTHETIC_START = "2024-01-08";
export const DEFAULT_JOBS_PER_SHARD = 5000;
export const DEFAULT_SEED = 1;

export interface SyntheticShard {
  readonly tags: readonly string[];
  readonly runUntagged: boolean;
  /** maximum_timeout in seconds: no job runs longer. */
  readonly maxDurationSeconds: number;
}

export interface SyntheticWeekOptions {
  readonly profile: SyntheticProfile;
  readonly shards: readonly SyntheticShard[];
  /** Jobs of the whole week, over every shard. @default 5000 per shard */
  readonly jobs?: number;
  readonly seed?: number;
  /** IANA zone of the office hours. */
  readonly timezone: string;
  /** The Monday the week starts (YYYY-MM-DD, midnight in `timezone`). @default 2024-01-08 */
  readonly startDate?: string;
}

const MINUTES_PER_WEEK = 7 * 24 * 60;
const BATCH_SHARE = 0.1;
const BATCH_MINUTES = 10;
const MEDIAN_DURATION_SECONDS = 300;
const DURATION_SPREAD = 0.8;

/** Unix seconds of midnight starting `date` (YYYY-MM-DD) in a time zone. */
export function zoneMidnight(date: string, timezone: string): number {
  const [year, month, day] = date.split("-").map(Number);
  const wallClock = Date.UTC(year, month - 1, day);
  const toLocal = localClock(timezone);
  // The offset at a guess, then again at the answer (a zone whose offset changes near midnight).
  let utc = wallClock - (toLocal(wallClock) - wallClock);
  utc = wallClock - (toLocal(utc) - utc);
  return utc / 1000;
}

/** Relative arrival rate of a local minute of the week (0 = Monday 00:00). */
export function officeWeekWeight(minuteOfWeek: number): number {
  const day = floor(minuteOfWeek / 1440);
  const hour = floor((minuteOfWeek % 1440) / 60);
  if (day >= 5) return 0.05;
  if (day === 0 && hour >= 9 && hour < 12) return 1.6;
  if (hour >= 8 && hour < 18) return 1;
  if ((hour >= 6 && hour < 8) || (hour >= 18 && hour < 22)) return 0.25;
  return 0.05;
}

export function syntheticWeek(options: SyntheticWeekOptions): JobTrace {
  const random = seededRandom(options.seed ?? DEFAULT_SEED);
  const totalJobs = options.jobs ?? DEFAULT_JOBS_PER_SHARD * options.shards.length;
  const start = zoneMidnight(options.startDate ?? DEFAULT_SYNTHETIC_START, options.timezone);
  const toLocal = localClock(options.timezone);
  const builder = new JobTraceBuilder();
  const shardCount = options.shards.length;
  if (shardCount === 0 || totalJobs <= 0) return builder.build();

  // Minute by minute in UTC; each minute's weight is read at its local wall-clock time, so a week
  // across a daylight-saving change keeps office hours at 08:00 local.
  const weights = new Float64Array(MINUTES_PER_WEEK);
  let weightSum = 0;
  for (let minute = 0; minute < MINUTES_PER_WEEK; minute += 1) {
    const utcMs = (start + minute * 60) * 1000;
    const localMinute = floor((toLocal(utcMs) - toLocal(start * 1000)) / 60_000);
    weights[minute] = officeWeekWeight(((localMinute % MINUTES_PER_WEEK) + MINUTES_PER_WEEK) % MINUTES_PER_WEEK);
    weightSum += weights[minute];
  }
  const interactive = (totalJobs * (1 - BATCH_SHARE)) / weightSum;
  const batchPerMinute = (totalJobs * BATCH_SHARE) / 7 / BATCH_MINUTES;
  const batchStarts = new Set<number>();
  for (let day = 0; day < 7; day += 1) batchStarts.add(round((zoneMidnight(addDays(options.startDate ?? DEFAULT_SYNTHETIC_START, day), options.timezone) - start) / 60) + 120);

  let batchUntil = -1;
  for (let minute = 0; minute < MINUTES_PER_WEEK; minute += 1) {
    if (batchStarts.has(minute)) batchUntil = minute + BATCH_MINUTES;
    const mean = weights[minute] * interactive + (minute < batchUntil ? batchPerMinute : 0);
    const count = poisson(random, mean);
    for (let job = 0; job < count; job += 1) {
      const shard = options.shards[floor(random() * shardCount)];
      const createdAt = start + (minute + random()) * 60;
      const duration = min(shard.maxDurationSeconds, max(10, round(MEDIAN_DURATION_SECONDS * exp(DURATION_SPREAD * standardNormal(random)))));
      const untagged = shard.runUntagged && random() < 0.5;
      builder.add(createdAt, duration, untagged ? [] : shard.tags);
    }
  }
  return builder.build();
}

function addDays(date: string, days: number): string {
  const [year, month, day] = date.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}
