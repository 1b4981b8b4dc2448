/**
 * A job load held column by column in typed arrays: a week of a million jobs is read, routed and
 * simulated without a million objects. Jobs are in order of creation (the reader sorts them).
 * Times are Unix seconds; durations seconds.
 */
export interface JobTrace {
  readonly count: number;
  /** When each job was created (Unix seconds), ascending. */
  readonly createdAt: Float64Array;
  /** How long each job ran, in seconds. */
  readonly duration: Float64Array;
  /** Index into `tagSets` of each job's tags. */
  readonly tagSet: Int32Array;
  /** Distinct tag sets of the trace, each sorted; [] is an untagged job. */
  readonly tagSets: readonly (readonly string[])[];
  /** The wait GitLab recorded (queued_duration, seconds); NaN where the trace has none. */
  readonly queuedDuration: Float64Array;
}

/** Builds a trace from rows in any order: sorts them by creation time (stable) and interns the tag sets. */
export class JobTraceBuilder {
  private createdAt: number[] = [];
  private duration: number[] = [];
  private tagSet: number[] = [];
  private queued: number[] = [];
  private readonly tagSets: string[][] = [];
  private readonly tagSetIndex = new Map<string, number>();

  add(createdAt: number, duration: number, tags: readonly string[], queuedDuration = Number.NaN): void {
    this.addWithTagSet(createdAt, duration, this.internTags(tags), queuedDuration);
  }

  /** The index of a tag set (in any order, repeats allowed), added on first sight. */
  internTags(tags: readonly string[]): number {
    const sorted = [...new Set(tags)].sort();
    const key = sorted.join("\u0000");
    let index = this.tagSetIndex.get(key);
    if (index === undefined) {
      index = this.tagSets.length;
      this.tagSets.push(sorted);
      this.tagSetIndex.set(key, index);
    }
    return index;
  }

  /** A job whose tags internTags already gave an index (a reader's fast path for repeated tag fields). */
  addWithTagSet(createdAt: number, duration: number, tagSet: number, queuedDuration = Number.NaN): void {
    this.createdAt.push(createdAt);
    this.duration.push(duration);
    this.tagSet.push(tagSet);
    this.queued.push(queuedDuration);
  }

  build(): JobTrace {
    const count = this.createdAt.length;
    const order = new Int32Array(count);
    let sorted = true;
    for (let index = 0; index < count; index += 1) {
      order[index] = index;
      if (index > 0 && this.createdAt[index] < this.createdAt[index - 1]) sorted = false;
    }
    // Typed-array sort is not stable; ties broken by the row's position keep the trace's order.
    if (!sorted) order.sort((a, b) => this.createdAt[a] - this.createdAt[b] || a - b);
    const trace: JobTrace = {
      count,
      createdAt: new Float64Array(count),
      duration: new Float64Array(count),
      tagSet: new Int32Array(count),
      tagSets: this.tagSets,
      queuedDuration: new Float64Array(count),
    };
    for (let index = 0; index < count; index += 1) {
      const row = order[index];
      trace.createdAt[index] = this.createdAt[row];
      trace.duration[index] = this.duration[row];
      trace.tagSet[index] = this.tagSet[row];
      trace.queuedDuration[index] = this.queued[row];
    }
    this.createdAt = [];
    this.duration = [];
    this.tagSet = [];
    this.queued = [];
    return trace;
  }
}
