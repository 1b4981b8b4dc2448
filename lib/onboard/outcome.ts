/**
 * What became of one shard: the one shape every onboarding path reports (created,
 * planned, failed, skipped), built here and nowhere else. A failure keeps its kind, so
 * callers decide on it (GitLab out of reach: stop starting shards) without reading text.
 */
import { OperationalError } from "../process/errors";
import { GitLabApiError, isOutOfReach, type GitLabFailureKind } from "../gitlab/errors";
import { SecretStoreError } from "../secrets/store";
import type { PlannedAction, ShardPlan } from "./plan";

/** Failures of onboarding's own (GitLab's have their kinds in lib/gitlab/errors.ts). */
export type OnboardFailureKind =
  /** The secret store could not read, write or delete. */
  | "secret-store"
  /** GitLab issued a token that expires (lib/gitlab/expiring-token.ts). */
  | "expiring-token"
  /** A runner was created but its token could not be stored. */
  | "store-after-create"
  /** The shard's runner has another type than the model asks for. */
  | "wrong-runner-type"
  /** Not started: GitLab was already out of reach for another shard. */
  | "not-attempted"
  | "other";

/** Why a shard failed: a failure of GitLab, with its kind, or one of onboarding's own. One plain, redacted message. */
export type ShardFailure =
  | { readonly source: "gitlab"; readonly kind: GitLabFailureKind; readonly message: string }
  | { readonly source: "onboard"; readonly kind: OnboardFailureKind; readonly message: string };

export type ShardActionKind = PlannedAction | "unchecked";

/** What was (or, in a dry run, would be) done to one shard. Holds no secret. */
export interface ShardOutcome {
  readonly shard: string;
  readonly action: ShardActionKind;
  /** True when this is a plan only. */
  readonly dryRun: boolean;
  readonly ok: boolean;
  /** The runner afterwards (or the one acted on). */
  readonly runnerId?: number;
  /** Names of the settings that were (would be) changed. */
  readonly changedFields: readonly string[];
  /** "tag_list: [..] -> [..]" for each change. */
  readonly changes: readonly string[];
  /** Why this action. */
  readonly reason: string;
  /** Where the token lives (never the token). */
  readonly secret: string;
  /** True once a fresh token was written to the store in this run. */
  readonly tokenStored: boolean;
  /** Things a person should know: duplicates, compensations. */
  readonly notes: readonly string[];
  /** Duplicate runners of the shard deleted (or, in a dry run, to delete). */
  readonly duplicates?: readonly number[];
  /** Why the shard failed (kind and message). */
  readonly failure?: ShardFailure;
  /** The failure's message, for readers of the JSON report. */
  readonly error?: string;
}

/** What carrying out a plan (or part of it) achieved. */
export interface Progress {
  readonly runnerId?: number;
  readonly tokenStored: boolean;
  readonly notes: readonly string[];
  readonly duplicates: readonly number[];
}

/** What an outcome reports of a shard's plan; a shard that was not looked up has a plan of nothing, "unchecked". */
type Planned = Omit<ShardPlan, "action" | "steps"> & { readonly action: ShardActionKind };

/**
 * The one constructor of ShardOutcome. `progress` omitted: the plan itself (a dry run,
 * or nothing was done); `failure`: the shard failed. A blocked plan fails by itself.
 */
export function shardOutcome(
  plan: Planned,
  { dryRun, progress, failure }: { readonly dryRun: boolean; readonly progress?: Progress; readonly failure?: ShardFailure },
): ShardOutcome {
  const done = progress ?? { runnerId: plan.runnerId, tokenStored: false, notes: plan.notes, duplicates: plan.duplicates };
  const problem = failure ?? (plan.blocked === undefined ? undefined : onboardFailure("wrong-runner-type", plan.blocked));
  return {
    shard: plan.shard,
    action: plan.action,
    dryRun,
    ok: problem === undefined,
    ...(done.runnerId === undefined ? {} : { runnerId: done.runnerId }),
    changedFields: plan.changedFields,
    changes: plan.changes,
    reason: plan.reason,
    secret: plan.secret,
    tokenStored: done.tokenStored,
    notes: done.notes,
    ...(done.duplicates.length > 0 ? { duplicates: done.duplicates } : {}),
    ...(problem ? { failure: problem, error: problem.message } : {}),
  };
}

/** A shard whose runner was not looked up: GitLab was not queried, could not be, or was already out of reach. */
export function uncheckedOutcome(unchecked: {
  readonly shard: string;
  readonly secret: string;
  readonly reason: string;
  readonly dryRun: boolean;
  readonly failure?: ShardFailure;
}): ShardOutcome {
  const { shard, secret, reason, dryRun, failure } = unchecked;
  return shardOutcome({ shard, action: "unchecked", reason, changes: [], changedFields: [], duplicates: [], notes: [], secret }, { dryRun, failure });
}

/** The failure an error stands for, from its type (never from its text). */
export function failureOf(error: OperationalError): ShardFailure {
  if (error instanceof GitLabApiError) return { source: "gitlab", kind: error.kind, message: error.message };
  if (error instanceof OnboardStepError) return onboardFailure(error.kind, error.message);
  return onboardFailure(error instanceof SecretStoreError ? "secret-store" : "other", error.message);
}

export function onboardFailure(kind: OnboardFailureKind, message: string): ShardFailure {
  return { source: "onboard", kind, message };
}

/** A step that failed in a way of onboarding's own (the message says what became of the runner). */
export class OnboardStepError extends OperationalError {
  constructor(
    message: string,
    readonly kind: "expiring-token" | "store-after-create",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "OnboardStepError";
  }
}

/** A shard's reason when nothing answered at gitlab.url: the cause itself is reported once for the cell (shardProblems). */
export const NOT_REACHED_REASON = "GitLab could not be reached";

/**
 * The run's problems, one line each: a shard's failure names its shard, while a GitLab that never
 * answered is one cause, said once whatever number of shards met it.
 */
export function shardProblems(outcomes: readonly ShardOutcome[]): string[] {
  const problems = new Set<string>();
  for (const { shard, failure } of outcomes) {
    if (!failure) continue;
    problems.add(failure.kind === "not-reached" || failure.message.includes(`shard ${shard}`) ? failure.message : `shard ${shard}: ${failure.message}`);
  }
  return [...problems];
}

/** GitLab could not be reached (or kept failing until the retry budget ran out): other shards would fare no better. */
export function outOfReach(failure: ShardFailure | undefined): boolean {
  return failure?.source === "gitlab" && isOutOfReach(failure.kind);
}
