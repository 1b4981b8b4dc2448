/**
 * Warnings for spot workers, which the cloud takes back at short notice (AWS: a two-minute interruption
 * notice; Google Cloud: 30 seconds, "Spot VMs" preemption). A job on a reclaimed worker loses its worker,
 * and gitlab-runner fails it as a runner system failure: an error the executor does not tag is reported
 * with RunnerSystemFailure (gitlab-runner common/build.go, Build.handleError's default branch, "Job failed
 * (system failure)"). What the model can do about it:
 * - more capacity pools (AWS alternative_machine_types of the same size), so one reclaimed pool does not
 *   stop the shard;
 * - short jobs: the longer a job, the likelier its worker is reclaimed under it;
 * - jobs that retry on runner_system_failure (their .gitlab-ci.yml), which the model says with
 *   workers.spot_jobs_retried: true, as it cannot see the projects' pipelines.
 */
import { isKnownMachineType } from "./machine-types";
import { machineArchitecture } from "./architecture";
import { parseGoDurationSeconds } from "./duration";
import type { CrossCheckFinding } from "./finding";
import { machineShape, type MachineShape } from "./machine-shapes";
import type { RunnerModel, Shard } from "./schema";

/**
 * Above this a spot job is "of hours": a judgement, not a cloud limit. Neither cloud bounds a spot
 * VM's life, but each hour a job runs is an hour its worker can be reclaimed in, and the work lost
 * with it grows; two hours keeps the usual builds and test suites on spot.
 */
export const SPOT_LONG_JOB_SECONDS = 2 * 3600;

export function spotChecks(model: RunnerModel): CrossCheckFinding[] {
  return model.shards.flatMap((shard, index) => [
    ...singlePool(model, shard, index),
    ...longJobs(shard, index),
    ...retryNotSaid(shard, index),
    ...alternativeSizes(model, shard, index),
  ]);
}

function singlePool(model: RunnerModel, shard: Shard, index: number): CrossCheckFinding[] {
  const { workers } = shard;
  // Google Cloud has no alternative types for the plugin's zonal groups (worker-checks.ts): nothing to suggest there.
  if (!workers.spot || model.cloud.provider !== "aws" || workers.alternative_machine_types.length > 0) return [];
  const same = sameSizeTypes(workers.machine_type);
  return [
    {
      severity: "warning",
      path: ["shards", index, "workers", "alternative_machine_types"],
      expected: `more instance types for spot workers, of machine_type's size${same.length > 0 ? ` (such as [${same.join(", ")}])` : ""}: with ${workers.machine_type} alone, one reclaimed capacity pool stops the shard`,
      received: "none",
    },
  ];
}

function longJobs(shard: Shard, index: number): CrossCheckFinding[] {
  const seconds = parseGoDurationSeconds(shard.maximum_timeout);
  if (!shard.workers.spot || seconds === undefined || seconds <= SPOT_LONG_JOB_SECONDS) return [];
  return [
    {
      severity: "warning",
      path: ["shards", index, "maximum_timeout"],
      expected: "at most 2h on spot workers (or spot: false for jobs of hours): the cloud can reclaim a spot worker at any time, with two minutes' notice on AWS and 30 seconds on Google Cloud, and a job of hours is likelier to lose it and all its work",
      received: JSON.stringify(shard.maximum_timeout),
    },
  ];
}

function retryNotSaid(shard: Shard, index: number): CrossCheckFinding[] {
  if (!shard.workers.spot || shard.workers.spot_jobs_retried) return [];
  return [
    {
      severity: "warning",
      path: ["shards", index, "workers", "spot"],
      expected:
        "spot workers with jobs that retry when their worker is reclaimed: add `retry: { when: [runner_system_failure] }` to the jobs that run here, then say so with workers.spot_jobs_retried: true (a job whose worker the cloud takes back fails as a runner system failure)",
      received: "true",
    },
  ];
}

/**
 * Jobs and per-job limits are planned for machine_type (job-limits.ts); an alternative of another size
 * gives a job less than planned (smaller) or pays for room no job uses (larger). Sizes from machine-shapes.ts;
 * a type whose size it does not know is left alone.
 */
function alternativeSizes(model: RunnerModel, shard: Shard, index: number): CrossCheckFinding[] {
  const { provider } = model.cloud;
  const planned = machineShape(provider, shard.workers.machine_type);
  if (planned === undefined || provider !== "aws") return [];
  return shard.workers.alternative_machine_types.flatMap((type, position): CrossCheckFinding[] => {
    const shape = machineShape(provider, type);
    if (shape === undefined || sameShape(shape, planned)) return [];
    return [
      {
        severity: "warning",
        path: ["shards", index, "workers", "alternative_machine_types", position],
        expected: `an instance type of machine_type's size (${shard.workers.machine_type}: ${describeShape(planned)}): jobs and their limits are planned for it, so ${type} (${describeShape(shape)}) ${shape.vcpus < planned.vcpus || shape.memoryMiB < planned.memoryMiB ? "gives a job less than planned" : "pays for room no job uses"}`,
        received: JSON.stringify(type),
      },
    ];
  });
}

function sameShape(a: MachineShape, b: MachineShape): boolean {
  return a.vcpus === b.vcpus && a.memoryMiB === b.memoryMiB;
}

function describeShape(shape: MachineShape): string {
  return `${shape.vcpus} vCPUs, ${shape.memoryMiB / 1024} GiB`;
}

/** EC2 types of the same size and architecture in sibling families (m7i.large: m6i.large, m7a.large, m6a.large). */
export function sameSizeTypes(machineType: string): string[] {
  const shape = machineShape("aws", machineType);
  const match = /^([mcr])[0-9][a-z]*\.(.+)$/.exec(machineType);
  if (shape === undefined || match === null) return [];
  const [, family, size] = match;
  const architecture = machineArchitecture("aws", machineType);
  const siblings = architecture === "arm64" ? ["7g", "6g", "8g"] : ["6i", "7a", "6a", "7i"];
  return siblings
    .map((generation) => `${family}${generation}.${size}`)
    .filter((type) => type !== machineType && isKnownMachineType("aws", type) && sameShape(machineShape("aws", type) ?? { vcpus: 0, memoryMiB: 0 }, shape))
    .slice(0, 3);
}
