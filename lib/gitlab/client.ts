/**
 * The one place that builds GitLab clients: @gitbeaker/rest resources whose HTTP layer
 * is our requester (./requester.ts: one retry policy, ./retry.ts). gitbeaker makes the
 * calls it has (runners, users, merge request notes, with its pagination); typed
 * wrappers on the same requester cover what gitbeaker 43.8.0 lacks:
 * - GET    /runners/:id/managers (not paginated by GitLab: it presents them all)
 * - POST   /runners/:id/reset_authentication_token
 * - POST   /runners/verify and DELETE /runners/managers with a runner token
 *   (Runners.verify has no token parameter; there is no manager endpoint).
 * GitLab's answers are checked against its documented shapes (./gitlab-shapes.ts), and every
 * failure leaves as a GitLabApiError with a `kind` and a plain, redacted message.
 */
import { Commits, Jobs, MergeRequestNotes, Runners, Users } from "@gitbeaker/rest";
import { z } from "zod";
import { UserInputError } from "../process/errors";
import { insecureHttpWarning, insecureUrlProblem } from "../model/gitlab-url-policy";
import { describeGitLabFailure, GitLabApiError, type FailureHints } from "./errors";
import { UnexpectedAnswerError } from "./http-failures";
import { gitlabRequesterFn, type RequesterSettings } from "./requester";
import {
  issuedTokenShape,
  mergeRequestNoteShape,
  runnerDetailsShape,
  runnerJobShape,
  runnerJobTimingShape,
  runnerManagerShape,
  runnerSummaryShape,
  resetTokenShape,
  tokenVerificationShape,
  type AccessLevel,
  type IssuedToken,
  type MergeRequestNote,
  type RunnerDetails,
  type RunnerJob,
  type RunnerJobTiming,
  type RunnerManager,
  type RunnerSummary,
  type RunnerTypeName,
} from "./gitlab-shapes";

export type { AccessLevel, IssuedToken, MergeRequestNote, RunnerDetails, RunnerJob, RunnerJobTiming, RunnerManager, RunnerSummary, RunnerTypeName } from "./gitlab-shapes";

/** What POST /runners/verify says of a runner token. */
export type TokenVerification =
  | { readonly valid: true; readonly runnerId: number; readonly tokenExpiresAt: string | null }
  | { readonly valid: false; readonly reason: string };

/** Settings GitLab keeps per runner that the model decides, with GitLab's names. */
export interface RunnerSettings {
  readonly description: string;
  readonly tag_list: readonly string[];
  readonly run_untagged: boolean;
  readonly locked: boolean;
  readonly access_level: AccessLevel;
  readonly maximum_timeout: number;
  readonly paused: boolean;
  readonly maintenance_note: string;
}

export interface NewRunner extends RunnerSettings {
  readonly runner_type: RunnerTypeName;
  readonly group_id?: number;
  readonly project_id?: number;
}

/** Where to list runners: the API has one listing per owner kind. */
export interface RunnerScope {
  readonly runnerType: RunnerTypeName;
  readonly groupId?: number;
  readonly projectId?: number;
  /** Only runners carrying all of these tags. */
  readonly tags?: readonly string[];
}

/** A merge request, as CI names it (CI_PROJECT_ID may be an id or a URL-encoded path). */
export interface MergeRequestRef {
  readonly projectId: string | number;
  readonly iid: number;
}

export interface GitLabClient {
  readonly baseUrl: string;
  /** POST /user/runners. Never retried on 5xx or a lost answer: the caller looks for the runner first. */
  createRunner(runner: NewRunner, action: string): Promise<IssuedToken>;
  /** GET /runners/:id; undefined when the runner does not exist. */
  getRunner(id: number, action: string): Promise<RunnerDetails | undefined>;
  /** All pages of the listing for the scope. */
  listRunners(scope: RunnerScope, action: string): Promise<RunnerSummary[]>;
  /** PUT /runners/:id with only the given fields. */
  updateRunner(id: number, changes: Partial<RunnerSettings>, action: string): Promise<RunnerDetails>;
  /** DELETE /runners/:id; false when it was already gone. */
  deleteRunner(id: number, action: string): Promise<boolean>;
  /** POST /runners/:id/reset_authentication_token: the old token stops working. */
  resetRunnerToken(id: number, action: string): Promise<IssuedToken>;
  /** GET /runners/:id/managers */
  listRunnerManagers(id: number, action: string): Promise<RunnerManager[]>;
  /** GET /runners/:id/jobs?status=..., all pages. */
  listRunnerJobs(id: number, status: "running" | "success" | "failed" | "canceled", action: string): Promise<RunnerJob[]>;
  /** GET /runners/:id/jobs?order_by=id&sort=desc, one page, newest first, with the jobs' timings; nextPage undefined on the last. */
  listRunnerJobsPage(id: number, page: number, action: string): Promise<{ readonly jobs: RunnerJobTiming[]; readonly nextPage?: number }>;
  /**
   * POST /runners/verify with a runner token. Not read-only in GitLab: it records
   * `systemId` as a manager of the runner, contacted now (see ./verify-token.ts,
   * which cleans that up). A refused token (403, or 422 for an orphaned runner) is
   * an answer, not a failure.
   */
  verifyRunnerToken(token: string, systemId: string, action: string): Promise<TokenVerification>;
  /** DELETE /runners/managers with a runner token; false when GitLab knows no such manager. */
  deleteRunnerManager(token: string, systemId: string, action: string): Promise<boolean>;
}

/** What `review --post` and `provision --post` need: one merge request's notes. */
export interface MergeRequestNotesClient {
  /** GET /projects/:id/merge_requests/:iid/notes, oldest first, all pages. */
  listMergeRequestNotes(mergeRequest: MergeRequestRef, action: string): Promise<MergeRequestNote[]>;
  /** POST /projects/:id/merge_requests/:iid/notes. Not retried on 5xx or a lost answer (it would add a second note). */
  createMergeRequestNote(mergeRequest: MergeRequestRef, body: string, action: string): Promise<MergeRequestNote>;
  /** PUT /projects/:id/merge_requests/:iid/notes/:note_id */
  editMergeRequestNote(mergeRequest: MergeRequestRef, noteId: number, body: string, action: string): Promise<MergeRequestNote>;
}

export interface GitLabClientOptions extends RequesterSettings {
  /** Root URL of the instance (model gitlab.url, CI_SERVER_URL). */
  readonly url: string;
  /** A personal, group or project access token. */
  readonly token: string;
  /** Name of the variable the token came from, for messages. */
  readonly tokenEnv: string;
  /** More secrets to keep out of messages (runner tokens seen in this run). */
  readonly knownSecrets?: () => readonly string[];
  /** What to tell the user per kind of failure, when the default (runner administration) does not fit. */
  readonly hints?: FailureHints;
  /** Where `url` was set, as messages tell the user to check it. @default "gitlab.url in the model" */
  readonly urlSource?: string;
  /** gitlab.allow_insecure_http_token_in_clear_text: plain http to a host off this machine. @default false */
  readonly allowInsecureHttp?: boolean;
  /** Where the warning that the token travels in clear text goes. @default stderr */
  readonly warn?: (line: string) => void;
}

/** Items per page when listing; GitLab's maximum. */
export const LIST_PAGE_SIZE = 100;

/** PUT /runners/:id takes maintenance_note; gitbeaker 43.8's EditRunnerOptions does not list it. */
type RunnerEdit = NonNullable<Parameters<Runners["edit"]>[1]> & { maintenanceNote?: string };

/** gitbeaker's settings for every resource: our requester, and no overall time limit (each attempt has its own). */
function connect(options: GitLabClientOptions) {
  const baseUrl = options.url.replace(/\/+$/, "");
  // Before any request: the token is never sent in clear text unless the model says so, loudly.
  const insecure = insecureUrlProblem(baseUrl, options.allowInsecureHttp ?? false);
  if (insecure) throw new UserInputError(`refusing to send the GitLab token in $${options.tokenEnv}: ${insecure}`);
  const warning = insecureHttpWarning(baseUrl, options.allowInsecureHttp ?? false);
  if (warning) (options.warn ?? ((line: string) => process.stderr.write(`${line}\n`)))(warning);
  const config = { host: baseUrl, token: options.token, requesterFn: gitlabRequesterFn(options), queryTimeout: null };
  /** Runs a call; any failure leaves as a GitLabApiError saying what `action` could not do. */
  const guard = async <T>(action: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw describeGitLabFailure(error, {
        action,
        baseUrl,
        tokenEnv: options.tokenEnv,
        secrets: [options.token, ...(options.knownSecrets?.() ?? [])],
        hints: options.hints,
        urlSource: options.urlSource,
      });
    }
  };
  return { baseUrl, config, guard };
}

export function createGitLabClient(options: GitLabClientOptions): GitLabClient {
  const { baseUrl, config, guard } = connect(options);
  const runners = new Runners(config);
  const users = new Users(config);
  // gitbeaker's requester (ours), for the endpoints it has no method for.
  const raw = runners.requester;
  /** Runs `call`; a GitLab failure that is `expected` becomes `fallback` (an answer, not a failure). */
  const unless = async <T>(action: string, call: () => Promise<T>, expected: (error: GitLabApiError) => boolean, fallback: (error: GitLabApiError) => T): Promise<T> => {
    try {
      return await guard(action, call);
    } catch (error) {
      if (error instanceof GitLabApiError && expected(error)) return fallback(error);
      throw error;
    }
  };
  const missing = (error: GitLabApiError) => error.kind === "not-found";

  return {
    baseUrl,
    createRunner: (runner, action) =>
      guard(action, async () => {
        const created = await users.createCIRunner(runner.runner_type, {
          groupId: runner.group_id,
          projectId: runner.project_id,
          description: runner.description,
          paused: runner.paused,
          locked: runner.locked,
          runUntagged: runner.run_untagged,
          tagList: [...runner.tag_list],
          accessLevel: runner.access_level,
          maximumTimeout: runner.maximum_timeout,
          maintenanceNote: runner.maintenance_note,
        });
        return answer(issuedTokenShape, created, "POST /api/v4/user/runners");
      }),
    getRunner: (id, action) =>
      unless(action, async () => answer(runnerDetailsShape, await runners.show(id), `GET /api/v4/runners/${id}`), missing, () => undefined),
    listRunners: (scope, action) =>
      guard(action, async () => {
        const filters = { type: scope.runnerType, perPage: LIST_PAGE_SIZE, ...(scope.tags && scope.tags.length > 0 ? { tagList: [...scope.tags] } : {}) };
        // No `page`: gitbeaker then follows Link rel="next" through every page.
        const listed =
          scope.groupId !== undefined
            ? await runners.all({ groupId: scope.groupId, ...filters })
            : scope.projectId !== undefined
              ? await runners.all({ projectId: scope.projectId, ...filters })
              : await runners.all(filters);
        return answer(z.array(runnerSummaryShape), listed, `GET the ${scope.runnerType} runners`);
      }),
    updateRunner: (id, changes, action) =>
      guard(action, async () => {
        const edit: RunnerEdit = {
          description: changes.description,
          tagList: changes.tag_list === undefined ? undefined : [...changes.tag_list],
          runUntagged: changes.run_untagged,
          locked: changes.locked,
          accessLevel: changes.access_level,
          maximumTimeout: changes.maximum_timeout,
          paused: changes.paused,
          maintenanceNote: changes.maintenance_note,
        };
        return answer(runnerDetailsShape, await runners.edit(id, edit), `PUT /api/v4/runners/${id}`);
      }),
    deleteRunner: (id, action) =>
      unless(
        action,
        async () => {
          await runners.remove({ runnerId: id });
          return true;
        },
        missing,
        () => false,
      ),
    resetRunnerToken: (id, action) =>
      guard(action, async () => {
        const path = `runners/${encodeURIComponent(id)}/reset_authentication_token`;
        const reset = answer(resetTokenShape, (await raw.post(path)).body, `POST /api/v4/${path}`);
        return { id, token: reset.token, token_expires_at: reset.token_expires_at };
      }),
    listRunnerManagers: (id, action) =>
      guard(action, async () => answer(z.array(runnerManagerShape), (await raw.get(`runners/${encodeURIComponent(id)}/managers`)).body, `GET /api/v4/runners/${id}/managers`)),
    listRunnerJobs: (id, status, action) =>
      guard(action, async () => answer(z.array(runnerJobShape), await runners.allJobs(id, { status, perPage: LIST_PAGE_SIZE }), `GET /api/v4/runners/${id}/jobs`)),
    listRunnerJobsPage: (id, page, action) =>
      guard(action, async () => {
        // With `page`, gitbeaker fetches that page alone; showExpanded gives its pagination headers.
        const listed = await runners.allJobs(id, { orderBy: "id", sort: "desc", perPage: LIST_PAGE_SIZE, page, showExpanded: true });
        const jobs = answer(z.array(runnerJobTimingShape), listed.data, `GET /api/v4/runners/${id}/jobs?page=${page}`);
        const next = listed.paginationInfo.next;
        return { jobs, ...(next ? { nextPage: Number(next) } : {}) };
      }),
    verifyRunnerToken: (token, systemId, action) =>
      unless(
        action,
        async (): Promise<TokenVerification> => {
          const verified = answer(tokenVerificationShape, (await raw.post("runners/verify", { body: { token, systemId } })).body, "POST /api/v4/runners/verify");
          return { valid: true, runnerId: verified.id, tokenExpiresAt: verified.token_expires_at ?? null };
        },
        (error) => error.status === 403 || error.status === 422,
        (error) => ({ valid: false, reason: error.status === 422 ? "GitLab says the runner is orphaned (422)" : "GitLab refused the token (403): it is wrong, reset or expired" }),
      ),
    deleteRunnerManager: (token, systemId, action) =>
      unless(
        action,
        async () => {
          await raw.delete("runners/managers", { body: { token, systemId } });
          return true;
        },
        missing,
        () => false,
      ),
  };
}

export function createMergeRequestNotesClient(options: GitLabClientOptions): MergeRequestNotesClient {
  const { config, guard } = connect(options);
  const notes = new MergeRequestNotes(config);
  return {
    listMergeRequestNotes: (mr, action) =>
      guard(action, async () =>
        // No `page`: gitbeaker follows Link rel="next" through every page.
        answer(z.array(mergeRequestNoteShape), await notes.all(mr.projectId, mr.iid, { perPage: LIST_PAGE_SIZE, sort: "asc", orderBy: "created_at" }), `GET ${notesPath(mr)}`),
      ),
    createMergeRequestNote: (mr, body, action) => guard(action, async () => answer(mergeRequestNoteShape, await notes.create(mr.projectId, mr.iid, body), `POST ${notesPath(mr)}`)),
    editMergeRequestNote: (mr, noteId, body, action) =>
      guard(action, async () => answer(mergeRequestNoteShape, await notes.edit(mr.projectId, mr.iid, noteId, { body }), `PUT ${notesPath(mr)}/${noteId}`)),
  };
}

/** A job of a pipeline as the gate reads it (doc/api/jobs.md, "List pipeline jobs"): its name and who ran it. */
export interface PipelineJob {
  readonly id: number;
  readonly name: string;
  readonly status: string;
  readonly user: { readonly username: string } | null;
}

/** What a rollout's gate asks the models project: the merge request a commit came from, and the pipeline's jobs. */
export interface RolloutProjectClient {
  /** GET /projects/:id/repository/commits/:sha/merge_requests (doc/api/commits.md): the merge requests of a commit. */
  mergeRequestsOfCommit(projectId: string, sha: string, action: string): Promise<Array<{ readonly iid: number; readonly state: string }>>;
  /** GET /projects/:id/pipelines/:pipeline_id/jobs?scope[]=success, all pages (doc/api/jobs.md). */
  successfulPipelineJobs(projectId: string, pipelineId: number, action: string): Promise<PipelineJob[]>;
}

export function createRolloutProjectClient(options: GitLabClientOptions): RolloutProjectClient {
  const { config, guard } = connect(options);
  const commits = new Commits(config);
  const jobs = new Jobs(config);
  const pipelineJob = z.object({ id: z.number(), name: z.string(), status: z.string(), user: z.object({ username: z.string() }).nullable().default(null) });
  return {
    mergeRequestsOfCommit: (projectId, sha, action) =>
      guard(action, async () => answer(z.array(z.object({ iid: z.number(), state: z.string() })), await commits.allMergeRequests(projectId, sha), `GET /api/v4/projects/${projectId}/repository/commits/${sha}/merge_requests`)),
    successfulPipelineJobs: (projectId, pipelineId, action) =>
      guard(action, async () => answer(z.array(pipelineJob), await jobs.all(projectId, { pipelineId, scope: "success", perPage: LIST_PAGE_SIZE }), `GET /api/v4/projects/${projectId}/pipelines/${pipelineId}/jobs`)),
  };
}

/** `value` checked against GitLab's documented `shape`; the body is never echoed (it may hold a token). */
function answer<S extends z.ZodType>(shape: S, value: unknown, call: string): z.infer<S> {
  const parsed = shape.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UnexpectedAnswerError(call, issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "unreadable");
}

function notesPath(mr: MergeRequestRef): string {
  return `/api/v4/projects/${encodeURIComponent(mr.projectId)}/merge_requests/${mr.iid}/notes`;
}
