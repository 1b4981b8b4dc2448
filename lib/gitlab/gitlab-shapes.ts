/**
 * What GitLab answers, as /work/shared/docs/gitlab-api.md (and GitLab's
 * lib/api/entities) describe it, with only the fields we read. The client checks each
 * answer against these shapes instead of trusting a cast, so a proxy or an odd
 * instance fails with a clear message rather than deep inside onboarding.
 */
import { z } from "zod";

export type RunnerTypeName = "instance_type" | "group_type" | "project_type";
export type AccessLevel = "not_protected" | "ref_protected";

/** A runner as GET /runners/all (and the group and project listings) list it. */
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

/** What POST /user/runners and the reset endpoints give back. The token is a secret. */
export interface IssuedToken {
  readonly id: number;
  readonly token: string;
  readonly token_expires_at: string | null;
}

/** A merge request note (GET/POST/PUT /projects/:id/merge_requests/:iid/notes). */
export interface MergeRequestNote {
  readonly id: number;
  readonly body: string;
  /** Notes GitLab writes itself ("added 1 commit"), never ours. */
  readonly system: boolean;
}

const runnerType = z.enum(["instance_type", "group_type", "project_type"]);
const nullableString = z.string().nullable();
/** A field GitLab has in newer versions only. */
const optionalString = z.string().nullish();

/** What a runner listing shows of each runner; its details add to it. */
const runnerSummaryObject = z.object({
  id: z.number(),
  description: nullableString,
  runner_type: runnerType,
  paused: z.boolean(),
  online: z.boolean().nullable(),
  status: z.string(),
});

export const runnerSummaryShape: z.ZodType<RunnerSummary> = runnerSummaryObject;

export const runnerDetailsShape: z.ZodType<RunnerDetails> = runnerSummaryObject.extend({
  tag_list: z.array(z.string()).nullable(),
  run_untagged: z.boolean(),
  locked: z.boolean(),
  access_level: z.string(),
  maximum_timeout: z.number().nullable(),
  maintenance_note: nullableString.default(null),
  contacted_at: optionalString,
  version: optionalString,
  groups: z.array(z.object({ id: z.number() })).optional(),
  projects: z.array(z.object({ id: z.number() })).optional(),
});

export const runnerManagerShape: z.ZodType<RunnerManager> = z.object({
  id: z.number(),
  system_id: z.string(),
  version: nullableString,
  platform: optionalString,
  architecture: optionalString,
  ip_address: nullableString,
  created_at: optionalString,
  contacted_at: nullableString,
  status: z.string(),
});

export const runnerJobShape: z.ZodType<RunnerJob> = z.object({ id: z.number(), status: z.string() });

/**
 * GET /runners/:id/jobs with the timings `simulate --export` reads (doc/api/runners.md, "List jobs
 * processed by a runner"; the job entity's created_at, started_at, duration and queued_duration).
 * tag_list is read where the answer has it; older entities leave it out.
 */
export interface RunnerJobTiming extends RunnerJob {
  readonly created_at: string;
  readonly started_at: string | null;
  readonly duration: number | null;
  readonly queued_duration: number | null;
  readonly tag_list?: readonly string[];
  /** Why a failed job failed (runner_system_failure, script_failure, ...): in the job entity since gitlab-org/gitlab MR 74888 ("Return job failure reason in API responses"); absent on older GitLab. */
  readonly failure_reason?: string | null;
  /** The manager that ran the job (in the job entity since gitlab-org/gitlab commit 7a8a40db, May 2024, "Add runner_manager to job entity"). */
  readonly runner_manager?: { readonly system_id: string } | null;
}

export const runnerJobTimingShape: z.ZodType<RunnerJobTiming> = z.object({
  id: z.number(),
  status: z.string(),
  created_at: z.string(),
  started_at: nullableString.default(null),
  duration: z.number().nullable().default(null),
  queued_duration: z.number().nullable().default(null),
  tag_list: z.array(z.string()).optional(),
  failure_reason: z.string().nullable().optional(),
  runner_manager: z.object({ system_id: z.string() }).nullable().optional(),
});

export const issuedTokenShape: z.ZodType<IssuedToken> = z.object({
  id: z.number(),
  token: z.string(),
  token_expires_at: nullableString.default(null),
});

/** POST /runners/:id/reset_authentication_token: the new token, without the runner id. */
export const resetTokenShape = z.object({ token: z.string(), token_expires_at: nullableString.default(null) });

/** POST /runners/verify: 200 {id, token, token_expires_at}. */
export const tokenVerificationShape = z.object({ id: z.number(), token_expires_at: nullableString.default(null) });

export const mergeRequestNoteShape: z.ZodType<MergeRequestNote> = z.object({ id: z.number(), body: z.string(), system: z.boolean().default(false) });
