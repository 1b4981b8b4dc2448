/** The synthetic office week (./synthetic-week.ts) for a model's shards, in its office-hours zone unless told otherwise. */
import { parseGoDurationSeconds } from "../model/duration";
import type { RunnerModel } from "../model/schema";
import type { JobTrace } from "./job-trace";
import { DEFAULT_SEED, syntheticWeek } from "./synthetic-week";

export interface ModelWeekOptions {
  readonly seed?: number;
  readonly jobs?: number;
  readonly timezone?: string;
  readonly startDate?: string;
}

export function syntheticTraceFor(model: RunnerModel, options: ModelWeekOptions = {}): JobTrace {
  return syntheticWeek({
    profile: "office-week",
    shards: model.shards.map((shard) => ({ tags: shard.tags, runUntagged: shard.run_untagged, maxDurationSeconds: parseGoDurationSeconds(shard.maximum_timeout) ?? 3600 })),
    seed: options.seed ?? DEFAULT_SEED,
    ...(options.jobs === undefined ? {} : { jobs: options.jobs }),
    timezone: options.timezone ?? officeTimezone(model),
    ...(options.startDate === undefined ? {} : { startDate: options.startDate }),
  });
}

/** The zone of the model's first policy not in UTC: where its office hours are. */
export function officeTimezone(model: RunnerModel): string {
  for (const shard of model.shards) for (const policy of shard.autoscaling.policies) if (policy.timezone !== "UTC") return policy.timezone;
  return "UTC";
}
