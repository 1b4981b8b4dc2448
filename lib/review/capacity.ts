/**
 * What a cell's fleet can run, straight from the model: the ceiling of
 * concurrent jobs and worker instances, and the idle capacity each autoscaling
 * policy keeps warm. Reviewers read this next to the plan to see what a model
 * change means in jobs and machines (and money).
 */
import { rotationMode, type RotationMode } from "../model/rotation-mode";
import { estimateCellCost, type CellCost } from "../cost/estimate";
import type { AutoscalingPolicy, RunnerModel, Shard } from "../model/schema";

export interface PolicyCapacity {
  readonly periods: readonly string[];
  readonly timezone: string;
  readonly idleTime: string;
  readonly scaleFactor: number;
  /** `idle_count` of one manager: idle job slots it keeps ready. */
  readonly idleJobsPerManager: number;
  /** Idle job slots of the whole shard (all managers). */
  readonly idleJobs: number;
  /** Idle worker instances of the whole shard: each manager keeps ceil(idle_count / capacity_per_instance). */
  readonly idleInstances: number;
}

export interface ShardCapacity {
  readonly shard: string;
  readonly managers: number;
  /** `concurrent` of each manager. */
  readonly concurrentPerManager: number;
  readonly capacityPerInstance: number;
  readonly maxInstancesPerManager: number;
  /** min(concurrent, max_instances x capacity_per_instance): what one manager can really run. */
  readonly maxJobsPerManager: number;
  readonly maxConcurrentJobs: number;
  readonly maxWorkers: number;
  readonly policies: readonly PolicyCapacity[];
  /** The managers' pinned gitlab-runner. */
  readonly runnerVersion: string;
  /** How the managers take a rotated token with that version (lib/model/rotation-mode.ts). */
  readonly tokenRotation: RotationMode;
}

export interface CellCapacity {
  readonly shards: readonly ShardCapacity[];
  readonly total: {
    readonly managers: number;
    readonly maxConcurrentJobs: number;
    readonly maxWorkers: number;
  };
  /** Monthly cost estimate per shard and for the cell (lib/cost/estimate.ts). */
  readonly cost: CellCost;
}

export function capacityOf(model: RunnerModel): CellCapacity {
  const shards = model.shards.map(shardCapacity);
  const sum = (pick: (shard: ShardCapacity) => number) => shards.reduce((total, shard) => total + pick(shard), 0);
  return {
    shards,
    total: {
      managers: sum((shard) => shard.managers),
      maxConcurrentJobs: sum((shard) => shard.maxConcurrentJobs),
      maxWorkers: sum((shard) => shard.maxWorkers),
    },
    cost: estimateCellCost(model),
  };
}

export function shardCapacity(shard: Shard): ShardCapacity {
  const { count, concurrent } = shard.managers;
  const { capacity_per_instance: capacityPerInstance, max_instances: maxInstancesPerManager } = shard.workers;
  const maxJobsPerManager = Math.min(concurrent, maxInstancesPerManager * capacityPerInstance);
  return {
    shard: shard.name,
    managers: count,
    concurrentPerManager: concurrent,
    capacityPerInstance,
    maxInstancesPerManager,
    maxJobsPerManager,
    maxConcurrentJobs: count * maxJobsPerManager,
    maxWorkers: count * maxInstancesPerManager,
    policies: shard.autoscaling.policies.map((policy) => policyCapacity(policy, count, capacityPerInstance)),
    runnerVersion: shard.managers.runner_version,
    tokenRotation: rotationMode(shard.managers.runner_version),
  };
}

function policyCapacity(policy: AutoscalingPolicy, managers: number, capacityPerInstance: number): PolicyCapacity {
  return {
    periods: policy.periods,
    timezone: policy.timezone,
    idleTime: policy.idle_time,
    scaleFactor: policy.scale_factor,
    idleJobsPerManager: policy.idle_count,
    idleJobs: managers * policy.idle_count,
    idleInstances: managers * Math.ceil(policy.idle_count / capacityPerInstance),
  };
}
