/**
 * Durations beyond what the other side applies. GitLab caps every project's job timeout below one
 * month (app/models/project.rb: build_timeout "needs to be between 10 minutes and 1 month",
 * less_than MAX_BUILD_TIMEOUT = 1.month, which Rails counts as 30.436875 days), and a job's
 * timeout is the smaller of the project's and the runner's maximum_timeout. A runner maximum above
 * a month therefore never applies: a warning. (The lower bound, 10m, is an error in cross-checks.ts,
 * as GitLab refuses it: "needs to be at least 10 minutes", app/models/ci/runner.rb.)
 */
import { parseGoDurationSeconds } from "./duration";
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";

/** Rails' 1.month: 1/12 of a Gregorian year of 365.2425 days. */
export const GITLAB_MAX_JOB_TIMEOUT_SECONDS = Math.round(30.436875 * 24 * 3600);

export function checkDurations(model: RunnerModel): CrossCheckFinding[] {
  return model.shards.flatMap((shard, index): CrossCheckFinding[] => {
    const seconds = parseGoDurationSeconds(shard.maximum_timeout);
    if (seconds === undefined || seconds < GITLAB_MAX_JOB_TIMEOUT_SECONDS) return [];
    return [
      {
        severity: "warning",
        path: ["shards", index, "maximum_timeout"],
        expected: "less than a month (730h): GitLab caps every project's job timeout below one month, and a job's timeout is the smaller of the two, so a longer maximum never applies",
        received: JSON.stringify(shard.maximum_timeout),
      },
    ];
  });
}
