/**
 * Onboarding a cell's shards: for each, observe (./observe.ts), plan (./plan.ts), and
 * unless it is a dry run, execute (./execute.ts). Shards run `concurrency` at a time and
 * share the run's census (lib/gitlab/runner-census.ts), so the cell's runners are listed
 * once, not once per shard. Once GitLab is out of reach for one shard, shards not yet
 * started are not attempted, so a run against a dead GitLab stays bounded in time.
 *
 * After every shard is done, the shards that created a runner look once more, on listings
 * fetched after all of the run's creates, for runners another run created for them at the
 * same time (./create-runner.ts settleAfterCreate): one listing per cell, not per create.
 */
import pLimit from "p-limit";
import { OperationalError } from "../process/errors";
import { desiredRunner } from "../gitlab/runner-spec";
import type { Shard } from "../model/schema";
import { settleAfterCreate } from "./create-runner";
import type { ExecuteContext } from "./execute-context";
import { executeShardPlan } from "./execute";
import { observeShard, type ObserveContext } from "./observe";
import { failureOf, NOT_REACHED_REASON, onboardFailure, outOfReach, shardOutcome, uncheckedOutcome, type ShardFailure, type ShardOutcome } from "./outcome";
import { planShard, type ReconcileMode, type ShardPlan } from "./plan";

export interface ReconcileCellContext extends ExecuteContext, ObserveContext {
  readonly dryRun: boolean;
  readonly concurrency: number;
}

export interface ShardResult {
  readonly outcome: ShardOutcome;
  /** The plan made for the shard; absent when its runner could not be looked up. */
  readonly plan?: ShardPlan;
}

export async function reconcileCell(ctx: ReconcileCellContext, shards: readonly Shard[], mode: ReconcileMode): Promise<ShardResult[]> {
  const limit = pLimit(ctx.concurrency);
  // What the shards not yet started say, once GitLab is out of reach.
  let outOfReachFailure: ShardFailure | undefined;
  const results = await Promise.all(
    shards.map((shard) =>
      limit(async (): Promise<ShardResult> => {
        if (outOfReachFailure) {
          const reason = outOfReachFailure.kind === "not-reached" ? NOT_REACHED_REASON : outOfReachFailure.message;
          return { outcome: uncheckedOutcome({ shard: shard.name, secret: ctx.store.describe(shard), reason, dryRun: ctx.dryRun, failure: outOfReachFailure }) };
        }
        const result = await reconcileShard(ctx, shard, mode);
        const failure = result.outcome.failure;
        if (failure && outOfReach(failure)) {
          // Nothing at gitlab.url: the same cause for every shard, kept whole. Else the shard that met it is named.
          outOfReachFailure ??= failure.kind === "not-reached" ? failure : onboardFailure("not-attempted", `not attempted: GitLab is out of reach (see shard ${shard.name})`);
        }
        return result;
      }),
    ),
  );
  const created = results.flatMap((result, index) => (createdRunner(result) ? [index] : []));
  if (created.length === 0) return results;
  // Listed again once, after every create of this run: what other runs created meanwhile shows.
  const settleContext = { ...ctx, census: ctx.census.relisted() };
  await Promise.all(created.map((index) => limit(async () => (results[index] = await settleShard(settleContext, shards[index], results[index])))));
  return results;
}

export async function reconcileShard(ctx: ReconcileCellContext, shard: Shard, mode: ReconcileMode): Promise<ShardResult> {
  const desired = { shard: shard.name, runner: desiredRunner(ctx.model, shard), secret: ctx.store.describe(shard) };
  let plan: ShardPlan;
  try {
    const observed = await observeShard(ctx, shard, desired.runner, { verifyToken: mode === "reconcile" && !ctx.dryRun });
    plan = planShard({ mode, dryRun: ctx.dryRun, gitlabUrl: ctx.model.gitlab.url }, desired, observed);
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    const failure = failureOf(error);
    const reason = failure.kind === "not-reached" ? NOT_REACHED_REASON : "the shard's runner could not be looked up";
    return { outcome: uncheckedOutcome({ shard: shard.name, secret: desired.secret, reason, dryRun: ctx.dryRun, failure }) };
  }
  if (ctx.dryRun || plan.steps.length === 0) return { plan, outcome: shardOutcome(plan, { dryRun: ctx.dryRun }) };
  return { plan, outcome: await executeShardPlan(ctx, shard, plan) };
}

/** The shard created (or recovered) a runner and stored its token: it must look for concurrent creates. */
function createdRunner(result: ShardResult): boolean {
  return !result.outcome.dryRun && result.outcome.ok && result.outcome.runnerId !== undefined && (result.plan?.steps.some((step) => step.kind === "create-runner") ?? false);
}

async function settleShard(ctx: ReconcileCellContext, shard: Shard, result: ShardResult): Promise<ShardResult> {
  const { outcome } = result;
  const plan = result.plan!;
  const progress = { runnerId: outcome.runnerId, tokenStored: outcome.tokenStored, notes: outcome.notes, duplicates: outcome.duplicates ?? [] };
  try {
    const settled = await settleAfterCreate(ctx, shard, desiredRunner(ctx.model, shard), outcome.runnerId!);
    const duplicates = settled.duplicates.length > 0 ? settled.duplicates : progress.duplicates;
    return { plan, outcome: shardOutcome(plan, { dryRun: false, progress: { ...progress, runnerId: settled.runnerId, notes: [...progress.notes, ...settled.notes], duplicates } }) };
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    return { plan, outcome: shardOutcome(plan, { dryRun: false, progress, failure: failureOf(error) }) };
  }
}
