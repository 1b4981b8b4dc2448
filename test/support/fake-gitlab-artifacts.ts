/**
 * Job artifacts in the fake GitLab (./fake-gitlab.ts): GET
 * /projects/:id/jobs/artifacts/:ref_name/raw/*artifact_path?job=<name> (doc/api/job_artifacts.md,
 * "download a single artifact file by reference name"), the file of the named job in the ref's
 * latest successful pipeline. One of the few routes a CI_JOB_TOKEN may call.
 */
import { HttpAnswer } from "./fake-gitlab-http";

/** :ref_name arrives URL-encoded ("refs%2Fmerge-requests%2F17%2Fhead"). */
export const ARTIFACT_ROUTE = /^\/projects\/([^/]+)\/jobs\/artifacts\/([^/]+)\/raw\/(.+)$/;

export class FakeJobArtifacts {
  private readonly files = new Map<string, string>();

  /** A file `path` that job `job` left in the latest successful pipeline of `ref`. */
  add(projectId: string, ref: string, job: string, path: string, content: string): void {
    this.files.set(key(projectId, ref, job, path), content);
  }

  remove(projectId: string, ref: string, job: string, path: string): void {
    this.files.delete(key(projectId, ref, job, path));
  }

  handle(match: RegExpMatchArray, url: URL): HttpAnswer {
    const job = url.searchParams.get("job");
    if (job === null) return new HttpAnswer(400, { error: "job is missing" });
    const content = this.files.get(key(decodeURIComponent(match[1]), decodeURIComponent(match[2]), job, decodeURIComponent(match[3])));
    if (content === undefined) return new HttpAnswer(404, { message: "404 Not found" });
    return new HttpAnswer(200, content, { "content-type": "application/octet-stream" });
  }
}

function key(projectId: string, ref: string, job: string, path: string): string {
  return JSON.stringify([projectId, ref, job, path]);
}
