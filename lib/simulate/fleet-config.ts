/**
 * What the simulator needs to know of one shard, taken from its model: the settings gitlab-runner's
 * config.toml gets (lib/render/config-toml.ts) and the policies taskscaler reads.
 */
import type { CloudName } from "../cost/price-table";
import { parseGoDurationSeconds } from "../model/duration";
import { policiesWithCatchAll } from "../model/policy-coverage";
import type { Shard } from "../model/schema";
import type { TimelinePolicy } from "./policy-timeline";

export interface SimulatedPolicy extends TimelinePolicy {
  /** Idle job slots one manager keeps ready (idle_count). */
  readonly idleCount: number;
  readonly idleTimeSeconds: number;
  readonly scaleFactor: number;
  /** Upper bound of what scale_factor adds; undefined (or 0, as taskscaler reads it): none. */
  readonly scaleFactorLimit?: number;
  /**
   * preemptive_mode as config.toml sets it; undefined: gitlab-runner's default, on when idle_count > 0
   * (common/config.go AutoscalerPolicyConfig.PreemptiveModeEnabled).
   */
  readonly preemptiveMode?: boolean;
  /** The policy's place in the model's autoscaling.policies; undefined for the catch-all config.toml adds. */
  readonly modelIndex?: number;
}

export interface FleetConfig {
  /** Runner managers of the shard; each drives its own worker group with the settings below. */
  readonly managers: number;
  /** `concurrent` of each manager. */
  readonly concurrent: number;
  readonly capacityPerInstance: number;
  /** Jobs an instance runs before it is removed; 0: no limit. */
  readonly maxUseCount: number;
  /** Worker instances per manager. */
  readonly maxInstances: number;
  readonly policies: readonly SimulatedPolicy[];
  /** From an instance's creation until it takes a job. */
  readonly bootSeconds: number;
  /**
   * From taskscaler's decision to remove an instance until the cloud has deleted it: all that time it
   * counts toward max_instances (runner docs, [runners.autoscaler] max_instances: "regardless of the
   * instance state (pending, running, deleting)") and is billed. @default 0, gone at once
   */
  readonly deleteSeconds?: number;
  /** How often a manager asks GitLab for jobs (check_interval); 0: at once. */
  readonly checkIntervalSeconds: number;
  /** Spot workers: reclaims per instance-hour (a lifetime's mean is its inverse). @default 0, none */
  readonly spotInterruptionsPerHour?: number;
  /** Seeds the spot lifetimes. @default 1 */
  readonly seed?: number;
}

/**
 * Default boot time per cloud: from the fleeting plugin's create call until the runner can start a
 * job on the instance (VM boot, Docker ready, the connector through). Rough figures: the AWS default
 * image (ECS-optimized Amazon Linux) has Docker in it; the Google Cloud default image (Ubuntu) installs
 * Docker at boot, so it takes longer. A team overrides them with --boot-time from what it measures
 * (docs/operations/simulate.md, "Calibrating the boot time").
 */
export const DEFAULT_BOOT_SECONDS: Readonly<Record<CloudName, number>> = { aws: 60, google: 90 };

/**
 * Default deletion time per cloud: from the plugin's delete call until the instance is gone (billing
 * and max_instances both end then). A rough figure of the same kind as the boot times (an instance's
 * shutdown and the cloud's release of it); a team overrides it with --delete-time.
 */
export const DEFAULT_DELETE_SECONDS: Readonly<Record<CloudName, number>> = { aws: 45, google: 45 };

/** gitlab-runner's check_interval as runner-fleet renders it (lib/render/config-toml.ts MANAGER_DEFAULTS). */
export const DEFAULT_CHECK_INTERVAL_SECONDS = 3;

export interface FleetTiming {
  readonly bootSeconds: number;
  readonly deleteSeconds?: number;
  readonly checkIntervalSeconds: number;
  /** Applied to shards with spot workers only. */
  readonly spotInterruptionsPerHour?: number;
  readonly seed?: number;
}

export function fleetConfigOf(shard: Shard, timing: FleetTiming): FleetConfig {
  return {
    managers: shard.managers.count,
    concurrent: shard.managers.concurrent,
    capacityPerInstance: shard.workers.capacity_per_instance,
    maxUseCount: shard.workers.max_use_count,
    maxInstances: shard.workers.max_instances,
    // As config.toml carries them: a catch-all first when the model's policies leave hours uncovered.
    policies: policiesWithCatchAll(shard).map((policy) => ({
      periods: policy.periods,
      timezone: policy.timezone,
      idleCount: policy.idle_count,
      idleTimeSeconds: parseGoDurationSeconds(policy.idle_time) ?? 0,
      scaleFactor: policy.scale_factor,
      ...(policy.scale_factor_limit === undefined ? {} : { scaleFactorLimit: policy.scale_factor_limit }),
      ...(policy.preemptive_mode === undefined ? {} : { preemptiveMode: policy.preemptive_mode }),
      ...(shard.autoscaling.policies.includes(policy) ? { modelIndex: shard.autoscaling.policies.indexOf(policy) } : {}),
    })),
    bootSeconds: timing.bootSeconds,
    ...(timing.deleteSeconds === undefined ? {} : { deleteSeconds: timing.deleteSeconds }),
    checkIntervalSeconds: timing.checkIntervalSeconds,
    ...(shard.workers.spot && (timing.spotInterruptionsPerHour ?? 0) > 0 ? { spotInterruptionsPerHour: timing.spotInterruptionsPerHour, seed: timing.seed } : {}),
  };
}
