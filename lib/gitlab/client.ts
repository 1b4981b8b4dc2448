/**
 * The few GitLab runner calls onboarding needs, on @gitbeaker/rest with our own
 * requester (./requester.ts: one attempt per try, retries by ./retry.ts) and, for the
 * endpoints gitbeaker 43.8 lacks, its raw requester:
 * - POST /runners/:id/reset_authentication_token
 * - GET  /runners/:id/managers
 * - GET  /runners/:id/jobs
 * - POST /runners/verify and DELETE /runners/managers (with a runner token)
 * Every failure leaves as a GitLabApiError with a plain, redacted message.
 */
import { Runners, Users } from "@gitbeaker/rest";
import { describeGitLabFailure, isMissingObject } from "./errors";
import { createRequesterFn, GitLabHttpError, type Requester, type RequesterSettings } from "./requester";

export type RunnerTypeName = "instance_type" | "group_type" | "project_type";
export type AccessLevel = "not_protected" | "ref_protected";

/** A runner as GET /runners/all lists it. */
export interface RunnerSummary {
  readonly id: number;
  readonly description: string | null;
  readonly runner_type: RunnerTypeName;
  readonly paused: boolean;
  readonly online: boolean | null;
  readonly status: string;
}

/** GET /runners/:id */
export interface RunnerDetails extends RunnerSummary {
  readonly tag_list: string[] | null;
  readonly run_untagged: boolean;
  readonly locked: boolean;
  readonly access_level: string;
  readonly maximum_timeout: number | null;
  readonly maintenance_note: string | null;
  readonly contacted_at?: string | null;
  readonly version?: string | null;
  readonly groups?: ReadonlyArray<{ readonly id: number }>;
  readonly projects?: ReadonlyArray<{ readonly id: number }>;
}

/** GET /runners/:id/managers: one per machine (system_id) that uses the runner's token. */
export interface RunnerManager {
  readonly id: number;
  readonly system_id: string;
  readonly version: string | null;
  readonly platform?: string | null;
  readonly architecture?: string | null;
  readonly ip_address: string | null;
  readonly created_at?: string | null;
  readonly contacted_at: string | null;
  readonly status: "online" | "offline" | "stale" | "never_contacted" | string;
}

/** GET /runners/:id/jobs: one job the runner has taken (only the fields we read). */
export interface RunnerJob {
  readonly id: number;
  readonly status: string;
}

/** What POST /runners/verify says of a runner token. */
export type TokenVerification =
  | { readonly valid: true; readonly runnerId: number; readonly tokenExpiresAt: string | null }
  | { readonly valid: false; readonly reason: string };

/** What POST /user/runners and the reset endpoints give back. The token is a secret. */
export interface IssuedToken {
  readonly id: number;
  readonly token: string;
  readonly token_expires_at: string | null;
}

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

export interface GitLabClientOptions extends RequesterSettings {
  /** Root URL of the instance (model gitlab.url). */
  readonly url: string;
  /** Admin (or Owner) token. */
  readonly token: string;
  /** Name of the variable the token came from, for messages. */
  readonly tokenEnv: string;
  /** More secrets to keep out of messages (runner tokens seen in this run). */
  readonly knownSecrets?: () => readonly string[];
}

/** Items per page when listing; GitLab's maximum. */
export const LIST_PAGE_SIZE = 100;

export function createGitLabClient(options: GitLabClientOptions): GitLabClient {
  const baseUrl = options.url.replace(/\/+$/, "");
  const requesterFn = createRequesterFn(options);
  // queryTimeout null: each attempt has its own time limit in the requester.
  const config = { host: baseUrl, token: options.token, requesterFn, queryTimeout: null } as const;
  const runners = new Runners(config as unknown as ConstructorParameters<typeof Runners>[0]);
  const users = new Users(config as unknown as ConstructorParameters<typeof Users>[0]);
  const raw: Requester = runners.requester as unknown as Requester;

  const guard = async <T>(action: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw describeGitLabFailure(error, {
        action,
        baseUrl,
        tokenEnv: options.tokenEnv,
        secrets: [options.token, ...(options.knownSecrets?.() ?? [])],
      });
    }
  };
  const orUndefinedWhenMissing = async <T>(call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await call();
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  };

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
        return expectIssuedToken(created, "POST /api/v4/user/runners");
      }),
    getRunner: (id, action) =>
      guard(action, () => orUndefinedWhenMissing(async () => (await runners.show(id)) as unknown as RunnerDetails)),
    listRunners: (scope, action) =>
      guard(action, async () => {
        const filters = {
          type: scope.runnerType,
          ...(scope.tags && scope.tags.length > 0 ? { tagList: [...scope.tags] } : {}),
          perPage: LIST_PAGE_SIZE,
        };
        const owner = scope.groupId !== undefined ? { groupId: scope.groupId } : scope.projectId !== undefined ? { projectId: scope.projectId } : {};
        const listed = await runners.all({ ...owner, ...filters } as Parameters<typeof runners.all>[0]);
        return listed as unknown as RunnerSummary[];
      }),
    updateRunner: (id, changes, action) =>
      guard(action, async () => {
        const body = Object.fromEntries(Object.entries(changes).map(([key, value]) => [key, Array.isArray(value) ? [...value] : value]));
        return (await runners.edit(id, body as Parameters<typeof runners.edit>[1])) as unknown as RunnerDetails;
      }),
    deleteRunner: (id, action) =>
      guard(action, async () => (await orUndefinedWhenMissing(async () => runners.remove({ runnerId: id }).then(() => true))) ?? false),
    resetRunnerToken: (id, action) =>
      guard(action, async () => {
        const path = `runners/${encodeURIComponent(String(id))}/reset_authentication_token`;
        const response = await raw.post(path);
        return expectIssuedToken({ id, ...(response.body as object) }, `POST /api/v4/${path}`);
      }),
    listRunnerManagers: (id, action) =>
      guard(action, async () => {
        const managers: RunnerManager[] = [];
        // GitLab paginates this list too; follow X-Next-Page.
        for (let page = 1; page > 0; ) {
          const response = await raw.get(`runners/${encodeURIComponent(String(id))}/managers`, { searchParams: { page, perPage: LIST_PAGE_SIZE } });
          managers.push(...((response.body as RunnerManager[]) ?? []));
          page = Number(response.headers["x-next-page"] || 0);
        }
        return managers;
      }),
    listRunnerJobs: (id, status, action) =>
      guard(action, async () => {
        const jobs: RunnerJob[] = [];
        for (let page = 1; page > 0; ) {
          const response = await raw.get(`runners/${encodeURIComponent(String(id))}/jobs`, { searchParams: { status, page, perPage: LIST_PAGE_SIZE } });
          jobs.push(...((response.body as RunnerJob[]) ?? []));
          page = Number(response.headers["x-next-page"] || 0);
        }
        return jobs;
      }),
    verifyRunnerToken: (token, systemId, action) =>
      guard(action, async (): Promise<TokenVerification> => {
        try {
          const response = await raw.post("runners/verify", { body: { token, systemId } });
          const body = (response.body ?? {}) as { id?: unknown; token_expires_at?: unknown };
          return {
            valid: true,
            runnerId: typeof body.id === "number" ? body.id : Number.NaN,
            tokenExpiresAt: typeof body.token_expires_at === "string" ? body.token_expires_at : null,
          };
        } catch (error) {
          if (error instanceof GitLabHttpError && (error.status === 403 || error.status === 422)) {
            return { valid: false, reason: error.status === 422 ? "GitLab says the runner is orphaned (422)" : "GitLab refused the token (403): it is wrong, reset or expired" };
          }
          throw error;
        }
      }),
    deleteRunnerManager: (token, systemId, action) =>
      guard(action, async () => {
        try {
          await raw.delete("runners/managers", { body: { token, systemId } });
          return true;
        } catch (error) {
          if (error instanceof GitLabHttpError && error.status === 404) return false;
          throw error;
        }
      }),
  };
}

function expectIssuedToken(value: unknown, call: string): IssuedToken {
  const record = value as Partial<IssuedToken> | undefined;
  if (!record || typeof record.token !== "string" || typeof record.id !== "number") {
    // Shaped like an HTTP failure so the message explains the call; the body is not echoed (it may hold a token).
    throw new GitLabHttpError(call.split(" ")[0], call.split(" ")[1], 502, "unexpected answer without a runner token", "", undefined, new Headers());
  }
  return { id: record.id, token: record.token, token_expires_at: record.token_expires_at ?? null };
}
