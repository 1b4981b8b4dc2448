/**
 * What the files a manager boots with (lib/render) and the cloud resources around it (constructs/) must
 * agree on: a tag the manager reads, a port it listens on, a hook it completes, labels its metrics carry.
 * One place for both sides, below both, so neither has to reach into the other.
 */

/** Resource tag / label naming the manager slot, read by a manager at boot (AWS instance tags via IMDS, GCE metadata). */
export const SLOT_METADATA_KEY = "gitlab-runner-slot";

/** Port of the runner's Prometheus metrics (`listen_address = ":9252"`). */
export const RUNNER_METRICS_PORT = 9252;

/** Name of the termination lifecycle hook of every AWS manager group; the manager completes it. */
export const DRAIN_HOOK_NAME = "runner-fleet-drain";

/** AWS caps a lifecycle hook's heartbeat timeout at two hours; longer drains record heartbeats. */
export const MAX_HOOK_HEARTBEAT_SECONDS = 7200;

/** Prometheus job name of the managers' scrape config; queries select `job="gitlab-runner"`. */
export const MANAGER_METRICS_JOB = "gitlab-runner";

/** Labels the scrape config attaches to every sample (values: cell id, shard name, slot number). */
export const MANAGER_METRIC_LABELS = {
  cell: "gitlab_cell",
  shard: "runner_shard",
  slot: "runner_slot",
} as const;

/**
 * What a manager whose boot failed records, for the shard's "boot failed" alert: on AWS a data point of
 * this metric in the shard's namespace, on Google Cloud a point of this custom metric (labelled with the
 * shard and slot).
 */
export const BOOT_FAILURES_METRIC = { aws: "BootFailures", google: "custom.googleapis.com/runner_fleet/boot_failures" } as const;

/**
 * AWS: each manager's heartbeat, dimensions Shard and Slot, in the shard's namespace: 1 while its gitlab-runner
 * runs, 0 while the manager is up without it. Put from the start of the boot and every minute after
 * (scripts/manager/cloud/aws.sh cloud_heartbeat); the shard's heartbeat alarm breaches on 0 and on no data.
 */
export const MANAGER_HEARTBEAT_METRIC = "ManagerHeartbeat";

/** CloudWatch namespace of a shard's metrics (job counts from log filters, boot failures from the managers). */
export function awsShardMetricNamespace(cellId: string, shardName: string): string {
  return `GitLabRunner/${cellId}/${shardName}`;
}
