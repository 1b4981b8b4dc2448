/** Summaries of a set of waits: mean and nearest-rank percentiles (the value a share of jobs waited at most). */
export interface WaitSummary {
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

export const NO_WAITS: WaitSummary = { mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };

/** Summary of the finite values of `values` (NaN, unknown, left out); all zero when there are none. */
export function summariseWaits(values: ArrayLike<number>): WaitSummary {
  const sorted = finiteSorted(values);
  if (sorted.length === 0) return NO_WAITS;
  let sum = 0;
  for (let index = 0; index < sorted.length; index += 1) sum += sorted[index];
  return { mean: sum / sorted.length, p50: percentileOfSorted(sorted, 0.5), p95: percentileOfSorted(sorted, 0.95), p99: percentileOfSorted(sorted, 0.99), max: sorted[sorted.length - 1] };
}

/** Nearest rank: the smallest value at or above which lies the share `q` of the values. */
export function percentileOfSorted(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function finiteSorted(values: ArrayLike<number>): Float64Array {
  let count = 0;
  for (let index = 0; index < values.length; index += 1) if (Number.isFinite(values[index])) count += 1;
  const sorted = new Float64Array(count);
  let at = 0;
  for (let index = 0; index < values.length; index += 1) if (Number.isFinite(values[index])) sorted[at++] = values[index];
  return sorted.sort();
}

export interface WorstHour {
  /** Unix seconds of the hour's start. */
  readonly startSeconds: number;
  readonly jobs: number;
  readonly p95: number;
}

/** The hour (by job creation) whose jobs' p95 wait is highest; undefined without jobs. `createdAt` ascending. */
export function worstHourByP95(createdAt: Float64Array, waits: Float64Array, windowStart: number): WorstHour | undefined {
  let worst: WorstHour | undefined;
  let first = 0;
  while (first < createdAt.length) {
    const hour = Math.floor((createdAt[first] - windowStart) / 3600);
    let end = first;
    while (end < createdAt.length && Math.floor((createdAt[end] - windowStart) / 3600) === hour) end += 1;
    const p95 = percentileOfSorted(waits.slice(first, end).sort(), 0.95);
    if (!worst || p95 > worst.p95) worst = { startSeconds: windowStart + hour * 3600, jobs: end - first, p95 };
    first = end;
  }
  return worst;
}
