/**
 * The create-runner step: the one step whose course is only known while it runs.
 * - A create is never retried blindly: when it fails in a way that may have created the
 *   runner anyway (5xx, connection dropped, timeout), the marker search runs (on fresh
 *   listings) before the next try, and a runner it finds is recovered (token reset,
 *   stored, settings fixed).
 * - A new runner whose token expires is deleted again (lib/gitlab/expiring-token.ts).
 * - Created but the token cannot be stored: the runner is deleted again. If even that
 *   fails, it carries its marker, so the next run adopts it (reset + store).
 * - Once the cell's shards are done, `settleAfterCreate` looks again, on listings fetched
 *   after every create of the run (./reconcile-cell.ts, once per cell, not per shard):
 *   when another run created a runner for the shard at the same time (on another machine,
 *   where the cell lock of lib/state/cell-lock.ts does not reach), every run keeps the
 *   oldest, so concurrent runs agree; the others are deleted, and the kept runner's token
 *   is reset and stored when it is not the one this run created.
 */
import type { IssuedToken, NewRunner, RunnerDetails } from "../gitlab/client";
import { GitLabApiError } from "../gitlab/errors";
import { expiringTokenProblem } from "../gitlab/expiring-token";
import { findRunnersByMarker } from "../gitlab/locate-runner";
import { formatMs, RetryBudgetExceededError, withRetry } from "../gitlab/retry";
import { diffRunner, runnerSettings } from "../gitlab/runner-spec";
import type { Shard } from "../model/schema";
import { resetToken, storeToken, type ExecuteContext } from "./execute-context";
import { OnboardStepError } from "./outcome";

export interface CreatedRunner {
  /** The shard's runner afterwards (after `settleAfterCreate`: the oldest, when runs created at the same time). */
  readonly runnerId: number;
  readonly notes: readonly string[];
  /** Runners of concurrent creates that were deleted. */
  readonly duplicates: readonly number[];
  /** Set when the runner exists and its token is stored, but the shard still fails (an expiring token). */
  readonly failure?: OnboardStepError;
}

export async function createRunner(ctx: ExecuteContext, shard: Shard, desired: NewRunner): Promise<CreatedRunner> {
  const label = `${ctx.model.cell.id}/${shard.name}`;
  ctx.log(`${label}: creating runner "${desired.description}"`);
  const created = await createOrRecover(ctx, shard, desired);
  if (created.kind === "recovered") {
    const notes = [`the create's answer was lost; runner #${created.runner.id} was found by its marker and its token reset`];
    const issued = await resetToken(ctx, shard, created.runner.id);
    await storeToken(ctx, shard, issued, "reset");
    const expiring = expiringTokenProblem(shard, issued);
    if (expiring) return { runnerId: created.runner.id, notes, duplicates: [], failure: new OnboardStepError(expiring, "expiring-token") };
    const drift = diffRunner(runnerSettings(desired), created.runner);
    if (Object.keys(drift).length > 0) await ctx.client.updateRunner(created.runner.id, drift, `update runner #${created.runner.id} of shard ${shard.name}`);
    ctx.log(`${label}: runner #${created.runner.id} recovered, token stored in ${ctx.store.describe(shard)}`);
    return { runnerId: created.runner.id, notes, duplicates: [] };
  }
  const issued = created.issued;
  const expiring = expiringTokenProblem(shard, issued);
  if (expiring) throw new OnboardStepError(`${expiring} ${await deleteAgain(ctx, shard, issued.id, "expiring")}`, "expiring-token");
  try {
    await storeToken(ctx, shard, issued, "create");
  } catch (storeError) {
    const undo = await deleteAgain(ctx, shard, issued.id, "unstored");
    throw new OnboardStepError(
      `shard ${shard.name}: runner #${issued.id} was created but its token could not be stored (${(storeError as Error).message}); ${undo}`,
      "store-after-create",
      { cause: storeError },
    );
  }
  ctx.log(`${label}: runner #${issued.id} created, token stored in ${ctx.store.describe(shard)}`);
  return { runnerId: issued.id, notes: [], duplicates: [] };
}

/**
 * Looks for runners other runs created for the shard at the same time as this one; `ctx.census`
 * must have listed after the create (RunnerCensus.relisted). Keeps the oldest.
 */
export async function settleAfterCreate(ctx: ExecuteContext, shard: Shard, desired: NewRunner, createdId: number): Promise<CreatedRunner> {
  const marked = (await findRunnersByMarker(ctx, shard, desired)).map((runner) => runner.id);
  const ids = [...new Set([...marked, createdId])].sort((a, b) => a - b);
  const [keptId, ...others] = ids;
  if (others.length === 0) return { runnerId: createdId, notes: [], duplicates: [] };
  const label = `${ctx.model.cell.id}/${shard.name}`;
  const list = (values: readonly number[]) => values.map((id) => `#${id}`).join(", ");
  ctx.log(`${label}: another run created runners for this shard at the same time (${list(ids)}); keeping #${keptId}`);
  for (const id of others) {
    ctx.log(`${label}: deleting duplicate runner #${id}`);
    await ctx.client.deleteRunner(id, `delete duplicate runner #${id} of shard ${shard.name}`);
    ctx.census.deleted(id);
  }
  const notes = [`runners ${list(ids)} were created for this shard at the same time; #${keptId} is kept, ${list(others)} deleted`];
  if (keptId !== createdId) {
    const issued = await resetToken(ctx, shard, keptId);
    await storeToken(ctx, shard, issued, "reset");
    notes.push(`the token of runner #${keptId} was reset and stored`);
  }
  return { runnerId: keptId, notes, duplicates: others };
}

type CreateResult = { readonly kind: "created"; readonly issued: IssuedToken } | { readonly kind: "recovered"; readonly runner: RunnerDetails };

/** POST /user/runners; when it fails in a way that may have created the runner anyway, look for the marker before trying again. */
async function createOrRecover(ctx: ExecuteContext, shard: Shard, desired: NewRunner): Promise<CreateResult> {
  return withRetry<CreateResult>(
    async (attempt) => {
      if (attempt > 0) {
        // Fresh listings: the failed create may have made the runner after the census listed.
        const [found] = await findRunnersByMarker({ ...ctx, census: ctx.census.relisted() }, shard, desired);
        if (found) return { kind: "recovered", runner: found };
      }
      const issued = await ctx.client.createRunner(desired, `create the runner of shard ${shard.name}`);
      ctx.rememberSecret(issued.token);
      ctx.census.created(issued.id, desired);
      return { kind: "created", issued };
    },
    {
      policy: ctx.policy,
      clock: ctx.clock,
      classify: (error) => (error instanceof GitLabApiError && error.transient ? { kind: "transient", reason: error.message } : { kind: "fatal" }),
      onRetry: (event) =>
        ctx.log(`${ctx.model.cell.id}/${shard.name}: creating the runner failed (${event.reason}); looking for it by its marker before trying again in ${Math.round(event.delayMs)}ms`),
    },
  ).catch((error: unknown) => {
    if (error instanceof RetryBudgetExceededError && error.cause instanceof GitLabApiError) {
      const last = error.cause;
      throw new GitLabApiError(
        `${last.message}; gave up after ${error.attempts} attempts in ${formatMs(error.elapsedMs)} (retry budget ${formatMs(error.budgetMs)}, set --retry-timeout)`,
        { kind: "gave-up", outcomeUnknown: last.outcomeUnknown, status: last.status },
        { cause: error },
      );
    }
    throw error;
  });
}

/** Undo of a create that cannot be kept; says what became of the runner, for the error message. */
async function deleteAgain(ctx: ExecuteContext, shard: Shard, runnerId: number, why: "expiring" | "unstored"): Promise<string> {
  try {
    await ctx.client.deleteRunner(runnerId, `delete runner #${runnerId} of shard ${shard.name} again`);
    ctx.census.deleted(runnerId);
    return why === "expiring" ? "The new runner was deleted again." : "the runner was deleted again, so nothing is left behind; fix the secret store and run onboard again";
  } catch (error) {
    return why === "expiring"
      ? `Deleting the new runner #${runnerId} again failed (${(error as Error).message}); it carries the shard's marker, so the next onboard run adopts it.`
      : `deleting it again failed too (${(error as Error).message}); it carries the shard's marker, so the next onboard run finds it, resets its token and stores it`;
  }
}
