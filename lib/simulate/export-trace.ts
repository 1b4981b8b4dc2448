/**
 * `simulate --export`: the trace of a cell's fleet from GitLab. For each shard, its runner (found by
 * the marker in its maintenance note, lib/gitlab/locate-runner.ts, through the run's census) and the
 * jobs it ran, from GET /runners/:id/jobs (doc/api/runners.md, "List jobs processed by a runner":
 * order_by=id, sort=desc), newest first, page by page until a page ends before the window starts.
 * Requests: one listing of the cell's runners (the census), then per shard 1 + (jobs in the window
 * / 100) pages, each paced by the run's request pacer (lib/gitlab/request-pacer.ts): the same
 * budget and rate limit as every other command. A job's tags are its tag_list where GitLab gives
 * it, else the runner's tags but the cell's own (the job ran there, so the runner had all of its tags); jobs that never
 * started or have no duration yet (running) are left out.
 */
import { isReservedTag } from "../model/cell-tag";
import type { RunnerModel } from "../model/schema";
import type { GitLabClient, RunnerJobTiming } from "../gitlab/client";
import { locateRunner } from "../gitlab/locate-runner";
import type { RunnerCensus } from "../gitlab/runner-census";
import { desiredRunner } from "../gitlab/runner-spec";
import { JobTraceBuilder, type JobTrace } from "./job-trace";

export const DEFAULT_EXPORT_DAYS = 7;
/** Pages per runner at most (100 jobs each): a bound on one export's requests. */
export const MAX_PAGES_PER_RUNNER = 2000;

export interface ExportContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  readonly census: RunnerCensus;
  /** Unix seconds. */
  readonly fromSeconds: number;
  readonly toSeconds: number;
  readonly log: (line: string) => void;
  /** @default MAX_PAGES_PER_RUNNER */
  readonly maxPagesPerRunner?: number;
}

export interface ShardExport {
  readonly shard: string;
  readonly runnerId: number | null;
  readonly jobs: number;
  readonly pages: number;
}

export async function exportTrace(ctx: ExportContext): Promise<{ readonly trace: JobTrace; readonly shards: readonly ShardExport[] }> {
  const builder = new JobTraceBuilder();
  const shards: ShardExport[] = [];
  for (const shard of ctx.model.shards) {
    const { runner } = await locateRunner(ctx, shard, desiredRunner(ctx.model, shard), undefined);
    if (!runner) {
      ctx.log(`shard ${shard.name}: no runner found in GitLab; its jobs are not in the trace`);
      shards.push({ shard: shard.name, runnerId: null, jobs: 0, pages: 0 });
      continue;
    }
    // The cell's own tag (runner-fleet:<cell>, lib/model/cell-tag.ts) is onboard's, never a job's.
    const runnerTags = (runner.tag_list ?? [...shard.tags]).filter((tag) => !isReservedTag(tag));
    let page: number | undefined = 1;
    let pages = 0;
    let jobs = 0;
    while (page !== undefined && pages < (ctx.maxPagesPerRunner ?? MAX_PAGES_PER_RUNNER)) {
      const listed: { readonly jobs: RunnerJobTiming[]; readonly nextPage?: number } = await ctx.client.listRunnerJobsPage(runner.id, page, `list the jobs of runner #${runner.id} (shard ${shard.name}), page ${page}`);
      pages += 1;
      for (const job of listed.jobs) {
        const created = Date.parse(job.created_at) / 1000;
        if (!(created >= ctx.fromSeconds && created < ctx.toSeconds) || job.started_at === null || job.duration === null) continue;
        builder.add(created, job.duration, job.tag_list ?? runnerTags, job.queued_duration ?? Number.NaN);
        jobs += 1;
      }
      page = listed.nextPage;
      // Newest first: once a page ends before the window, every later page does too (ids grow with creation).
      const oldest = listed.jobs[listed.jobs.length - 1];
      if (page !== undefined && oldest && newestFirst(listed.jobs) && Date.parse(oldest.created_at) / 1000 < ctx.fromSeconds) page = undefined;
    }
    if (page !== undefined) ctx.log(`shard ${shard.name}: stopped after ${pages} pages of runner #${runner.id}'s jobs; the oldest of the window may be missing`);
    shards.push({ shard: shard.name, runnerId: runner.id, jobs, pages });
  }
  return { trace: builder.build(), shards };
}

/** Some GitLab versions ignored sort=desc (gitlab-org/gitlab issue 364348): pages in ascending order cannot end the listing early. */
function newestFirst(jobs: readonly RunnerJobTiming[]): boolean {
  return jobs.length < 2 || jobs[0].id > jobs[jobs.length - 1].id;
}
