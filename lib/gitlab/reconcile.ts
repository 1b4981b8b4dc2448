/**
 * Reconciles one shard of a model with GitLab: exactly one runner per shard, its
 * settings as the model says, its token in the model's secret store and nowhere else.
 *
 * IDENTITY: how a shard's runner is found again
 * 1. The secret store keeps, with the token, the runner id and the GitLab URL. When
 *    the URL is the model's, GET /runners/:id finds the runner.
 * 2. Otherwise (no secret, another GitLab, or the id 404s because someone deleted the
 *    runner by hand), the shard's runners are listed (GET /runners/all for instance
 *    runners, /groups/:id/runners or /projects/:id/runners for the others; filtered by
 *    type and the shard's tags; every page) and GET /runners/:id tells which carries
 *    the marker `[runner-fleet cell=<cell> shard=<shard>]` in its maintenance note.
 *    The tags do not decide: a runner whose tags changed is still found.
 *    The oldest match is the shard's runner.
 * Every lookup also lists the runners carrying the marker: any beyond the shard's
 * runner are duplicates (two runs at once, a lost create answer) and are deleted.
 * 3. Nothing found: the runner is created (POST /user/runners) and its token stored.
 *
 * RULES
 * - Found by id with its token stored: the token is verified (POST /runners/verify, see
 *   ./verify-token.ts); a token GitLab refuses (reset behind our back, expired) is
 *   repaired by resetting it, never by creating a second runner. Then only drifted
 *   settings are PUT (none: no write). Dry runs do not verify (verifying registers a
 *   contact in GitLab).
 * - Found by marker (no token, or a token of another runner): the runner is adopted:
 *   its token is reset (POST /runners/:id/reset_authentication_token) and stored. This
 *   heals a crash between create and store, and a create whose answer was lost.
 * - A create is never retried blindly: when it fails in a way that may have created
 *   the runner anyway (5xx, connection dropped, timeout), the marker search runs
 *   before the next try, and a runner it finds is adopted.
 * - Created but the token cannot be stored: the runner is deleted again. If even that
 *   fails, it carries its marker, so the next run adopts it (reset + store).
 * - After a create, the marker search runs again: when another run created a runner for
 *   the shard at the same time, the oldest is kept, the others are deleted, and the
 *   kept runner's token is reset and stored when it is not the one just created.
 *   (onboard also holds a per-cell lock, lib/state/cell-lock.ts, so this is the
 *   safety net for runs on different machines.)
 * - --rotate resets the token and stores the new one; --remove deletes the runner and
 *   its duplicates (GitLab first, then the secret, so a failed delete keeps the token).
 * - A runner of another type than the shard asks for is not touched: an error says so.
 * - Tokens that expire are refused (lib/gitlab/expiring-token.ts says why): a created runner
 *   is deleted again; a reset token is stored all the same (the old one is already dead)
 *   and the shard fails with the fix.
 */
import { OperationalError } from "../errors";
import type { RunnerModel, Shard } from "../model/schema";
import type { SecretStore, StoredRunnerToken } from "../secrets/store";
import type { GitLabClient, IssuedToken, NewRunner, RunnerDetails, RunnerSettings } from "./client";
import { GitLabApiError } from "./errors";
import { ExpiringTokenError, expiringTokenProblem } from "./expiring-token";
import { findRunnersByMarker, locateRunner, type LocatedRunner } from "./locate-runner";
import { checkRunnerToken } from "./verify-token";
import { formatMs, RetryBudgetExceededError, withRetry, type RetryClock, type RetryPolicy } from "./retry";
import { describeChanges, desiredRunner, diffRunner, runnerSettings } from "./runner-spec";

export type ReconcileMode = "reconcile" | "rotate" | "remove";
export type ShardActionKind = "create" | "update" | "adopt" | "rotate" | "delete" | "none" | "unchecked";

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
  readonly error?: string;
}

export interface ReconcileContext {
  readonly model: RunnerModel;
  readonly client: GitLabClient;
  readonly store: SecretStore;
  readonly dryRun: boolean;
  /** False in dry runs against cloud stores: no credentials are touched. */
  readonly readSecrets: boolean;
  readonly policy: RetryPolicy;
  readonly clock: RetryClock;
  readonly log: (line: string) => void;
  /** Told about every runner token seen, so messages can scrub it. */
  readonly rememberSecret: (token: string) => void;
}

interface Plan {
  readonly action: Exclude<ShardActionKind, "unchecked">;
  readonly desired: NewRunner;
  readonly located: LocatedRunner;
  readonly stored?: StoredRunnerToken;
  readonly changes: Partial<RunnerSettings>;
  readonly reason: string;
  readonly notes: string[];
}

/** Runners carrying the shard's marker besides the one kept. */
function duplicatesOf(plan: Plan): readonly RunnerDetails[] {
  return plan.located.duplicates;
}

export async function reconcileShard(ctx: ReconcileContext, shard: Shard, mode: ReconcileMode): Promise<ShardOutcome> {
  let plan: Plan;
  try {
    plan = await planShard(ctx, shard, mode);
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    return failedOutcome(ctx, shard, "unchecked", error, "the shard's runner could not be looked up");
  }
  const base = {
    shard: shard.name,
    action: plan.action,
    dryRun: ctx.dryRun,
    changedFields: Object.keys(plan.changes),
    changes: describeChanges(plan.changes, plan.located.runner),
    reason: plan.reason,
    secret: ctx.store.describe(shard),
    ...(duplicatesOf(plan).length > 0 ? { duplicates: duplicatesOf(plan).map((runner) => runner.id) } : {}),
  };
  if (ctx.dryRun || (plan.action === "none" && duplicatesOf(plan).length === 0)) {
    return { ...base, ok: true, runnerId: plan.located.runner?.id, tokenStored: false, notes: plan.notes };
  }
  try {
    return await applyPlan(ctx, shard, plan, base);
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    return { ...base, ok: false, runnerId: plan.located.runner?.id, tokenStored: false, notes: plan.notes, error: error.message };
  }
}

/** The outcome of a shard that failed before anything was planned. */
export function failedOutcome(ctx: Pick<ReconcileContext, "dryRun" | "store">, shard: Shard, action: ShardActionKind, error: Error, reason: string): ShardOutcome {
  return {
    shard: shard.name,
    action,
    dryRun: ctx.dryRun,
    ok: false,
    changedFields: [],
    changes: [],
    reason,
    secret: ctx.store.describe(shard),
    tokenStored: false,
    notes: [],
    error: error.message,
  };
}

async function planShard(ctx: ReconcileContext, shard: Shard, mode: ReconcileMode): Promise<Plan> {
  const desired = desiredRunner(ctx.model, shard);
  const notes: string[] = [];
  let stored = ctx.readSecrets ? await ctx.store.read(shard) : undefined;
  if (stored) ctx.rememberSecret(stored.token);
  if (stored && stored.gitlabUrl && sameUrl(stored.gitlabUrl, ctx.model.gitlab.url) === false) {
    notes.push(`the stored token belongs to ${stored.gitlabUrl}, not ${ctx.model.gitlab.url}; it is replaced`);
    stored = undefined;
  }
  const located = await locateRunner(ctx, shard, desired, stored);
  if (located.staleStoredId !== undefined) notes.push(`runner #${located.staleStoredId} of the stored token no longer exists in GitLab`);
  if (located.duplicates.length > 0) {
    const ids = located.duplicates.map((duplicate) => `#${duplicate.id}`).join(", ");
    const kept = mode === "remove" ? "" : `, runner #${located.runner!.id} is kept`;
    notes.push(`more runners carry this shard's marker: ${ids}; ${ctx.dryRun ? "they would be deleted" : "they are deleted"}${kept}`);
  }
  const runner = located.runner;
  const changes = runner ? diffRunner(runnerSettings(desired), runner) : {};
  const tokenMatches = stored !== undefined && runner !== undefined && stored.runnerId === runner.id;
  const common = { desired, located, stored, notes };

  if (mode === "remove") {
    if (runner) return { ...common, action: "delete", changes: {}, reason: `runner #${runner.id} found by ${foundByText(located)}` };
    if (stored || !ctx.readSecrets) return { ...common, action: "delete", changes: {}, reason: "no runner in GitLab; only the secret is deleted" };
    return { ...common, action: "none", changes: {}, reason: "no runner and no secret" };
  }
  if (runner && runner.runner_type !== desired.runner_type) {
    throw new GitLabApiError(
      `shard ${shard.name}: runner #${runner.id} is ${runner.runner_type} but the model asks for ${desired.runner_type}; GitLab cannot change a runner's type. Remove the runner (onboard --remove --shard ${shard.name}), then run onboard again.`,
      "rejected",
      false,
    );
  }
  if (!runner) {
    return { ...common, action: "create", changes: {}, reason: located.staleStoredId !== undefined ? "the stored runner was deleted from GitLab" : "no runner carries the shard's marker" };
  }
  if (mode === "rotate") return { ...common, action: "rotate", changes, reason: "token rotation requested" };
  if (!ctx.readSecrets) {
    notes.push("the secret store was not read (dry run without cloud credentials); a missing token would also be recovered");
  } else if (!tokenMatches) {
    return { ...common, action: "adopt", changes, reason: `runner #${runner.id} found by its marker has no stored token; its token is reset and stored` };
  } else if (ctx.dryRun) {
    notes.push("the stored token was not verified (a dry run sends nothing; verifying registers a contact in GitLab); a token GitLab refuses would be reset");
  } else {
    const check = await checkRunnerToken(ctx.client, stored!.token, runner.id, `runner #${runner.id} of shard ${shard.name}`);
    if (!check.valid || !check.matchesRunner) {
      const why = check.valid ? `it belongs to runner #${check.runnerId}` : check.reason;
      return { ...common, action: "adopt", changes, reason: `the stored token of runner #${runner.id} no longer works (${why}); its token is reset and stored` };
    }
  }
  if (Object.keys(changes).length > 0) return { ...common, action: "update", changes, reason: `settings of runner #${runner.id} drifted` };
  return { ...common, action: "none", changes, reason: `runner #${runner.id} matches the model` };
}

type OutcomeBase = Omit<ShardOutcome, "ok" | "runnerId" | "tokenStored" | "notes" | "error">;

async function applyPlan(ctx: ReconcileContext, shard: Shard, plan: Plan, base: OutcomeBase): Promise<ShardOutcome> {
  const outcome = await applyAction(ctx, shard, plan, base);
  // A create settles duplicates itself (it looks again after creating).
  if (plan.action === "create") return outcome;
  const deleted = await deleteDuplicates(ctx, shard, duplicatesOf(plan).map((runner) => runner.id));
  return deleted.length > 0 ? { ...outcome, duplicates: deleted } : outcome;
}

async function applyAction(ctx: ReconcileContext, shard: Shard, plan: Plan, base: OutcomeBase): Promise<ShardOutcome> {
  const notes = [...plan.notes];
  const label = `${ctx.model.cell.id}/${shard.name}`;
  const runner = plan.located.runner;
  switch (plan.action) {
    case "create": {
      ctx.log(`${label}: creating runner "${plan.desired.description}"`);
      const created = await createOrRecover(ctx, shard, plan.desired);
      if (created.kind === "recovered") {
        notes.push(`the create's answer was lost; runner #${created.runner.id} was found by its marker and its token reset`);
        const issued = await resetToken(ctx, shard, created.runner.id);
        await storeToken(ctx, shard, issued, true);
        const expiring = expiringTokenProblem(shard, issued);
        if (expiring) return { ...base, ok: false, runnerId: created.runner.id, tokenStored: true, notes, error: expiring };
        const drift = diffRunner(runnerSettings(plan.desired), created.runner);
        if (Object.keys(drift).length > 0) await ctx.client.updateRunner(created.runner.id, drift, `update runner #${created.runner.id} of shard ${shard.name}`);
        ctx.log(`${label}: runner #${created.runner.id} recovered, token stored in ${ctx.store.describe(shard)}`);
        const settled = await settleAfterCreate(ctx, shard, plan.desired, created.runner.id);
        return { ...base, ok: true, runnerId: settled.keptId, tokenStored: true, notes: [...notes, ...settled.notes], ...settled.duplicates };
      }
      const issued = created.issued;
      const expiring = expiringTokenProblem(shard, issued);
      if (expiring) throw new ExpiringTokenError(`${expiring} ${await deleteRefusedRunner(ctx, shard, issued.id)}`);
      try {
        await storeToken(ctx, shard, issued, false);
      } catch (storeError) {
        const undo = await deleteAfterFailedStore(ctx, shard, issued.id);
        throw new StoreAfterCreateError(
          `shard ${shard.name}: runner #${issued.id} was created but its token could not be stored (${(storeError as Error).message}); ${undo}`,
          { cause: storeError },
        );
      }
      ctx.log(`${label}: runner #${issued.id} created, token stored in ${ctx.store.describe(shard)}`);
      const settled = await settleAfterCreate(ctx, shard, plan.desired, issued.id);
      return { ...base, ok: true, runnerId: settled.keptId, tokenStored: true, notes: [...notes, ...settled.notes], ...settled.duplicates };
    }
    case "adopt":
    case "rotate": {
      const id = runner!.id;
      ctx.log(`${label}: resetting the token of runner #${id}`);
      const issued = await resetToken(ctx, shard, id);
      await storeToken(ctx, shard, issued, true);
      const expiring = expiringTokenProblem(shard, issued);
      if (expiring) return { ...base, ok: false, runnerId: id, tokenStored: true, notes, error: `${expiring} The new token is stored so the managers keep working until it expires.` };
      if (Object.keys(plan.changes).length > 0) await ctx.client.updateRunner(id, plan.changes, `update runner #${id} of shard ${shard.name}`);
      ctx.log(`${label}: runner #${id} has a new token, stored in ${ctx.store.describe(shard)}`);
      return { ...base, ok: true, runnerId: id, tokenStored: true, notes };
    }
    case "update": {
      const id = runner!.id;
      ctx.log(`${label}: updating runner #${id}: ${Object.keys(plan.changes).join(", ")}`);
      await ctx.client.updateRunner(id, plan.changes, `update runner #${id} of shard ${shard.name}`);
      return { ...base, ok: true, runnerId: id, tokenStored: false, notes };
    }
    case "delete": {
      for (const id of runner ? [runner.id] : []) {
        ctx.log(`${label}: deleting runner #${id}`);
        await ctx.client.deleteRunner(id, `delete runner #${id} of shard ${shard.name}`);
      }
      const removed = await ctx.store.remove(shard);
      if (removed) ctx.log(`${label}: deleted ${ctx.store.describe(shard)}`);
      return { ...base, ok: true, runnerId: runner?.id, tokenStored: false, notes };
    }
    case "none":
      return { ...base, ok: true, runnerId: runner?.id, tokenStored: false, notes };
  }
}

/**
 * After a create: another run may have created a runner for the shard at the same time
 * (on another machine, where the cell lock does not reach). Every run keeps the oldest,
 * so concurrent runs agree on which one stays; the others are deleted. When the kept
 * runner is not the one just created, its token is reset and stored.
 */
async function settleAfterCreate(
  ctx: ReconcileContext,
  shard: Shard,
  desired: NewRunner,
  createdId: number,
): Promise<{ keptId: number; notes: string[]; duplicates: { duplicates?: number[] } }> {
  const marked = (await findRunnersByMarker(ctx, shard, desired)).map((runner) => runner.id);
  const ids = [...new Set([...marked, createdId])].sort((a, b) => a - b);
  if (ids.length === 1) return { keptId: createdId, notes: [], duplicates: {} };
  const [keptId, ...others] = ids;
  const label = `${ctx.model.cell.id}/${shard.name}`;
  ctx.log(`${label}: another run created runners for this shard at the same time (${ids.map((id) => `#${id}`).join(", ")}); keeping #${keptId}`);
  const deleted = await deleteDuplicates(ctx, shard, others);
  const notes = [`runners ${ids.map((id) => `#${id}`).join(", ")} were created for this shard at the same time; #${keptId} is kept, ${deleted.map((id) => `#${id}`).join(", ")} deleted`];
  if (keptId !== createdId) {
    const issued = await resetToken(ctx, shard, keptId);
    await storeToken(ctx, shard, issued, true);
    notes.push(`the token of runner #${keptId} was reset and stored`);
  }
  return { keptId, notes, duplicates: { duplicates: deleted } };
}

/** Deletes duplicate runners of a shard; the ids deleted (or already gone). */
async function deleteDuplicates(ctx: ReconcileContext, shard: Shard, ids: readonly number[]): Promise<number[]> {
  for (const id of ids) {
    ctx.log(`${ctx.model.cell.id}/${shard.name}: deleting duplicate runner #${id}`);
    await ctx.client.deleteRunner(id, `delete duplicate runner #${id} of shard ${shard.name}`);
  }
  return [...ids];
}

/** A created runner whose token could not be stored: the outcome says what became of the runner. */
export class StoreAfterCreateError extends GitLabApiError {
  constructor(message: string, options: { cause: unknown }) {
    super(message, "rejected", false, undefined, options);
    this.name = "StoreAfterCreateError";
  }
}

type CreateResult = { readonly kind: "created"; readonly issued: IssuedToken } | { readonly kind: "recovered"; readonly runner: RunnerDetails };

/**
 * POST /user/runners, and when it fails in a way that may have created the runner
 * anyway, look for the marker before trying again (never a blind retry).
 */
async function createOrRecover(ctx: ReconcileContext, shard: Shard, desired: NewRunner): Promise<CreateResult> {
  return withRetry<CreateResult>(
    async (attempt) => {
      if (attempt > 0) {
        const [found] = await findRunnersByMarker(ctx, shard, desired);
        if (found) return { kind: "recovered", runner: found };
      }
      const issued = await ctx.client.createRunner(desired, `create the runner of shard ${shard.name}`);
      ctx.rememberSecret(issued.token);
      return { kind: "created", issued };
    },
    {
      policy: ctx.policy,
      clock: ctx.clock,
      classify: (error) =>
        error instanceof GitLabApiError && error.transient ? { kind: "transient", reason: error.message } : { kind: "fatal" },
      onRetry: (event) =>
        ctx.log(`${ctx.model.cell.id}/${shard.name}: creating the runner failed (${event.reason}); looking for it by its marker before trying again in ${Math.round(event.delayMs)}ms`),
    },
  ).catch((error: unknown) => {
    if (error instanceof RetryBudgetExceededError && error.cause instanceof GitLabApiError) {
      const last = error.cause;
      throw new GitLabApiError(
        `${last.message}; gave up after ${error.attempts} attempts in ${formatMs(error.elapsedMs)} (retry budget ${formatMs(error.budgetMs)}, set --retry-timeout)`,
        "gave-up",
        last.outcomeUnknown,
        last.status,
        { cause: error },
      );
    }
    throw error;
  });
}

async function resetToken(ctx: ReconcileContext, shard: Shard, runnerId: number): Promise<IssuedToken> {
  const issued = await ctx.client.resetRunnerToken(runnerId, `reset the token of runner #${runnerId} of shard ${shard.name}`);
  ctx.rememberSecret(issued.token);
  return issued;
}

async function storeToken(ctx: ReconcileContext, shard: Shard, issued: IssuedToken, rotated: boolean): Promise<void> {
  const now = new Date(ctx.clock.now()).toISOString();
  await ctx.store.write(shard, {
    token: issued.token,
    runnerId: issued.id,
    gitlabUrl: ctx.model.gitlab.url,
    tokenExpiresAt: issued.token_expires_at,
    createdAt: now,
    ...(rotated ? { rotatedAt: now } : {}),
  });
}

/** Undo of a create whose token could not be stored; says what happened for the error message. */
async function deleteAfterFailedStore(ctx: ReconcileContext, shard: Shard, runnerId: number): Promise<string> {
  try {
    await ctx.client.deleteRunner(runnerId, `delete runner #${runnerId} of shard ${shard.name} again`);
    return `the runner was deleted again, so nothing is left behind; fix the secret store and run onboard again`;
  } catch (error) {
    return `deleting it again failed too (${(error as Error).message}); it carries the shard's marker, so the next onboard run finds it, resets its token and stores it`;
  }
}

/** Undo of a create whose token expires: nothing is left behind. */
async function deleteRefusedRunner(ctx: ReconcileContext, shard: Shard, runnerId: number): Promise<string> {
  try {
    await ctx.client.deleteRunner(runnerId, `delete runner #${runnerId} of shard ${shard.name} again`);
    return `The new runner was deleted again.`;
  } catch (error) {
    return `Deleting the new runner #${runnerId} again failed (${(error as Error).message}); it carries the shard's marker, so the next onboard run adopts it.`;
  }
}

function foundByText(located: LocatedRunner): string {
  return located.foundBy === "stored-id" ? "the stored runner id" : "its marker";
}

function sameUrl(a: string, b: string): boolean {
  const normalize = (url: string) => url.replace(/\/+$/, "").toLowerCase();
  return normalize(a) === normalize(b);
}
