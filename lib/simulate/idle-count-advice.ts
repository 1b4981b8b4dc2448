/**
 * `--target-wait`: for each policy (period) of each shard, the smallest idle_count that keeps the p95
 * wait of the jobs created while that policy is in force under the target, the other policies as
 * they are, and what that costs a month against the model's idle_count. Found by bisection over
 * 1 .. max_instances x capacity_per_instance: from 1 up, more idle slots never make jobs wait longer
 * in this simulator (more instances are created earlier, none later). idle_count 0 is tried on its
 * own: unless the policy sets preemptive_mode, it turns preemptive mode off (common/config.go
 * PreemptiveModeEnabled), so jobs are taken at once and wait one boot rather than waiting in GitLab's
 * queue for a ready slot, which can be faster than a few idle slots. A period no idle_count brings
 * under the target (the boot of a burst beyond max_instances, say) is reported as such. The catch-all
 * policy config.toml adds for uncovered hours is simulated but not advised on: it is not in the model
 * (give those hours a policy of their own to tune them).
 */
import type { RunnerModel } from "../model/schema";
import type { FleetConfig } from "./fleet-config";
import type { JobTrace } from "./job-trace";
import { PolicyTimeline } from "./policy-timeline";
import { simulateFleet } from "./simulate-fleet";
import { prepareSimulation, windowCost, type ShardLoad, type SimulateOptions } from "./simulate-model";
import { finiteSorted, percentileOfSorted } from "./wait-statistics";

export interface PeriodAdvice {
  readonly shard: string;
  /** The policy's place in the shard's autoscaling.policies (the model's, without the rendered catch-all). */
  readonly policy: number;
  readonly periods: readonly string[];
  readonly timezone: string;
  /** Jobs created while this policy was in force. */
  readonly jobs: number;
  readonly idle_count: number;
  readonly p95_wait_seconds: number;
  /** Smallest idle_count keeping p95 under the target; null when none does. */
  readonly advised_idle_count: number | null;
  readonly advised_p95_wait_seconds: number | null;
  readonly monthly_cost_usd: number | null;
  readonly advised_monthly_cost_usd: number | null;
  /** advised minus current; null when unknown. */
  readonly monthly_cost_delta_usd: number | null;
}

export function adviseIdleCounts(model: RunnerModel, trace: JobTrace, targetWaitSeconds: number, options: SimulateOptions = {}): PeriodAdvice[] {
  const prepared = prepareSimulation(model, trace, options);
  const advice: PeriodAdvice[] = [];
  for (const load of prepared.loads) {
    const timeline = PolicyTimeline.shared(load.fleet.policies, prepared.window.startSeconds);
    const policyOfJob = Array.from(load.createdAt, (created) => timeline.at(Math.floor((created - prepared.window.startSeconds) / 60)));
    const evaluate = (fleet: FleetConfig, policy: number) => {
      const run = simulateFleet(fleet, load, prepared.window);
      const waits = run.waitSeconds.filter((_, job) => policyOfJob[job] === policy);
      const cost = windowCost(load, run.instanceSeconds, prepared.windowHours);
      return { p95: percentileOfSorted(finiteSorted(waits), 0.95), monthly: cost === null ? null : (cost * prepared.hoursPerMonth) / prepared.windowHours };
    };
    load.fleet.policies.forEach((policy, index) => {
      const jobs = policyOfJob.filter((inForce) => inForce === index).length;
      if (jobs === 0 || policy.modelIndex === undefined) return;
      const withIdle = (idleCount: number): FleetConfig => ({ ...load.fleet, policies: load.fleet.policies.map((other, at) => (at === index ? { ...other, idleCount } : other)) });
      const current = evaluate(load.fleet, index);
      const found = smallestMeeting(load, (idleCount) => evaluate(withIdle(idleCount), index), targetWaitSeconds);
      advice.push({
        shard: load.shard.name,
        policy: policy.modelIndex,
        periods: policy.periods,
        timezone: policy.timezone,
        jobs,
        idle_count: policy.idleCount,
        p95_wait_seconds: current.p95,
        advised_idle_count: found?.idleCount ?? null,
        advised_p95_wait_seconds: found?.p95 ?? null,
        monthly_cost_usd: current.monthly,
        advised_monthly_cost_usd: found?.monthly ?? null,
        monthly_cost_delta_usd: found && found.monthly !== null && current.monthly !== null ? found.monthly - current.monthly : null,
      });
    });
  }
  return advice;
}

function smallestMeeting(
  load: ShardLoad,
  evaluate: (idleCount: number) => { p95: number; monthly: number | null },
  target: number,
): { idleCount: number; p95: number; monthly: number | null } | undefined {
  const atZero = evaluate(0);
  if (atZero.p95 <= target) return { idleCount: 0, p95: atZero.p95, monthly: atZero.monthly };
  let high = load.fleet.maxInstances * load.fleet.capacityPerInstance;
  if (high < 1) return undefined;
  let best = evaluate(high);
  if (best.p95 > target) return undefined;
  let bestCount = high;
  let low = 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const result = evaluate(middle);
    if (result.p95 <= target) {
      high = middle;
      best = result;
      bestCount = middle;
    } else {
      low = middle + 1;
    }
  }
  if (bestCount !== low) best = evaluate(low);
  return { idleCount: low, p95: best.p95, monthly: best.monthly };
}
