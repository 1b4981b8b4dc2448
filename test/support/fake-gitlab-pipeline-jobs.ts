/**
 * A pipeline's jobs in the fake GitLab (./fake-gitlab.ts): GET /projects/:id/pipelines/:pipeline_id/jobs
 * with `scope[]` (doc/api/jobs.md, "List pipeline jobs": scope is one status or an array of them), offset
 * pages; each job with its name, status and `user` (the person who started it: for a manual job, the
 * one who ran it, as GITLAB_USER_LOGIN is in the job).
 */
import { HttpAnswer, paginate } from "./fake-gitlab-http";

export interface FakePipelineJob {
  readonly id: number;
  readonly name: string;
  status: string;
  readonly user: { readonly username: string } | null;
}

export const PIPELINE_JOBS_ROUTE = /^\/projects\/([^/]+)\/pipelines\/(\d+)\/jobs$/;

export class FakePipelineJobs {
  private readonly byPipeline = new Map<string, FakePipelineJob[]>();
  private nextId = 50_000;

  add(projectId: string, pipelineId: number, job: Omit<FakePipelineJob, "id">): FakePipelineJob {
    const key = `${projectId}#${pipelineId}`;
    const created = { id: this.nextId++, ...job };
    this.byPipeline.set(key, [...(this.byPipeline.get(key) ?? []), created]);
    return created;
  }

  handle(match: RegExpMatchArray, url: URL): HttpAnswer {
    const jobs = this.byPipeline.get(`${decodeURIComponent(match[1])}#${match[2]}`) ?? [];
    const scopes = [...url.searchParams.getAll("scope[]"), ...url.searchParams.getAll("scope")];
    return paginate(url, jobs.filter((job) => scopes.length === 0 || scopes.includes(job.status)));
  }
}
