/**
 * Merge requests in the fake GitLab (./fake-gitlab.ts):
 * - notes: GET (sort desc and 20 a page by default, GitLab's offset pagination), POST to
 *   create, PUT to edit; 404 {"message"} for a merge request or note that does not exist;
 * - GET /projects/:id/repository/commits/:sha/merge_requests: the merge requests a commit
 *   belongs to (doc/api/commits.md).
 */
import { HttpAnswer, paginate } from "./fake-gitlab-http";

export interface FakeNote {
  id: number;
  body: string;
  system: boolean;
  author: { id: number; username: string };
  created_at: string;
  updated_at: string;
}

export interface FakeMergeRequest {
  readonly projectId: string;
  readonly iid: number;
  state: "opened" | "merged" | "closed";
  /** Commits it holds; a merged one also the commit it was merged as. */
  commits: string[];
}

/** The notes route: /projects/:id/merge_requests/:iid/notes(/:note_id). */
export const NOTES_ROUTE = /^\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/;
/** GET /projects/:id/repository/commits/:sha/merge_requests */
export const COMMIT_MERGE_REQUESTS_ROUTE = /^\/projects\/([^/]+)\/repository\/commits\/([0-9a-f]+)\/merge_requests$/;

export class FakeMergeRequests {
  private readonly byMergeRequest = new Map<string, FakeNote[]>();
  private readonly mergeRequests: FakeMergeRequest[] = [];
  private nextId = 1000;

  /** A merge request that exists, addressed as CI does (project id, or its path as sent, decoded). */
  addMergeRequest(projectId: string, iid: number, fields: Partial<Pick<FakeMergeRequest, "state" | "commits">> = {}): FakeMergeRequest {
    this.byMergeRequest.set(key(projectId, iid), this.byMergeRequest.get(key(projectId, iid)) ?? []);
    const mergeRequest: FakeMergeRequest = { projectId, iid, state: "opened", commits: [], ...fields };
    this.mergeRequests.push(mergeRequest);
    return mergeRequest;
  }

  /** GET /projects/:id/repository/commits/:sha/merge_requests */
  ofCommit(match: RegExpMatchArray): HttpAnswer {
    const projectId = decodeURIComponent(match[1]);
    const found = this.mergeRequests.filter((candidate) => candidate.projectId === projectId && candidate.commits.includes(match[2]));
    return new HttpAnswer(
      200,
      found.map((mergeRequest) => ({ iid: mergeRequest.iid, project_id: Number(projectId) || projectId, state: mergeRequest.state })),
    );
  }

  /** Notes of one merge request, in creation order. */
  notes(projectId: string, iid: number): FakeNote[] {
    return this.byMergeRequest.get(key(projectId, iid)) ?? [];
  }

  /** Adds notes as if people (or GitLab itself, with `system`) had commented. */
  seed(projectId: string, iid: number, bodies: readonly string[], options: { system?: boolean } = {}): void {
    for (const body of bodies) this.add(key(projectId, iid), body, options.system ?? false);
  }

  handle(method: string, match: RegExpMatchArray, url: URL, body: Record<string, unknown>): HttpAnswer {
    const notes = this.byMergeRequest.get(key(decodeURIComponent(match[1]), Number(match[2])));
    if (!notes) return new HttpAnswer(404, { message: "404 Not found" });
    const noteId = match[3] === undefined ? undefined : Number(match[3]);
    if (method === "GET" && noteId === undefined) {
      const descending = (url.searchParams.get("sort") ?? "desc") === "desc";
      return paginate(url, descending ? [...notes].reverse() : [...notes]);
    }
    if (method === "POST" && noteId === undefined) {
      if (typeof body.body !== "string" || body.body === "") return new HttpAnswer(400, { error: "body is missing" });
      return new HttpAnswer(201, this.add(key(decodeURIComponent(match[1]), Number(match[2])), body.body, false));
    }
    if (method === "PUT" && noteId !== undefined) {
      const note = notes.find((candidate) => candidate.id === noteId);
      if (!note) return new HttpAnswer(404, { message: "404 Note Not Found" });
      if (typeof body.body !== "string") return new HttpAnswer(400, { error: "body is missing" });
      note.body = body.body;
      note.updated_at = new Date().toISOString();
      return new HttpAnswer(200, note);
    }
    return new HttpAnswer(405, { message: "405 Method Not Allowed" });
  }

  private add(mergeRequest: string, body: string, system: boolean): FakeNote {
    const now = new Date().toISOString();
    const note = { id: this.nextId++, body, system, author: { id: 7, username: "review-bot" }, created_at: now, updated_at: now };
    this.byMergeRequest.get(mergeRequest)!.push(note);
    return note;
  }
}

function key(projectId: string, iid: number): string {
  return `${projectId}!${iid}`;
}
