/**
 * config.toml of a runner manager slot (docker-autoscaler executor + fleeting plugin).
 *
 * The template takes a list of [[runners]] entries; a slot's config has exactly
 * one (SLOTS.md: slot i drives worker group i only, so two managers never fight
 * over one group). The token is a placeholder the startup script fills at boot.
 */
import { machineArchitecture, type Architecture } from "../model/architecture";
import { formatGoDuration, parseGoDurationSeconds } from "../model/duration";
import { metricsListenAddress } from "./metrics-listener";
import { cacheBucketName, runnerEntryName, workerGroupName, zoneOfSlot, managerName } from "../model/names";
import type { AutoscalingPolicy, RunnerModel, Shard } from "../model/schema";
import { template } from "../templates/template-engine";
import { fleetingPlugin } from "../model/fleeting-plugin";
import { dockerMtu } from "./docker-daemon";
import { policiesWithCatchAll } from "../model/policy-coverage";
import { jobLimits, type JobLimits } from "../model/job-limits";
import { allowedPullPolicies, effectivePullPolicy } from "../model/pull-policy";
import { MANAGER_CA_FILE, proxyEnvironmentLines } from "./egress-settings";

/**
 * What config.toml holds instead of the runner token. The manager startup script
 * replaces it with the token read from the secret store; it never reaches Terraform,
 * rendered files or logs.
 */
export const RUNNER_TOKEN_PLACEHOLDER = "__RUNNER_TOKEN__";

/**
 * The one line of each [[runners]] entry that carries the token, exactly as the template
 * renders it. The startup script replaces this whole line and nothing else: a model value
 * is always inside a one-line TOML string on its own key's line, so it can never form this
 * line, and a value that merely contains the placeholder text is left as it is.
 */
export const RUNNER_TOKEN_LINE = `  token = "${RUNNER_TOKEN_PLACEHOLDER}"`;

/**
 * What config.toml holds instead of the runner's ID: the boot fills it in with the ID GitLab gives for the
 * token (POST /runners/verify). gitlab-runner 19.2+ keys its taskscaler by URL and runner ID, not by token
 * (gitlab-runner issue 39380; common/config.go RunnerCredentials.ID, `toml:"id"`), so a rotated token then
 * keeps the taskscaler and its workers.
 */
export const RUNNER_ID_PLACEHOLDER = 0;
/** The one line of each [[runners]] entry that carries the runner ID, replaced whole at boot like the token line. */
export const RUNNER_ID_LINE = `  id = ${RUNNER_ID_PLACEHOLDER}`;

/** Top-level settings that are the same on every manager. */
export const MANAGER_DEFAULTS = {
  /** Seconds between job requests to GitLab (gitlab-runner's own default). */
  checkInterval: 3,
  logLevel: "info",
  /** JSON lines: CloudWatch metric filters and Cloud Logging parse them without regexes. */
  logFormat: "json",
  /** Seconds a stopping runner waits for its jobs before it is forced down (gitlab-runner's default). */
  shutdownTimeout: 30,
} as const;

export interface PolicyContext {
  readonly periods: readonly string[];
  readonly timezone: string;
  readonly idleCount: number;
  /** Canonical Go duration ("20m0s"), as gitlab-runner prints it. */
  readonly idleTime: string;
  readonly scaleFactor: number;
  readonly scaleFactorLimit: number | null;
  /** preemptive_mode when the model sets it; null leaves gitlab-runner's default (on when idle_count > 0). */
  readonly preemptiveMode: boolean | null;
}

export interface CacheContext {
  readonly type: "gcs" | "s3";
  readonly shared: boolean;
  readonly gcs: { readonly bucketName: string } | null;
  readonly s3: {
    readonly serverAddress: string;
    readonly bucketName: string;
    readonly bucketLocation: string;
    readonly authenticationType: "iam";
  } | null;
}

export interface RunnerEntryContext {
  readonly name: string;
  readonly url: string;
  readonly id: number;
  readonly token: string;
  /** tls-ca-file: the private CA bundle the boot writes (./egress-settings.ts), or null. */
  readonly tlsCaFile: string | null;
  /** clone_url: where jobs clone from when it is not `url`, or null. */
  readonly cloneUrl: string | null;
  /** Job environment: the proxy variables, so the helper's clone and the job's downloads go through it. */
  readonly environment: readonly string[];
  readonly limit: number;
  readonly requestConcurrency: number;
  readonly docker: {
    readonly image: string;
    readonly privileged: boolean;
    readonly volumes: readonly string[];
    readonly pullPolicy: readonly string[];
    /** allowed_pull_policies: the policies a job may ask for itself (../model/pull-policy.ts). */
    readonly allowedPullPolicies: readonly string[];
    /** network_mtu: the MTU of the per-job networks (FF_NETWORK_PER_BUILD), or null where Docker's default fits. */
    readonly networkMtu: number | null;
    /** Per-job limits when several jobs share a worker (../model/job-limits.ts), or null. */
    readonly limits: JobLimits | null;
  };
  readonly cache: CacheContext | null;
  readonly autoscaler: {
    readonly plugin: string;
    readonly capacityPerInstance: number;
    readonly maxUseCount: number;
    readonly maxInstances: number;
    readonly instanceReadyCommand: string;
    /** instance_acquire_timeout, a Go duration. */
    readonly instanceAcquireTimeout: string;
    /** Free-form plugin settings, rendered in this order. */
    readonly pluginConfig: ReadonlyArray<{ readonly key: string; readonly value: string }>;
    readonly connector: {
      readonly os: "linux";
      /** The workers' CPU architecture: the docker-autoscaler picks the helper image for it. */
      readonly arch: Architecture;
      readonly protocol: "ssh";
      readonly username: string;
      /** The manager's own key (key_path): one key per manager instead of one per connection. */
      readonly keyPath: string;
      readonly useExternalAddr: boolean;
    };
    readonly policies: readonly PolicyContext[];
  };
}

export interface ConfigTomlContext {
  readonly title: string;
  readonly tokenPlaceholder: string;
  readonly concurrent: number;
  readonly checkInterval: number;
  readonly logLevel: string;
  readonly logFormat: string;
  readonly listenAddress: string;
  readonly shutdownTimeout: number;
  readonly runners: readonly RunnerEntryContext[];
}

/** The manager's SSH key for its workers (connector_config key_path), made at its first boot (scripts/manager/install.sh). */
export const FLEETING_SSH_KEY = "/etc/gitlab-runner/fleeting/id_ed25519";

/**
 * Marker file the worker startup script creates (on tmpfs, so once per boot) when Docker
 * is ready; the manager waits for it before it hands a new worker a job.
 */
export const WORKER_READY_FILE = "/run/runner-fleet/worker-ready";
/**
 * Longest wait for a new worker's boot (`instance_ready_command`), in seconds. A worker that boots in time
 * takes 1 to 3 minutes (Docker present: seconds; Docker installed through NAT: a minute or two more).
 */
export const WORKER_READY_TIMEOUT_SECONDS = 480;
/**
 * How long a job waits for a worker (`instance_acquire_timeout`, gitlab-runner's default 15m, configurable
 * since 18.1: gitlab-runner MR 5563), in seconds. Set on purpose, well above the ready wait: a worker whose
 * boot hangs fails its ready command after 8 minutes and is removed, and the taskscaler gives the waiting
 * job another worker (fleeting/taskscaler issue 38: a failed ready command terminates the instance without
 * failing the job) while the job still has 12 minutes, enough for a second worker to be created and boot.
 * With both at 15 minutes, as before, a slow first boot failed the job with a system failure instead.
 */
export const INSTANCE_ACQUIRE_TIMEOUT_SECONDS = 1200;

/**
 * `request_concurrency` of a [[runners]] entry: how many requests for new jobs it keeps in flight.
 * gitlab-runner's default is 1 ("Limit number of concurrent requests for new jobs from GitLab", runner
 * advanced configuration), and with GitLab's long polling that one request is held up to the polling
 * duration, so a large manager takes its free slots one request at a time (gitlab-runner issue 29666,
 * which GitLab's docs point to on request_concurrency). One request per 10 slots of `concurrent`, at
 * least 1, never more than `concurrent` and at most 10, keeps pickup ahead of demand without flooding
 * GitLab with held requests.
 */
export function requestConcurrency(concurrent: number): number {
  return Math.min(concurrent, 10, Math.max(1, Math.ceil(concurrent / 10)));
}

export function assertSlot(shard: Shard, slot: number): void {
  if (!Number.isInteger(slot) || slot < 0 || slot >= shard.managers.count) {
    throw new RangeError(`manager slot of shard "${shard.name}" must be an integer from 0 to ${shard.managers.count - 1}, received ${slot}`);
  }
}

function policyContext(policy: AutoscalingPolicy): PolicyContext {
  const seconds = parseGoDurationSeconds(policy.idle_time);
  if (seconds === undefined) throw new TypeError(`idle_time is not a Go duration: ${JSON.stringify(policy.idle_time)}`);
  return {
    periods: policy.periods,
    timezone: policy.timezone,
    idleCount: policy.idle_count,
    idleTime: formatGoDuration(seconds),
    scaleFactor: policy.scale_factor,
    scaleFactorLimit: policy.scale_factor_limit ?? null,
    preemptiveMode: policy.preemptive_mode ?? null,
  };
}

function cacheContext(model: RunnerModel, shard: Shard): CacheContext | null {
  if (!shard.cache.enabled) return null;
  const bucketName = cacheBucketName(model, shard);
  if (model.cloud.provider === "google") {
    // No AccessID/PrivateKey/CredentialsFile: the runner signs URLs with the VM's service account (metadata server + signBlob).
    return { type: "gcs", shared: shard.cache.shared, gcs: { bucketName }, s3: null };
  }
  return {
    type: "s3",
    shared: shard.cache.shared,
    gcs: null,
    // AuthenticationType iam: credentials come from the instance profile, no keys in the file.
    s3: { serverAddress: "s3.amazonaws.com", bucketName, bucketLocation: model.cloud.region, authenticationType: "iam" },
  };
}

function pluginConfig(model: RunnerModel, shard: Shard, slot: number): RunnerEntryContext["autoscaler"]["pluginConfig"] {
  const name = workerGroupName(model, shard, slot);
  if (model.cloud.provider === "google") {
    return [
      { key: "name", value: name },
      { key: "project", value: model.cloud.project },
      { key: "zone", value: zoneOfSlot(model.cloud.zones, slot) },
    ];
  }
  // Named here, not only through AWS_REGION on the service: the plugin config alone says where the group is.
  return [
    { key: "name", value: name },
    { key: "region", value: model.cloud.region },
  ];
}

/** The shard's per-job limits; a model that passed its checks always has them when it needs them. */
function shardJobLimits(model: RunnerModel, shard: Shard): JobLimits | null {
  const limits = jobLimits(model, shard);
  if (limits === undefined) {
    throw new TypeError(`shard "${shard.name}": ${shard.workers.capacity_per_instance} jobs per ${shard.workers.machine_type} need docker.job_limits`);
  }
  return limits;
}

/** The [[runners]] entry of manager `slot`: it drives worker group `slot` and nothing else. */
export function runnerEntryContext(model: RunnerModel, shard: Shard, slot: number): RunnerEntryContext {
  assertSlot(shard, slot);
  const { workers } = shard;
  return {
    name: runnerEntryName(model, shard, slot),
    url: model.gitlab.url,
    id: RUNNER_ID_PLACEHOLDER,
    token: RUNNER_TOKEN_PLACEHOLDER,
    tlsCaFile: model.gitlab.ca_file === undefined ? null : MANAGER_CA_FILE,
    cloneUrl: model.gitlab.clone_url ?? null,
    environment: proxyEnvironmentLines(model),
    limit: workers.max_instances * workers.capacity_per_instance,
    requestConcurrency: shard.managers.request_concurrency ?? requestConcurrency(shard.managers.concurrent),
    docker: {
      image: shard.docker.image,
      privileged: shard.docker.privileged,
      volumes: shard.docker.volumes,
      pullPolicy: effectivePullPolicy(shard),
      allowedPullPolicies: allowedPullPolicies(shard),
      networkMtu: dockerMtu(model) ?? null,
      limits: shardJobLimits(model, shard),
    },
    cache: cacheContext(model, shard),
    autoscaler: {
      plugin: fleetingPlugin(model.cloud.provider, shard.managers.fleeting_plugin).reference,
      capacityPerInstance: workers.capacity_per_instance,
      maxUseCount: workers.max_use_count,
      maxInstances: workers.max_instances,
      instanceReadyCommand: `timeout ${WORKER_READY_TIMEOUT_SECONDS} sh -c 'until [ -e ${WORKER_READY_FILE} ]; do sleep 2; done'`,
      instanceAcquireTimeout: formatGoDuration(INSTANCE_ACQUIRE_TIMEOUT_SECONDS),
      pluginConfig: pluginConfig(model, shard, slot),
      connector: {
        os: "linux",
        arch: machineArchitecture(model.cloud.provider, workers.machine_type),
        protocol: "ssh",
        username: workers.username,
        keyPath: FLEETING_SSH_KEY,
        useExternalAddr: false,
      },
      policies: policiesWithCatchAll(shard).map(policyContext),
    },
  };
}

/** The whole config.toml context for a manager that runs the [[runners]] entries of `slots`. */
export function configTomlContext(model: RunnerModel, shard: Shard, slots: readonly number[]): ConfigTomlContext {
  if (slots.length === 0) throw new RangeError("a config.toml needs at least one [[runners]] entry");
  const title =
    slots.length === 1 ? `manager ${managerName(model, shard, slots[0])}` : `managers of ${model.cell.id}/${shard.name} slots ${slots.join(", ")}`;
  return {
    title,
    tokenPlaceholder: RUNNER_TOKEN_PLACEHOLDER,
    concurrent: shard.managers.concurrent,
    checkInterval: MANAGER_DEFAULTS.checkInterval,
    logLevel: MANAGER_DEFAULTS.logLevel,
    logFormat: MANAGER_DEFAULTS.logFormat,
    listenAddress: metricsListenAddress(model),
    shutdownTimeout: MANAGER_DEFAULTS.shutdownTimeout,
    runners: slots.map((slot) => runnerEntryContext(model, shard, slot)),
  };
}

/** config.toml with one [[runners]] entry per slot in `slots` (a slot VM uses exactly one). */
export function renderConfigTomlForSlots(model: RunnerModel, shard: Shard, slots: readonly number[]): string {
  return template<ConfigTomlContext>("config.toml.hbs")(configTomlContext(model, shard, slots));
}

/** config.toml of manager `slot`, token as {@link RUNNER_TOKEN_PLACEHOLDER}. */
export function renderConfigToml(model: RunnerModel, shard: Shard, slot: number): string {
  return renderConfigTomlForSlots(model, shard, [slot]);
}
