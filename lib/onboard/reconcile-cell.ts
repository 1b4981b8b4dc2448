/**
 * Onboarding a cell's shards: for each, observe (./observe.ts), plan (./plan.ts), and
 * unless it is a dry run, execute (./execute.ts). Shards run `concurrency` at a time.
 * Once GitLab is out of reach for one shard, shards not yet started are not attempted,
 * so a run against a dead GitLab stays bounded in time.
 */
import pLimit from "p-limit";
import { OperationalError } from "../errors";
import { desiredRunner } from "../gitlab/runner-spec";
import type { Shard } from "../model/schema";
import type { ExecuteContext } from "./execute-context";
import { executeShardPlan } from "./execute";
import { observeShard, type ObserveContext } from "./observe";
import { failureOf, onboardFailure, outOfReach, shardOutcome, uncheckedOutcome, type ShardOutcome } from "./outcome";
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
  let outOfReachNote: string | undefined;
  return Promise.all(
    shards.map((shard) =>
      limit(async (): Promise<ShardResult> => {
        if (outOfReachNote) {
          const failure = onboardFailure("not-attempted", outOfReachNote);
          return { outcome: uncheckedOutcome({ shard: shard.name, secret: ctx.store.describe(shard), reason: outOfReachNote, dryRun: ctx.dryRun, failure }) };
        }
        const result = await reconcileShard(ctx, shard, mode);
        if (outOfReach(result.outcome.failure)) outOfReachNote ??= `not attempted: GitLab is out of reach (see shard ${shard.name})`;
        return result;
      }),
    ),
  );
}

export async function reconcileShard(ctx: ReconcileCellContext, shard: Shard, mode: ReconcileMode): Promise<ShardResult> {
  const desired = { shard: shard.name, runner: desiredRunner(ctx.model, shard), secret: ctx.store.describe(shard) };
  let plan: ShardPlan;
  try {
    const observed = await observeShard(ctx, shard, desired.runner, { verifyToken: mode === "reconcile" && !ctx.dryRun });
    plan = planShard({ mode, dryRun: ctx.dryRun, gitlabUrl: ctx.model.gitlab.url }, desired, observed);
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    return { outcome: uncheckedOutcome({ shard: shard.name, secret: desired.secret, reason: "the shard's runner could not be looked up", dryRun: ctx.dryRun, failure: failureOf(error) }) };
  }
  if (ctx.dryRun || plan.steps.length === 0) return { plan, outcome: shardOutcome(plan, { dryRun: ctx.dryRun }) };
  return { plan, outcome: await executeShardPlan(ctx, shard, plan) };
}
