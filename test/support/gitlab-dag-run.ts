/**
 * What happens when GitLab runs a created pipeline whose order is its jobs' `needs` (one stage), as
 * doc/ci/yaml/_index.md (`needs`) and doc/ci/jobs/job_control.md describe it:
 * - a job runs once every job it needs has finished successfully, or failed with allow_failure;
 * - a needed job that failed (without allow_failure) or was skipped leaves the job skipped;
 * - a `when: manual` job waits (status manual) until a person plays it; allow_failure: true keeps it from blocking.
 * Each job that runs ends as `outcomes` says (default success), so a test decides what a gate does.
 */
import type { CreatedJob } from "../../lib/ci/gitlab-ci/pipeline";

/** created: never started (it needs a manual job nobody played). */
export type RunStatus = "success" | "failed" | "skipped" | "manual" | "created";

export function runPipeline(jobs: readonly CreatedJob[], outcomes: Readonly<Record<string, "success" | "failed">> = {}, played: readonly string[] = []): Record<string, RunStatus> {
  const status: Record<string, RunStatus> = {};
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const needsOf = (job: CreatedJob): string[] => (Array.isArray(job.definition.needs) ? job.definition.needs : []).map((need: unknown) => (typeof need === "string" ? need : (need as { job: string }).job));
  const allowed = (job: CreatedJob) => job.allowFailure === true || (typeof job.allowFailure === "object" && job.allowFailure !== null);
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const job of jobs) {
      if (status[job.name] !== undefined) continue;
      const needs = needsOf(job).map((name) => ({ name, job: byName.get(name), status: status[name] }));
      // A need still to finish, or waiting for a person, holds the job.
      if (needs.some((need) => need.status === undefined || need.status === "manual" || need.status === "created")) continue;
      const blocked = needs.some((need) => need.status === "skipped" || (need.status === "failed" && !(need.job && allowed(need.job))));
      if (blocked) status[job.name] = "skipped";
      else if (job.when === "manual" && !played.includes(job.name)) status[job.name] = "manual";
      else status[job.name] = outcomes[job.name] ?? "success";
      progressed = true;
    }
  }
  for (const job of jobs) status[job.name] ??= "created";
  return status;
}
