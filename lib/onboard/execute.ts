/**
 * Step 2 of onboarding: carries out a shard's plan (./plan.ts) against GitLab and the
 * secret store, step by step, and reports the shard's outcome. The first failing step
 * ends the shard; what was done before it is reported with the failure.
 *
 * - reset-token: the new token is stored even when it expires (the old one is already
 *   refused); the shard then fails with the fix (lib/gitlab/expiring-token.ts).
 * - delete-runner goes before delete-secret, so a failed delete keeps the token.
 * - create-runner is ./create-runner.ts.
 */
import { OperationalError } from "../process/errors";
import { expiringTokenProblem } from "../gitlab/expiring-token";
import type { Shard } from "../model/schema";
import { createRunner } from "./create-runner";
import { resetToken, storeToken, type ExecuteContext } from "./execute-context";
import { failureOf, OnboardStepError, shardOutcome, type Progress, type ShardOutcome } from "./outcome";
import type { OnboardStep, ShardPlan } from "./plan";

/** What the steps so far achieved; each step adds to it. */
interface Done {
  runnerId?: number;
  tokenStored: boolean;
  notes: string[];
  duplicates: number[];
}

export async function executeShardPlan(ctx: ExecuteContext, shard: Shard, plan: ShardPlan): Promise<ShardOutcome> {
  const done: Done = { runnerId: plan.runnerId, tokenStored: false, notes: [...plan.notes], duplicates: [] };
  for (const step of plan.steps) {
    try {
      await runStep(ctx, shard, step, done);
    } catch (error) {
      if (!(error instanceof OperationalError)) throw error;
      return shardOutcome(plan, { dryRun: false, progress: progressOf(done, plan), failure: failureOf(error) });
    }
  }
  return shardOutcome(plan, { dryRun: false, progress: progressOf(done, plan) });
}

/** Duplicates reported: those deleted, else those the plan found (a create finds its own after creating). */
function progressOf(done: Done, plan: ShardPlan): Progress {
  return { ...done, duplicates: done.duplicates.length > 0 ? done.duplicates : plan.duplicates };
}

async function runStep(ctx: ExecuteContext, shard: Shard, step: OnboardStep, done: Done): Promise<void> {
  const label = `${ctx.model.cell.id}/${shard.name}`;
  switch (step.kind) {
    case "create-runner": {
      const created = await createRunner(ctx, shard, step.runner);
      done.runnerId = created.runnerId;
      done.tokenStored = true;
      done.notes.push(...created.notes);
      done.duplicates.push(...created.duplicates);
      if (created.failure) throw created.failure;
      return;
    }
    case "reset-token": {
      ctx.log(`${label}: resetting the token of runner #${step.runnerId}`);
      const issued = await resetToken(ctx, shard, step.runnerId);
      await storeToken(ctx, shard, issued, "reset");
      done.tokenStored = true;
      const expiring = expiringTokenProblem(shard, issued);
      if (expiring) throw new OnboardStepError(`${expiring} The new token is stored so the managers keep working until it expires.`, "expiring-token");
      ctx.log(`${label}: runner #${step.runnerId} has a new token, stored in ${ctx.store.describe(shard)}`);
      return;
    }
    case "update-runner":
      ctx.log(`${label}: updating runner #${step.runnerId}: ${Object.keys(step.changes).join(", ")}`);
      await ctx.client.updateRunner(step.runnerId, step.changes, `update runner #${step.runnerId} of shard ${shard.name}`);
      return;
    case "delete-runner":
      ctx.log(`${label}: deleting runner #${step.runnerId}`);
      await ctx.client.deleteRunner(step.runnerId, `delete runner #${step.runnerId} of shard ${shard.name}`);
      return;
    case "delete-duplicate":
      ctx.log(`${label}: deleting duplicate runner #${step.runnerId}`);
      await ctx.client.deleteRunner(step.runnerId, `delete duplicate runner #${step.runnerId} of shard ${shard.name}`);
      done.duplicates.push(step.runnerId);
      return;
    case "delete-secret":
      if (await ctx.store.remove(shard)) ctx.log(`${label}: deleted ${ctx.store.describe(shard)}`);
      return;
  }
}
