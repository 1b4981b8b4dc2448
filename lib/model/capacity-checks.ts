/**
 * Numbers that must agree, or the fleet is slower than the model reads (issue 23). Each message
 * gives the effective capacity, so the reader sees what the shard really runs.
 * - `concurrent` caps the jobs one manager runs at once (config.toml, global); its runner's
 *   `limit` is max_instances x capacity_per_instance (lib/render/config-toml.ts). Below that,
 *   workers the autoscaler may start are never used: a warning with the effective figure.
 *   (Above it, cross-checks.ts warns that jobs wait for workers.)
 * - scale_factor_limit above the slots adds idle capacity that can never exist.
 * - max_use_count 1 with many idle slots: every job is the last of its instance, so each idle
 *   slot is a boot paid per job; more than half the slots kept idle that way is likely a mistake.
 * - max_use_count below capacity_per_instance: an error (exit 2). max_use_count is "the maximum number
 *   of times an instance can be used before it is scheduled for removal" (runner docs,
 *   [runners.autoscaler]), so an instance never runs more jobs than its uses, whatever its capacity:
 *   with capacity 2 and max_use_count 1 each instance runs one job. The slots the dry run shows, the
 *   idle slots a policy asks for and the per-job limits (a VM's CPUs split by capacity_per_instance)
 *   would all count slots that never run a job. Refused rather than silently reduced, so the model
 *   says what the fleet does: capacity_per_instance at most max_use_count.
 */
import type { CrossCheckFinding } from "./finding";
import type { ModelPath } from "./issues";
import type { RunnerModel, Shard } from "./schema";

export function checkCapacity(model: RunnerModel): CrossCheckFinding[] {
  return model.shards.flatMap((shard, index) => shardCapacity(shard, ["shards", index]));
}

function shardCapacity(shard: Shard, at: ModelPath): CrossCheckFinding[] {
  const findings: CrossCheckFinding[] = [];
  const { max_instances: maxInstances, capacity_per_instance: perInstance, max_use_count: maxUse } = shard.workers;
  const slots = maxInstances * perInstance;
  const { concurrent, count } = shard.managers;
  if (maxUse > 0 && maxUse < perInstance) {
    findings.push({
      severity: "error",
      path: [...at, "workers", "capacity_per_instance"],
      expected: `at most workers.max_use_count (${maxUse}): an instance runs at most max_use_count jobs before it is removed, so with capacity_per_instance ${perInstance} it still runs ${maxUse} at a time and ${maxInstances} instances run ${maxInstances * maxUse} jobs, not ${slots}; set capacity_per_instance: ${maxUse} (or raise max_use_count to ${perInstance} or more)`,
      received: String(perInstance),
    });
  }
  if (concurrent < slots) {
    findings.push({
      severity: "warning",
      path: [...at, "managers", "concurrent"],
      expected: `concurrent >= workers.max_instances x capacity_per_instance = ${maxInstances} x ${perInstance} = ${slots}: each manager runs at most ${concurrent} jobs at once, so its workers beyond ${Math.ceil(concurrent / perInstance)} instance(s) are never used (effective capacity ${concurrent} jobs per manager, ${concurrent * count} for the shard's ${count} manager(s), not ${slots * count})`,
      received: String(concurrent),
    });
  }
  shard.autoscaling.policies.forEach((policy, index) => {
    const path = [...at, "autoscaling", "policies", index];
    if (policy.scale_factor_limit !== undefined && policy.scale_factor > 0 && policy.scale_factor_limit > slots) {
      findings.push({
        severity: "warning",
        path: [...path, "scale_factor_limit"],
        expected: `at most ${slots} (max_instances x capacity_per_instance): idle capacity above the slots cannot exist, so the effective limit is ${slots}`,
        received: String(policy.scale_factor_limit),
      });
    }
    if (maxUse === 1 && policy.idle_count > 0 && policy.idle_count * 2 > slots) {
      findings.push({
        severity: "warning",
        path: [...path, "idle_count"],
        expected: `at most half the slots (${Math.floor(slots / 2)}) kept idle when workers.max_use_count is 1: every job retires its instance, so each idle slot is a fresh boot paid per job (${policy.idle_count} of ${slots} slots idle); raise max_use_count where jobs may share an instance`,
        received: String(policy.idle_count),
      });
    }
  });
  return findings;
}
