/**
 * Step 1 of onboarding: the plan. A pure function from what a shard asks for (the
 * desired runner) and what GitLab and the secret store hold (./observed.ts, fetched
 * beforehand) to the steps that make them agree. No I/O: the same plan is what
 * `onboard --dry-run` prints and what ./execute.ts carries out.
 *
 * RULES (identity: how a shard's runner is found, is in ./observe.ts)
 * - No runner: it is created and its token stored (create-runner).
 * - A runner of another type than the shard asks for is not touched: the plan is blocked
 *   (GitLab cannot change a runner's type).
 * - Found with its token stored and GitLab accepting that token: only drifted settings are
 *   PUT (none: nothing is written). Dry runs do not verify the token (verifying registers
 *   a contact in GitLab), so they say so instead.
 * - Found without a stored token of its own (found by marker, or the token is refused or
 *   belongs to another runner): adopted, i.e. its token is reset and stored (reset-token),
 *   never a second runner created.
 * - Found by the stored id, its token not refused, and without the shard's marker: a runner that
 *   existed before runner-fleet (`import --adopt`), adopted with its token kept (./adopt-imported.ts).
 * - rotate: the token is reset and stored; remove: the runner is deleted, then its secret.
 * - Every other runner carrying the shard's marker is a duplicate and is deleted.
 */
import type { NewRunner, RunnerDetails, RunnerSettings } from "../gitlab/client";
import { describeChanges, diffRunner, runnerSettings } from "../gitlab/runner-spec";
import { importedRunnerAdoption } from "./adopt-imported";
import type { ObservedShard } from "./observed";

export type ReconcileMode = "reconcile" | "rotate" | "remove";

/** One thing the executor does to GitLab or the secret store. Holds no secret. */
export type OnboardStep =
  /** POST /user/runners, recovering a lost answer by the marker; stores the token; settles concurrent creates. */
  | { readonly kind: "create-runner"; readonly runner: NewRunner }
  /** POST /runners/:id/reset_authentication_token, then the new token is stored. */
  | { readonly kind: "reset-token"; readonly runnerId: number; readonly because: "adopt" | "rotate" }
  /** PUT /runners/:id with only the drifted settings. */
  | { readonly kind: "update-runner"; readonly runnerId: number; readonly changes: Partial<RunnerSettings> }
  /** DELETE /runners/:id of the shard's runner. */
  | { readonly kind: "delete-runner"; readonly runnerId: number }
  /** DELETE /runners/:id of another runner carrying the shard's marker. */
  | { readonly kind: "delete-duplicate"; readonly runnerId: number }
  /** The shard's secret is deleted from the store. */
  | { readonly kind: "delete-secret" };

/** What a shard's plan amounts to, in one word (the report's verb). */
export type PlannedAction = "create" | "update" | "adopt" | "adopt-existing" | "rotate" | "delete" | "none" | "blocked";

export interface ShardPlan {
  readonly shard: string;
  readonly action: PlannedAction;
  /** The shard's runner as found (none for a create). */
  readonly runnerId?: number;
  /** Why this action. */
  readonly reason: string;
  /** "tag_list: [..] -> [..]" for each drifted setting. */
  readonly changes: readonly string[];
  readonly changedFields: readonly string[];
  /** Other runners carrying the shard's marker (deleted by the steps). */
  readonly duplicates: readonly number[];
  /** Things a person should know. */
  readonly notes: readonly string[];
  /** Where the token lives (never the token). */
  readonly secret: string;
  /** In order; empty when nothing is to be done. */
  readonly steps: readonly OnboardStep[];
  /** Set for a blocked plan: why nothing can be done. */
  readonly blocked?: string;
}

/** A shard as the model wants it. */
export interface DesiredShard {
  readonly shard: string;
  readonly runner: NewRunner;
  /** Where its token lives, for people. */
  readonly secret: string;
}

export interface PlanSettings {
  readonly mode: ReconcileMode;
  readonly dryRun: boolean;
  /** The model's GitLab, for the note on a token stored for another. */
  readonly gitlabUrl: string;
}

export function planShard(settings: PlanSettings, desired: DesiredShard, observed: ObservedShard): ShardPlan {
  const { mode, dryRun } = settings;
  const runner = observed.runner;
  const notes: string[] = [];
  if (observed.secret.kind === "foreign") notes.push(`the stored token belongs to ${observed.secret.gitlabUrl}, not ${settings.gitlabUrl}; it is replaced`);
  if (observed.staleStoredId !== undefined) notes.push(`runner #${observed.staleStoredId} of the stored token no longer exists in GitLab`);
  const duplicates = observed.duplicates.map((duplicate) => duplicate.id);
  if (duplicates.length > 0) {
    const kept = mode === "remove" || !runner ? "" : `, runner #${runner.id} is kept`;
    notes.push(`more runners carry this shard's marker: ${duplicates.map((id) => `#${id}`).join(", ")}; ${dryRun ? "they would be deleted" : "they are deleted"}${kept}`);
  }
  const deleteDuplicates = duplicates.map((runnerId): OnboardStep => ({ kind: "delete-duplicate", runnerId }));
  const plan = (action: PlannedAction, reason: string, steps: readonly OnboardStep[], changes: Partial<RunnerSettings> = {}, extra: Partial<ShardPlan> = {}): ShardPlan => ({
    shard: desired.shard,
    action,
    ...(runner ? { runnerId: runner.id } : {}),
    reason,
    changes: describeChanges(changes, runner),
    changedFields: Object.keys(changes),
    duplicates,
    notes,
    secret: desired.secret,
    steps,
    ...extra,
  });

  if (mode === "remove") {
    if (runner) return plan("delete", `runner #${runner.id} found by ${observed.foundBy === "stored-id" ? "the stored runner id" : "its marker"}`, [{ kind: "delete-runner", runnerId: runner.id }, { kind: "delete-secret" }, ...deleteDuplicates]);
    if (observed.secret.kind === "stored" || observed.secret.kind === "unread") return plan("delete", "no runner in GitLab; only the secret is deleted", [{ kind: "delete-secret" }, ...deleteDuplicates]);
    return plan("none", "no runner and no secret", deleteDuplicates);
  }
  if (!runner) {
    const reason = observed.staleStoredId !== undefined ? "the stored runner was deleted from GitLab" : "no runner carries the shard's marker";
    return plan("create", reason, [{ kind: "create-runner", runner: desired.runner }]);
  }
  if (runner.runner_type !== desired.runner.runner_type) {
    const blocked = `shard ${desired.shard}: runner #${runner.id} is ${runner.runner_type} but the model asks for ${desired.runner.runner_type}; GitLab cannot change a runner's type. Remove the runner (onboard --remove --shard ${desired.shard}), then run onboard again.`;
    return plan("blocked", `runner #${runner.id} is ${runner.runner_type}, the model asks for ${desired.runner.runner_type}`, [], {}, { blocked });
  }
  const changes = diffRunner(runnerSettings(desired.runner), runner);
  const update: OnboardStep[] = Object.keys(changes).length > 0 ? [{ kind: "update-runner", runnerId: runner.id, changes }] : [];
  const resetToken = (because: "adopt" | "rotate"): OnboardStep[] => [{ kind: "reset-token", runnerId: runner.id, because }, ...update, ...deleteDuplicates];

  if (mode === "rotate") return plan("rotate", "token rotation requested", resetToken("rotate"), changes);
  const existing = importedRunnerAdoption(observed, runner, desired.runner.maintenance_note);
  if (existing) return plan("adopt-existing", existing, [...update, ...deleteDuplicates], changes);
  const adopt = adoptionReason(observed, runner, notes, dryRun);
  if (adopt) return plan("adopt", adopt, resetToken("adopt"), changes);
  if (observed.renamedFrom !== undefined && update.length > 0) {
    const reason = `runner #${runner.id} of shard ${observed.renamedFrom}, renamed to ${desired.shard} (renamed_from): its description and marker follow the new name; the runner, its token and its secret are kept`;
    return plan("update", reason, [...update, ...deleteDuplicates], changes);
  }
  if (update.length > 0) return plan("update", `settings of runner #${runner.id} drifted`, [...update, ...deleteDuplicates], changes);
  return plan("none", `runner #${runner.id} matches the model`, deleteDuplicates, changes);
}

/** Why the runner's token must be reset and stored, or undefined when the stored one serves (a note says when that is unknown). */
function adoptionReason(observed: ObservedShard, runner: RunnerDetails, notes: string[], dryRun: boolean): string | undefined {
  const { secret, token } = observed;
  if (secret.kind === "unread") {
    notes.push("the secret store was not read (dry run without cloud credentials); a missing token would also be recovered");
    return undefined;
  }
  if (secret.kind !== "stored" || secret.runnerId !== runner.id) return `runner #${runner.id} found by its marker has no stored token; its token is reset and stored`;
  if (token.kind === "refused") return `the stored token of runner #${runner.id} no longer works (${token.reason}); its token is reset and stored`;
  if (token.kind === "unverified" && dryRun) {
    notes.push("the stored token was not verified (a dry run sends nothing; verifying registers a contact in GitLab); a token GitLab refuses would be reset");
  }
  return undefined;
}
