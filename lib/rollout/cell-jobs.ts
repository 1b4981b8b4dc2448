/**
 * The gate's jobs of a cell, from GitLab: the cell's runners are the ones its shards' lookups find through
 * the cell tag runner-fleet:<cell> (GET /runners?tag_list=..., lib/gitlab/runner-census.ts and
 * locate-runner.ts), and their jobs come from GET /runners/:id/jobs?order_by=id&sort=desc (doc/api/runners.md,
 * "List jobs processed by a runner"), page by page (x-next-page) until a page ends before the window.
 * The job entity gives status, failure_reason (gitlab-org/gitlab MR 74888), queued_duration and created_at.
 *
 * A gate polls: what an earlier poll read is kept by job id, and a later poll pages back only to the
 * wave's start (jobs there may have finished since), never again through last week's jobs.
 */
import type { GitLabClient, RunnerJobTiming } from "../gitlab/client";
import { locateRunner } from "../gitlab/locate-runner";
import type { RunnerCensus } from "../gitlab/runner-census";
import { desiredRunner } from "../gitlab/runner-spec";
import type { RunnerModel } from "../model/schema";
import type { JobSample } from "./gate";

/** Pages per runner and poll at most (100 jobs each): bounds one gate's requests. */
export const MAX_GATE_PAGES_PER_RUNNER = 500;

export interface CellConnection {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  readonly census: RunnerCensus;
}

export class CellJobs {
  private readonly known = new Map<number, Map<number, RunnerJobTiming>>();
  /** Per runner: every job created at or after this was read. */
  private readonly coveredFrom = new Map<number, number>();
  /** Per runner: the poll it was last read in. */
  private readonly readInPoll = new Map<number, number>();
  private runnerIds?: number[];

  constructor(
    private readonly connection: CellConnection,
    private readonly log: (line: string) => void,
    private readonly maxPages = MAX_GATE_PAGES_PER_RUNNER,
  ) {}

  /**
   * Jobs created in [fromMs, toMs) at poll `pollMs`; `refreshFromMs`: a later poll reads again back to here
   * (jobs after it may have finished since), not further once the older pages were read.
   */
  async jobs(fromMs: number, toMs: number, refreshFromMs: number, pollMs: number): Promise<JobSample[]> {
    const samples: JobSample[] = [];
    for (const runnerId of await this.runners()) {
      // A window wholly before refreshFromMs that was read once does not change: no request.
      // So does any window once this poll read the runner back past its start.
      const covered = (this.coveredFrom.get(runnerId) ?? Number.POSITIVE_INFINITY) <= fromMs;
      const settled = covered && (toMs <= refreshFromMs || this.readInPoll.get(runnerId) === pollMs);
      const jobs = settled ? (this.known.get(runnerId) ?? new Map<number, RunnerJobTiming>()) : await this.read(runnerId, fromMs, refreshFromMs, pollMs);
      for (const job of jobs.values()) {
        const created = Date.parse(job.created_at);
        if (created >= fromMs && created < toMs) {
          samples.push({ id: job.id, createdMs: created, status: job.status, failureReason: job.failure_reason ?? null, queuedSeconds: job.queued_duration });
        }
      }
    }
    return samples;
  }

  private async runners(): Promise<number[]> {
    if (this.runnerIds) return this.runnerIds;
    const ids: number[] = [];
    const { model } = this.connection;
    for (const shard of model.shards) {
      const { runner } = await locateRunner(this.connection, shard, desiredRunner(model, shard), undefined);
      if (runner) ids.push(runner.id);
      else this.log(`cell ${model.cell.id}: shard ${shard.name} has no runner in GitLab; it adds no jobs`);
    }
    this.runnerIds = ids;
    return ids;
  }

  /** Reads pages until one ends before `fromMs`, or before `refreshFromMs` when everything from `fromMs` on was read already. */
  private async read(runnerId: number, fromMs: number, refreshFromMs: number, pollMs: number): Promise<Map<number, RunnerJobTiming>> {
    const jobs = this.known.get(runnerId) ?? new Map<number, RunnerJobTiming>();
    const covered = this.coveredFrom.get(runnerId) ?? Number.POSITIVE_INFINITY;
    const stopBefore = covered <= fromMs ? Math.max(fromMs, refreshFromMs) : fromMs;
    let page: number | undefined = 1;
    let pages = 0;
    while (page !== undefined && pages < this.maxPages) {
      const listed: { readonly jobs: RunnerJobTiming[]; readonly nextPage?: number } = await this.connection.client.listRunnerJobsPage(runnerId, page, `list the jobs of runner #${runnerId} (cell ${this.connection.model.cell.id}), page ${page}`);
      pages += 1;
      for (const job of listed.jobs) jobs.set(job.id, job);
      const oldest = listed.jobs[listed.jobs.length - 1];
      page = oldest && Date.parse(oldest.created_at) < stopBefore ? undefined : listed.nextPage;
    }
    if (page === undefined) this.coveredFrom.set(runnerId, Math.min(covered, stopBefore));
    else this.log(`cell ${this.connection.model.cell.id}: stopped after ${pages} pages of runner #${runnerId}'s jobs; older jobs of the baseline are missing`);
    this.readInPoll.set(runnerId, pollMs);
    this.known.set(runnerId, jobs);
    return jobs;
  }
}
