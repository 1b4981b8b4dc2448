/**
 * Checks of a shard's workers that involve several fields: the spot shard's alternative machine types.
 */
import { machineArchitecture } from "./architecture";
import type { CrossCheckFinding } from "./finding";
import type { ModelPath } from "./issues";
import type { RunnerModel, Shard } from "./schema";
import { catchAllPolicy } from "./policy-coverage";
import { jobLimits } from "./job-limits";

const AWS_INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;

function error(path: ModelPath, expected: string, received?: unknown): CrossCheckFinding {
  return { severity: "error", path, expected, received: received === undefined ? undefined : JSON.stringify(received) };
}

/**
 * AWS: an Auto Scaling group's mixed instances policy overrides the launch template's instance type
 * ("Auto Scaling groups with multiple instance types and purchase options"); here for spot only, where
 * more pools mean fewer interruptions. Google Cloud: instance flexibility (`instance_flexibility_policy`)
 * exists on regional managed instance groups only (google_compute_region_instance_group_manager), and the
 * googlecloud fleeting plugin drives a zonal group (plugin_config `zone`), so it cannot be offered there.
 */
export function checkAlternativeMachineTypes(model: RunnerModel, shard: Shard, at: ModelPath): CrossCheckFinding[] {
  const alternatives = shard.workers.alternative_machine_types;
  if (alternatives.length === 0) return [];
  const path: ModelPath = [...at, "workers", "alternative_machine_types"];
  const { provider } = model.cloud;
  if (provider === "google") {
    return [
      error(
        path,
        "no alternative machine types on Google Cloud: instance flexibility needs a regional managed instance group, and the googlecloud fleeting plugin drives zonal ones (spread spot risk over zones with more manager slots instead)",
        alternatives,
      ),
    ];
  }
  if (!shard.workers.spot) {
    return [error(path, "alternative machine types only with workers.spot: true (an on-demand group launches machine_type)", alternatives)];
  }
  const findings: CrossCheckFinding[] = [];
  const architecture = machineArchitecture(provider, shard.workers.machine_type);
  const seen = new Set([shard.workers.machine_type]);
  alternatives.forEach((type, index) => {
    if (!AWS_INSTANCE_TYPE.test(type)) {
      findings.push(error([...path, index], "an EC2 instance type such as m6i.large", type));
    } else if (machineArchitecture(provider, type) !== architecture) {
      findings.push(error([...path, index], `an ${architecture} instance type, as machine_type ${shard.workers.machine_type}`, type));
    } else if (seen.has(type)) {
      findings.push(error([...path, index], "an instance type not listed already (machine_type included)", type));
    }
    seen.add(type);
  });
  return findings;
}

/** A warning when the policies leave hours uncovered: config.toml then starts with a catch-all (./policy-coverage.ts). */
export function checkPolicyCoverage(shard: Shard, at: ModelPath): CrossCheckFinding[] {
  const catchAll = catchAllPolicy(shard);
  if (catchAll === undefined) return [];
  return [
    {
      severity: "warning",
      path: [...at, "autoscaling", "policies"],
      expected: `a policy for every hour (periods ["* * * * *"], idle_count 0 keeps no warm capacity but lets idle workers be reused); outside these policies gitlab-runner deletes workers the moment they go idle, so config.toml gets a leading catch-all with idle_count 0, idle_time ${catchAll.idle_time}`,
      received: JSON.stringify(shard.autoscaling.policies.flatMap((policy) => policy.periods)),
    },
  ];
}

/** Several jobs on one worker need per-job limits: derived from the machine type, or stated (./job-limits.ts). */
export function checkJobLimits(model: RunnerModel, shard: Shard, at: ModelPath): CrossCheckFinding[] {
  if (jobLimits(model, shard) !== undefined) return [];
  return [
    error(
      [...at, "workers", "capacity_per_instance"],
      `1, or docker.job_limits (cpus, memory_mb) for the ${shard.workers.capacity_per_instance} jobs that share a ${shard.workers.machine_type}: runner-fleet does not know that machine type's vCPUs and memory, and jobs without limits can get each other, dockerd or sshd killed`,
      shard.workers.capacity_per_instance,
    ),
  ];
}
