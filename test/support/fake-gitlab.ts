/**
 * A stand-in for GitLab's runner API (node:http on 127.0.0.1, a free port), following
 * /work/shared/docs/gitlab-api.md: PRIVATE-TOKEN auth, admin vs. non-admin, runner
 * creation with glrt-t1_/t2_/t3_ tokens generated at run time, listings with
 * GitLab's filters and pagination headers, details, updates, deletion, managers,
 * token reset and verify (which, as in GitLab, records the calling manager and its contact),
 * manager deletion by runner token, a runner's jobs; merge requests, their notes and the commits
 * they were merged as (./fake-gitlab-merge-requests.ts); job artifacts by ref (./fake-gitlab-artifacts.ts);
 * GitLab's error bodies; Rack::Attack 429s; fault injection (5xx, 429, a create whose response is
 * dropped); a log of every request. It is the tests' only GitLab: it follows the documented
 * contract, not our client (test/onboard/fake-gitlab.test.ts checks it against the document).
 *
 * Paths outside /api/v4 answer like a web server: a 404 HTML page, or with
 * `/html-site/...` a 200 HTML page (a URL that is not a GitLab instance).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { forbidden, HttpAnswer, paginate, parseBody, rackAttack429, randomText, readBody, send } from "./fake-gitlab-http";
import { ARTIFACT_ROUTE, FakeJobArtifacts } from "./fake-gitlab-artifacts";
import { COMMIT_MERGE_REQUESTS_ROUTE, FakeMergeRequests, NOTES_ROUTE } from "./fake-gitlab-merge-requests";
import { FakePipelineJobs, PIPELINE_JOBS_ROUTE } from "./fake-gitlab-pipeline-jobs";

export { randomText } from "./fake-gitlab-http";
export type { FakeMergeRequest, FakeNote } from "./fake-gitlab-merge-requests";

export type FakeRunnerType = "instance_type" | "group_type" | "project_type";

export interface FakeManager {
  id: number;
  system_id: string;
  version: string;
  revision: string;
  platform: string;
  architecture: string;
  created_at: string;
  contacted_at: string | null;
  ip_address: string | null;
}

export interface FakeRunner {
  id: number;
  runner_type: FakeRunnerType;
  group_id?: number;
  project_id?: number;
  description: string;
  maintenance_note: string;
  paused: boolean;
  locked: boolean;
  run_untagged: boolean;
  tag_list: string[];
  access_level: string;
  maximum_timeout: number | null;
  token: string;
  token_expires_at: string | null;
  created_at: string;
  /** When the runner itself last talked to GitLab (job requests and /runners/verify set it). */
  contacted_at: string | null;
  managers: FakeManager[];
  /** Jobs the runner has taken, newest last (GET /runners/:id/jobs). */
  jobs: FakeJob[];
}

export type FakeJobStatus = "running" | "success" | "failed" | "canceled";

export interface FakeJob {
  id: number;
  status: FakeJobStatus;
  /** system_id of the manager that runs it. */
  system_id: string | null;
  /** Timings and tags as GitLab's job entity gives them (doc/api/runners.md, "List jobs processed by a runner"), when a test sets them. */
  timing?: FakeJobTiming;
}

export interface FakeJobTiming {
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Seconds the job ran; null until it finished. */
  duration: number | null;
  /** Seconds the job waited for a runner. */
  queued_duration: number | null;
  tag_list: string[];
  /** Why a failed job failed (the job entity's failure_reason: runner_system_failure, script_failure, ...). */
  failure_reason?: string;
}

export interface LoggedRequest {
  readonly method: string;
  /** Path without the query, e.g. /api/v4/runners/3 */
  readonly path: string;
  readonly query: string;
  /** The parsed request body (requests carry settings, never runner tokens, except POST /runners/verify and DELETE /runners/managers). */
  body: Record<string, unknown>;
  status: number;
  /** The headers that carried a token (PRIVATE-TOKEN, Authorization, JOB-TOKEN), by name, never the values. */
  readonly credentials: readonly string[];
}

interface FakeUser {
  readonly admin: boolean;
  /** A token with the read_api scope only: every write answers 403 insufficient_scope. */
  readonly readOnly?: boolean;
  readonly ownedGroups: readonly number[];
  readonly ownedProjects: readonly number[];
}

/** What FakeGitLab.saveRunners() copies. */
export interface FakeRunnersState {
  readonly runners: readonly FakeRunner[];
  readonly nextIds: { readonly runner: number; readonly manager: number; readonly job: number };
}

type Fault =
  | { kind: "status"; method: string; route: RegExp; remaining: number; status: number; body?: unknown }
  | { kind: "rate-limit"; method: string; route: RegExp; remaining: number; retryAfterSeconds?: number; resetInSeconds?: number }
  | { kind: "app-rate-limit"; method: string; route: RegExp; remaining: number }
  | { kind: "drop-create"; remaining: number };

const RUNNER_TYPES: readonly FakeRunnerType[] = ["instance_type", "group_type", "project_type"];
const STATUSES = ["online", "offline", "stale", "never_contacted", "active", "paused"];
const JOB_STATUSES: readonly FakeJobStatus[] = ["running", "success", "failed", "canceled"];
/** GitLab's system_id when a runner-token call names none (API::Ci::Helpers::Runner::LEGACY_SYSTEM_XID). */
export const LEGACY_SYSTEM_ID = "<legacy>";
const TOKEN_PREFIX: Record<FakeRunnerType, string> = { instance_type: "t1_", group_type: "t2_", project_type: "t3_" };
const TWO_HOURS_MS = 2 * 3600_000;
const SEVEN_DAYS_MS = 7 * 24 * 3600_000;

export class FakeGitLab {
  /** An administrator's personal access token. */
  readonly adminToken = `glpat-${randomText(20)}`;
  /** A non-admin user's token, Owner of group 10 and project 20. */
  readonly userToken = `glpat-${randomText(20)}`;
  /** An administrator's token with the read_api scope only. */
  readonly readOnlyToken = `glpat-${randomText(20)}`;
  /** A CI job's CI_JOB_TOKEN: it may download artifacts, nothing else here. */
  readonly jobToken = `glcbt-${randomText(20)}`;
  /** Merge requests, their notes, the commits they were merged as. */
  readonly mergeRequests = new FakeMergeRequests();
  /** Files CI jobs left behind. */
  readonly artifacts = new FakeJobArtifacts();
  /** The jobs of CI pipelines (./fake-gitlab-pipeline-jobs.ts). */
  readonly pipelineJobs = new FakePipelineJobs();
  readonly runners = new Map<number, FakeRunner>();
  readonly requests: LoggedRequest[] = [];
  /** Token lifetime GitLab announces; null: tokens do not expire. */
  tokenExpiresAt: string | null = null;
  /** Milliseconds every API answer waits, so concurrent clients overlap as on a busy instance. */
  latencyMs = 0;
  /**
   * The most runners a listing page holds, whatever per_page asks: GitLab's 100. A test of how requests
   * grow with pages sets it lower, so that its sizes reach a second page with a tenth of the runners.
   */
  maxRunnersPerPage = 100;
  /** Runs just before POST /user/runners stores its runner (another client acting at that moment). */
  beforeCreate?: () => void;
  /**
   * Rack::Attack's throttle, as GitLab's "authenticated API rate limit" applies it: at most
   * `requests` API requests per fixed window of `periodSeconds` (windows aligned on the epoch,
   * as Rack::Attack's period keys are); over it, a 429 with Retry-After and RateLimit-Reset
   * naming the window's end. Undefined: no limit (GitLab's default on self-managed).
   */
  rateLimit?: { readonly requests: number; readonly periodSeconds: number };
  /** Requests answered 429 by `rateLimit`. */
  throttled = 0;
  private window = { start: 0, count: 0 };
  private readonly users = new Map<string, FakeUser>();
  private faults: Fault[] = [];
  private readonly disabledRoutes: Array<{ method: string; route: RegExp }> = [];
  private nextRunnerId = 1;
  private nextManagerId = 1;
  private nextJobId = 1;
  private server?: Server;
  private baseUrl = "";

  constructor() {
    this.users.set(this.adminToken, { admin: true, ownedGroups: [], ownedProjects: [] });
    this.users.set(this.userToken, { admin: false, ownedGroups: [10], ownedProjects: [20] });
    this.users.set(this.readOnlyToken, { admin: true, readOnly: true, ownedGroups: [], ownedProjects: [] });
  }

  get url(): string {
    return this.baseUrl;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  // ---- test controls ------------------------------------------------------------

  /**
   * The runners (their managers and jobs) and the next ids, copied: another fake given them by
   * restoreRunners() answers as this one would now. For a set-up several tests share (a first
   * onboarding of 120 shards) made once, not once per test.
   */
  saveRunners(): FakeRunnersState {
    return structuredClone({ runners: [...this.runners.values()], nextIds: { runner: this.nextRunnerId, manager: this.nextManagerId, job: this.nextJobId } });
  }

  /** Replaces every runner with a copy of those `state` saved. */
  restoreRunners(state: FakeRunnersState): void {
    const copy = structuredClone(state);
    this.runners.clear();
    for (const runner of copy.runners) this.runners.set(runner.id, runner);
    this.nextRunnerId = copy.nextIds.runner;
    this.nextManagerId = copy.nextIds.manager;
    this.nextJobId = copy.nextIds.job;
  }

  /** The next `count` requests matching `method` and `route` answer `status` (default 500). */
  failNext(method: string, route: RegExp, count: number, status = 500): void {
    this.faults.push({ kind: "status", method, route, remaining: count, status });
  }

  /** The next matching request answers `status` with `body`, as a proxy or a changed GitLab might. */
  answerNext(method: string, route: RegExp, status: number, body: unknown): void {
    this.faults.push({ kind: "status", method, route, remaining: 1, status, body });
  }

  /** The next `count` matching requests get Rack::Attack's 429. */
  rateLimitNext(method: string, route: RegExp, count: number, headers: { retryAfterSeconds?: number; resetInSeconds?: number } = { retryAfterSeconds: 60 }): void {
    this.faults.push({ kind: "rate-limit", method, route, remaining: count, ...headers });
  }

  /** The next `count` matching requests hit GitLab's application rate limiter: a 429 with a JSON body and no headers. */
  appRateLimitNext(method: string, route: RegExp, count: number): void {
    this.faults.push({ kind: "app-rate-limit", method, route, remaining: count });
  }

  /** The next `count` successful creates store the runner and then drop the connection without answering. */
  dropNextCreateResponses(count = 1): void {
    this.faults.push({ kind: "drop-create", remaining: count });
  }

  /** Makes a route unknown, as on a GitLab too old to have it. */
  disableRoute(method: string, route: RegExp): void {
    this.disabledRoutes.push({ method, route });
  }

  /** A runner put in place directly (someone else's, or one of ours from an earlier run). */
  seedRunner(fields: Partial<FakeRunner> = {}): FakeRunner {
    const runnerType = fields.runner_type ?? "instance_type";
    const runner: FakeRunner = {
      id: this.nextRunnerId++,
      runner_type: runnerType,
      description: "",
      maintenance_note: "",
      paused: false,
      locked: false,
      run_untagged: true,
      tag_list: [],
      access_level: "not_protected",
      maximum_timeout: null,
      token: this.newToken(runnerType),
      token_expires_at: this.tokenExpiresAt,
      created_at: new Date().toISOString(),
      contacted_at: null,
      managers: [],
      jobs: [],
      ...fields,
    };
    this.runners.set(runner.id, runner);
    return runner;
  }

  /** A runner manager (a machine using the runner's token) last seen `contactedAgoMs` ago (null: never). */
  addManager(runnerId: number, contactedAgoMs: number | null, systemId = `s_${randomText(12).toLowerCase()}`): FakeManager {
    const runner = this.runners.get(runnerId);
    if (!runner) throw new Error(`no runner ${runnerId}`);
    const now = Date.now();
    const manager: FakeManager = {
      id: this.nextManagerId++,
      system_id: systemId,
      version: "19.5.0",
      revision: "abcdef12",
      platform: "linux",
      architecture: "amd64",
      created_at: new Date(now - (contactedAgoMs ?? 0) - 60_000).toISOString(),
      contacted_at: contactedAgoMs === null ? null : new Date(now - contactedAgoMs).toISOString(),
      ip_address: "10.0.0.5",
    };
    runner.managers.push(manager);
    return manager;
  }

  /** A job taken by the runner, run by the manager `systemId` when given. */
  addJob(runnerId: number, status: FakeJobStatus, systemId: string | null = null, timing?: FakeJobTiming): FakeJob {
    const runner = this.runners.get(runnerId);
    if (!runner) throw new Error(`no runner ${runnerId}`);
    const job: FakeJob = { id: this.nextJobId++, status, system_id: systemId, ...(timing ? { timing } : {}) };
    runner.jobs.push(job);
    return job;
  }

  /** Requests that change something (everything but GET). */
  writeCalls(): LoggedRequest[] {
    return this.requests.filter((request) => request.method !== "GET");
  }

  /** Whether a runner token is currently valid (what POST /runners/verify answers). */
  tokenWorks(token: string): boolean {
    return this.runnerWithToken(token) !== undefined;
  }

  private runnerWithToken(token: unknown): FakeRunner | undefined {
    for (const runner of this.runners.values()) if (runner.token === token) return runner;
    return undefined;
  }

  // ---- HTTP ---------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.baseUrl);
    const method = req.method ?? "GET";
    const credentials = ["private-token", "authorization", "job-token"].filter((name) => req.headers[name] !== undefined);
    const entry: LoggedRequest = { method, path: url.pathname, query: url.search.replace(/^\?/, ""), body: {}, status: 0, credentials };
    this.requests.push(entry);
    const rawBody = await readBody(req);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    try {
      entry.body = parseBody(rawBody, req.headers["content-type"]);
    } catch {
      entry.body = { unparsable: rawBody.length };
    }
    try {
      const answer = this.route(method, url, rawBody, req, res);
      if (answer === "dropped") {
        entry.status = -1;
        return;
      }
      entry.status = answer.status;
      send(res, answer);
    } catch (error) {
      entry.status = 500;
      send(res, new HttpAnswer(500, { message: "500 Internal Server Error" }));
      // Surface fake bugs in test output instead of hiding them behind a 500.
      console.error(error);
    }
  }

  private route(method: string, url: URL, rawBody: string, req: IncomingMessage, res: ServerResponse): HttpAnswer | "dropped" {
    const path = url.pathname;
    if (path.startsWith("/html-site/")) return new HttpAnswer(200, "<!DOCTYPE html><html><body>Welcome</body></html>", { "content-type": "text/html; charset=utf-8" });
    if (!path.startsWith("/api/v4/")) return new HttpAnswer(404, "<!DOCTYPE html><html><body>Not Found</body></html>", { "content-type": "text/html; charset=utf-8" });
    const endpoint = path.slice("/api/v4".length);

    if (this.rateLimit && this.overRateLimit(this.rateLimit)) return this.throttledAnswer(this.rateLimit);
    if (this.disabledRoutes.some((route) => route.method === method && route.route.test(endpoint))) return new HttpAnswer(404, { error: "404 Not Found" });
    const fault = this.takeFault(method, endpoint);
    if (fault?.kind === "status") return new HttpAnswer(fault.status, fault.body ?? { message: `${fault.status} Internal Server Error` });
    if (fault?.kind === "rate-limit") return rackAttack429(fault.retryAfterSeconds, fault.resetInSeconds);
    if (fault?.kind === "app-rate-limit") return new HttpAnswer(429, { message: { error: "This endpoint has been requested too many times. Try again later." } });

    const body = parseBody(rawBody, req.headers["content-type"]);
    // Runner-token endpoints authenticate with the token in the body.
    if (method === "POST" && endpoint === "/runners/verify") return this.verify(body);
    if (method === "DELETE" && endpoint === "/runners/managers") return this.deleteManager(body);

    let match: RegExpMatchArray | null;
    // A CI job token opens only the routes GitLab marks job_token_allowed, such as artifact downloads.
    if (method === "GET" && (match = endpoint.match(ARTIFACT_ROUTE)) && req.headers["job-token"] === this.jobToken) return this.artifacts.handle(match, url);

    const user = this.authenticate(req, url);
    if (!user) return new HttpAnswer(401, { message: "401 Unauthorized" });
    if (user.readOnly && method !== "GET") {
      return new HttpAnswer(403, { error: "insufficient_scope", error_description: "The request requires higher privileges than provided by the access token.", scope: "api" });
    }
    if (method === "POST" && endpoint === "/user/runners") return this.create(user, body, res);
    const projectRoute = endpoint.match(NOTES_ROUTE) ?? endpoint.match(COMMIT_MERGE_REQUESTS_ROUTE) ?? endpoint.match(ARTIFACT_ROUTE) ?? endpoint.match(PIPELINE_JOBS_ROUTE);
    // A project the user cannot see does not exist for them.
    if (projectRoute && !user.admin && !user.ownedProjects.includes(Number(projectRoute[1]))) return new HttpAnswer(404, { message: "404 Project Not Found" });
    if ((match = endpoint.match(NOTES_ROUTE))) return this.mergeRequests.handle(method, match, url, body);
    if (method === "GET" && (match = endpoint.match(COMMIT_MERGE_REQUESTS_ROUTE))) return this.mergeRequests.ofCommit(match);
    if (method === "GET" && (match = endpoint.match(ARTIFACT_ROUTE))) return this.artifacts.handle(match, url);
    if (method === "GET" && (match = endpoint.match(PIPELINE_JOBS_ROUTE))) return this.pipelineJobs.handle(match, url);
    if (method === "GET" && endpoint === "/runners/all") {
      if (!user.admin) return forbidden();
      return this.list(url, () => true);
    }
    if (method === "GET" && endpoint === "/runners") return this.list(url, (runner) => this.owns(user, runner));
    if (method === "GET" && (match = endpoint.match(/^\/groups\/(\d+)\/runners$/))) {
      const groupId = Number(match[1]);
      if (!user.admin && !user.ownedGroups.includes(groupId)) return forbidden();
      return this.list(url, (runner) => runner.runner_type === "instance_type" || runner.group_id === groupId);
    }
    if (method === "GET" && (match = endpoint.match(/^\/projects\/(\d+)\/runners$/))) {
      const projectId = Number(match[1]);
      if (!user.admin && !user.ownedProjects.includes(projectId)) return forbidden();
      return this.list(url, (runner) => runner.runner_type === "instance_type" || runner.project_id === projectId);
    }
    if ((match = endpoint.match(/^\/runners\/(\d+)(\/managers|\/reset_authentication_token|\/jobs)?$/))) {
      const runner = this.runners.get(Number(match[1]));
      if (!runner) return new HttpAnswer(404, { message: "404 Not found" });
      if (!this.owns(user, runner)) return forbidden();
      const sub = match[2];
      if (!sub && method === "GET") return new HttpAnswer(200, this.details(runner));
      if (!sub && method === "PUT") return this.update(runner, body);
      if (!sub && method === "DELETE") {
        this.runners.delete(runner.id);
        return new HttpAnswer(204, null);
      }
      // Not paginated: GitLab presents runner.runner_managers whole (lib/api/ci/runners.rb).
      if (sub === "/managers" && method === "GET") return new HttpAnswer(200, runner.managers.map((manager) => ({ ...manager, status: contactStatus(manager.contacted_at, manager.created_at) })));
      if (sub === "/jobs" && method === "GET") {
        const status = url.searchParams.get("status");
        if (status !== null && !JOB_STATUSES.includes(status as FakeJobStatus)) return new HttpAnswer(400, { error: "status does not have a valid value" });
        const systemId = url.searchParams.get("system_id");
        const jobs = runner.jobs.filter((job) => (status === null || job.status === status) && (systemId === null || job.system_id === systemId));
        // order_by (only "id") and sort ("desc" by default), as doc/api/runners.md lists them.
        const orderBy = url.searchParams.get("order_by");
        if (orderBy !== null && orderBy !== "id") return new HttpAnswer(400, { error: "order_by does not have a valid value" });
        const sort = url.searchParams.get("sort") ?? "desc";
        if (sort !== "asc" && sort !== "desc") return new HttpAnswer(400, { error: "sort does not have a valid value" });
        const ordered = sort === "desc" ? [...jobs].reverse() : [...jobs];
        // failure_reason: null unless the job failed (the job entity, gitlab-org/gitlab MR 74888); runner_manager: the manager that ran it.
        return paginate(
          url,
          ordered.map((job) => ({
            id: job.id,
            status: job.status,
            ...(job.timing ?? {}),
            failure_reason: job.status === "failed" ? (job.timing?.failure_reason ?? "unknown_failure") : null,
            runner: { id: runner.id },
            runner_manager: job.system_id === null ? null : { system_id: job.system_id },
          })),
        );
      }
      if (sub === "/reset_authentication_token" && method === "POST") {
        runner.token = this.newToken(runner.runner_type);
        runner.token_expires_at = this.tokenExpiresAt;
        return new HttpAnswer(201, { token: runner.token, token_expires_at: runner.token_expires_at });
      }
    }
    return new HttpAnswer(404, { error: "404 Not Found" });
  }

  private overRateLimit(limit: { readonly requests: number; readonly periodSeconds: number }): boolean {
    const periodMs = limit.periodSeconds * 1000;
    const start = Math.floor(Date.now() / periodMs) * periodMs;
    if (this.window.start !== start) this.window = { start, count: 0 };
    this.window.count += 1;
    return this.window.count > limit.requests;
  }

  private throttledAnswer(limit: { readonly requests: number; readonly periodSeconds: number }): HttpAnswer {
    this.throttled += 1;
    const endsInSeconds = Math.max(1, Math.ceil((this.window.start + limit.periodSeconds * 1000 - Date.now()) / 1000));
    return rackAttack429(endsInSeconds, endsInSeconds);
  }

  private takeFault(method: string, endpoint: string): Fault | undefined {
    const fault = this.faults.find((candidate) => candidate.kind !== "drop-create" && candidate.remaining > 0 && candidate.method === method && candidate.route.test(endpoint));
    if (fault) fault.remaining -= 1;
    return fault;
  }

  private authenticate(req: IncomingMessage, url: URL): FakeUser | undefined {
    const header = req.headers["private-token"];
    const bearer = req.headers.authorization?.match(/^Bearer (.+)$/)?.[1];
    const token = (Array.isArray(header) ? header[0] : header) ?? bearer ?? url.searchParams.get("private_token") ?? undefined;
    return token ? this.users.get(token) : undefined;
  }

  private owns(user: FakeUser, runner: FakeRunner): boolean {
    if (user.admin) return true;
    if (runner.runner_type === "group_type") return user.ownedGroups.includes(runner.group_id!);
    if (runner.runner_type === "project_type") return user.ownedProjects.includes(runner.project_id!);
    return false;
  }

  private create(user: FakeUser, body: Record<string, unknown>, res: ServerResponse): HttpAnswer | "dropped" {
    const runnerType = body.runner_type;
    if (runnerType === undefined) return new HttpAnswer(400, { error: "runner_type is missing" });
    if (!RUNNER_TYPES.includes(runnerType as FakeRunnerType)) return new HttpAnswer(400, { error: "runner_type does not have a valid value" });
    const type = runnerType as FakeRunnerType;
    if (body.access_level !== undefined && !["not_protected", "ref_protected"].includes(String(body.access_level))) {
      return new HttpAnswer(400, { error: "access_level does not have a valid value" });
    }
    const groupId = body.group_id === undefined ? undefined : Number(body.group_id);
    const projectId = body.project_id === undefined ? undefined : Number(body.project_id);
    if (type === "group_type" && groupId === undefined) return new HttpAnswer(400, { message: "400 Bad request - group_id is required for group_type runners" });
    if (type === "project_type" && projectId === undefined) return new HttpAnswer(400, { message: "400 Bad request - project_id is required for project_type runners" });
    const allowed =
      user.admin ||
      (type === "group_type" && user.ownedGroups.includes(groupId!)) ||
      (type === "project_type" && user.ownedProjects.includes(projectId!));
    if (!allowed) return forbidden("Insufficient permissions");
    const tags = toTags(body.tag_list) ?? [];
    const runUntagged = body.run_untagged === undefined ? true : toBool(body.run_untagged);
    if (tags.length === 0 && !runUntagged) {
      return new HttpAnswer(400, { message: "400 Bad request - Tags list can not be empty when runner is not allowed to pick untagged jobs" });
    }
    if (tags.length > MAX_TAGS) return tooManyTags();
    const maximumTimeout = body.maximum_timeout === undefined ? null : Number(body.maximum_timeout);
    if (maximumTimeout !== null && maximumTimeout < 600) return new HttpAnswer(400, { message: "400 Bad request - Maximum timeout needs to be at least 10 minutes" });
    this.beforeCreate?.();
    const runner = this.seedRunner({
      runner_type: type,
      ...(type === "group_type" ? { group_id: groupId } : {}),
      ...(type === "project_type" ? { project_id: projectId } : {}),
      description: body.description === undefined ? "" : String(body.description),
      maintenance_note: body.maintenance_note === undefined ? "" : String(body.maintenance_note),
      paused: toBool(body.paused ?? false),
      locked: toBool(body.locked ?? false),
      run_untagged: runUntagged,
      tag_list: tags,
      access_level: body.access_level === undefined ? "not_protected" : String(body.access_level),
      maximum_timeout: maximumTimeout,
    });
    const drop = this.faults.find((fault) => fault.kind === "drop-create" && fault.remaining > 0);
    if (drop) {
      drop.remaining -= 1;
      res.socket?.destroy();
      return "dropped";
    }
    return new HttpAnswer(201, { id: runner.id, token: runner.token, token_expires_at: runner.token_expires_at });
  }

  private update(runner: FakeRunner, body: Record<string, unknown>): HttpAnswer {
    const fields = ["description", "active", "paused", "tag_list", "run_untagged", "locked", "access_level", "maximum_timeout", "maintenance_note"];
    if (!fields.some((field) => body[field] !== undefined)) {
      return new HttpAnswer(400, { error: `${fields.join(", ")} are missing, at least one parameter must be provided` });
    }
    const next = { ...runner };
    if (body.description !== undefined) next.description = String(body.description);
    if (body.maintenance_note !== undefined) next.maintenance_note = String(body.maintenance_note);
    if (body.paused !== undefined) next.paused = toBool(body.paused);
    if (body.active !== undefined) next.paused = !toBool(body.active);
    if (body.locked !== undefined) next.locked = toBool(body.locked);
    if (body.run_untagged !== undefined) next.run_untagged = toBool(body.run_untagged);
    if (body.tag_list !== undefined) next.tag_list = toTags(body.tag_list) ?? [];
    if (body.access_level !== undefined) {
      if (!["not_protected", "ref_protected"].includes(String(body.access_level))) return new HttpAnswer(400, { error: "access_level does not have a valid value" });
      next.access_level = String(body.access_level);
    }
    if (body.maximum_timeout !== undefined) next.maximum_timeout = Number(body.maximum_timeout);
    if (body.tag_list !== undefined && next.tag_list.length > MAX_TAGS) return tooManyTags();
    if (next.tag_list.length === 0 && !next.run_untagged) {
      return new HttpAnswer(400, { message: { tags_list: ["can not be empty when runner is not allowed to pick untagged jobs"] } });
    }
    if (next.maximum_timeout !== null && next.maximum_timeout < 600) {
      return new HttpAnswer(400, { message: { maximum_timeout: ["needs to be at least 10 minutes"] } });
    }
    Object.assign(runner, next);
    return new HttpAnswer(200, this.details(runner));
  }

  /**
   * As GitLab's POST /runners/verify (lib/api/ci/runner.rb, API::Ci::Helpers::Runner#authenticate_runner!):
   * the runner's contact time is refreshed and the manager named by system_id
   * (or "<legacy>") is created when missing and marked as just contacted.
   */
  private verify(body: Record<string, unknown>): HttpAnswer {
    // spec/requests/api/ci/runner/runners_verify_post_spec.rb: no token 400; unknown or expired token 403.
    if (body.token === undefined) return new HttpAnswer(400, { error: "token is missing" });
    const runner = this.runnerWithToken(body.token);
    if (!runner) return new HttpAnswer(403, { message: "403 Forbidden" });
    if (runner.token_expires_at !== null && Date.parse(runner.token_expires_at) <= Date.now()) return new HttpAnswer(403, { message: "403 Forbidden" });
    const now = new Date().toISOString();
    runner.contacted_at = now;
    const systemId = body.system_id === undefined ? LEGACY_SYSTEM_ID : String(body.system_id);
    const manager = runner.managers.find((candidate) => candidate.system_id === systemId) ?? this.addManager(runner.id, 0, systemId);
    manager.contacted_at = now;
    return new HttpAnswer(200, { id: runner.id, token: runner.token, token_expires_at: runner.token_expires_at });
  }

  /** DELETE /runners/managers (runner token and system_id): 204, 403 for an unknown token, 404 for an unknown manager. */
  private deleteManager(body: Record<string, unknown>): HttpAnswer {
    if (body.token === undefined) return new HttpAnswer(400, { error: "token is missing" });
    if (body.system_id === undefined) return new HttpAnswer(400, { error: "system_id is missing" });
    const runner = this.runnerWithToken(body.token);
    if (!runner) return new HttpAnswer(403, { message: "403 Forbidden" });
    const index = runner.managers.findIndex((manager) => manager.system_id === body.system_id);
    if (index < 0) return new HttpAnswer(404, { message: "404 Runner manager not found" });
    runner.managers.splice(index, 1);
    return new HttpAnswer(204, null);
  }

  private list(url: URL, visible: (runner: FakeRunner) => boolean): HttpAnswer {
    const query = url.searchParams;
    const type = query.get("type");
    if (type !== null && !RUNNER_TYPES.includes(type as FakeRunnerType)) return new HttpAnswer(400, { error: "type does not have a valid value" });
    const status = query.get("status");
    if (status !== null && !STATUSES.includes(status)) return new HttpAnswer(400, { error: "status does not have a valid value" });
    const paused = query.get("paused");
    if (paused !== null && !["true", "false"].includes(paused)) return new HttpAnswer(400, { error: "paused is invalid" });
    const tags = [...query.getAll("tag_list[]"), ...query.getAll("tag_list").flatMap((value) => value.split(","))].map((tag) => tag.trim()).filter(Boolean);
    const matching = [...this.runners.values()]
      .filter(visible)
      .filter((runner) => type === null || runner.runner_type === type)
      .filter((runner) => paused === null || runner.paused === (paused === "true"))
      .filter((runner) => tags.every((tag) => runner.tag_list.includes(tag)))
      .filter((runner) => status === null || runnerStatus(runner) === status || (status === "paused" && runner.paused) || (status === "active" && !runner.paused))
      .sort((a, b) => a.id - b.id);
    // Summaries of the requested page only (a listing next to a thousand runners is ten pages).
    return paginate(url, matching, (runner) => this.summary(runner), this.maxRunnersPerPage);
  }


  private summary(runner: FakeRunner) {
    const status = runnerStatus(runner);
    return {
      id: runner.id,
      description: runner.description,
      ip_address: null,
      active: !runner.paused,
      paused: runner.paused,
      is_shared: runner.runner_type === "instance_type",
      runner_type: runner.runner_type,
      name: null,
      online: status === "online",
      status,
    };
  }

  private details(runner: FakeRunner) {
    return {
      ...this.summary(runner),
      tag_list: runner.tag_list,
      run_untagged: runner.run_untagged,
      locked: runner.locked,
      maximum_timeout: runner.maximum_timeout,
      access_level: runner.access_level,
      version: runner.managers[0]?.version ?? null,
      revision: runner.managers[0]?.revision ?? null,
      platform: runner.managers[0]?.platform ?? null,
      architecture: runner.managers[0]?.architecture ?? null,
      contacted_at: latestContact(runner),
      maintenance_note: runner.maintenance_note,
      projects: runner.project_id === undefined ? [] : [{ id: runner.project_id }],
      groups: runner.group_id === undefined ? [] : [{ id: runner.group_id }],
    };
  }

  private newToken(type: FakeRunnerType): string {
    return `glrt-${TOKEN_PREFIX[type]}${randomText(20)}`;
  }
}

function runnerStatus(runner: FakeRunner): string {
  return contactStatus(latestContact(runner), runner.created_at);
}

function latestContact(runner: FakeRunner): string | null {
  const times = [runner.contacted_at, ...runner.managers.map((manager) => manager.contacted_at)].filter((time): time is string => time !== null).sort();
  return times.at(-1) ?? null;
}

/** GitLab's rule: online within 2 hours, stale after 7 days (or never contacted for 7 days). */
function contactStatus(contactedAt: string | null, createdAt: string): string {
  const now = Date.now();
  if (contactedAt === null) return now - Date.parse(createdAt) > SEVEN_DAYS_MS ? "stale" : "never_contacted";
  const age = now - Date.parse(contactedAt);
  if (age <= TWO_HOURS_MS) return "online";
  if (age > SEVEN_DAYS_MS) return "stale";
  return "offline";
}

function toBool(value: unknown): boolean {
  return value === true || value === "true" || value === "1" || value === 1;
}

/**
 * Ci::Runner::TAG_LIST_MAX_LENGTH, checked when the tags change (Ci::Runner#tag_constraints in
 * gitlabhq app/models/ci/runner.rb), answered as a model error on create and update alike.
 */
const MAX_TAGS = 50;

function tooManyTags(): HttpAnswer {
  return new HttpAnswer(400, { message: { tags_list: [`Too many tags specified. Please limit the number of tags to ${MAX_TAGS}`] } });
}

/**
 * As GitLab stores tag_list: API::Validations::Types::CommaSeparatedToArray splits every
 * element on commas and strips it; acts-as-taggable-on drops blanks and duplicates.
 */
function toTags(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value.flatMap((element) => String(element).split(",")) : String(value).split(",");
  return [...new Set(list.map((tag) => tag.trim()).filter(Boolean))];
}
