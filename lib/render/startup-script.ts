/**
 * Boot scripts of runner managers and workers (bash; GCE `startup-script` metadata or
 * EC2 user data). They never contain a token: the manager script reads it at boot
 * from the store named by `secretLocation(model, shard)`.
 */
import { DRAIN_HOOK_NAME, RUNNER_METRICS_PORT } from "../fleet-contract";
import { logGroupName, managerName, secretLocation, zoneOfSlot } from "../model/names";
import { machineArchitecture, type Architecture } from "../model/architecture";
import type { RunnerModel, Shard } from "../model/schema";
import { assertSlot, FLEETING_PLUGINS, renderConfigToml, RUNNER_TOKEN_LINE, WORKER_READY_FILE } from "./config-toml";
import { DRAIN_HEARTBEAT_INTERVAL_SECONDS, gracefulStopSeconds } from "./graceful-stop";
import { template } from "../template-engine";
import { HEALTH_CHECK_INTERVAL, HEALTH_FAILURE_LIMIT, HEALTH_FAILURES_FILE, HEALTH_PROBE_TIMEOUT_SECONDS } from "./manager-health";
import { OPS_AGENT_CONFIG_FILE, renderOpsAgentConfig } from "./ops-agent-config";

/** Heredoc delimiter that wraps config.toml inside the manager script. */
export const CONFIG_HEREDOC_DELIMITER = "GITLAB_RUNNER_CONFIG_TOML";
/** Where the manager waits for the token when the model's secret store is `local`. */
export const LOCAL_TOKEN_FILE = "/etc/gitlab-runner/runner-token";
/** gitlab-runner's log file on AWS managers, shipped to CloudWatch Logs. */
export const RUNNER_LOG_FILE = "/var/log/gitlab-runner/gitlab-runner.log";
/**
 * Where `gitlab-runner fleeting install` puts plugins: the default for root
 * (~/.config/fleeting/plugins), also set explicitly so install and service agree.
 */
export const FLEETING_PLUGIN_DIR = "/root/.config/fleeting/plugins";
/** Where the manager script installs itself; its systemd timers run it with a command (`refresh-token`, `drain`). */
export const INSTALLED_MANAGER_SCRIPT = "/usr/local/sbin/runner-fleet-manager";
/**
 * How often a manager re-reads its token from the store (systemd time span). The gap after
 * `onboard --rotate`, while the old token is already refused, is at most this long.
 */
export const TOKEN_REFRESH_INTERVAL = "1min";
/** Tags of the scripts' log lines (`journalctl -t <tag>`). */
export const LOG_TAGS = { manager: "runner-fleet-manager", worker: "runner-fleet-worker" } as const;

export interface TokenStoreContext {
  readonly googleSecretManager: {
    /** Human-readable source for log lines. */
    readonly tokenSource: string;
    /** REST URL of the secret's latest version (`:access` returns the payload, base64). */
    readonly secretVersionUrl: string;
  } | null;
  readonly awsSsm: { readonly tokenSource: string; readonly parameterName: string } | null;
  readonly local: { readonly tokenFile: string } | null;
}

export interface ManagerScriptContext {
  readonly logTag: string;
  readonly managerName: string;
  readonly cellId: string;
  readonly shardName: string;
  readonly slot: number;
  readonly runnerVersion: string;
  /** The managers' CPU architecture (their machine type's); the image must be of it. */
  readonly architecture: Architecture;
  /** Debian package version of the pinned runner ("18.5.0-1"). */
  readonly runnerPackageVersion: string;
  readonly configToml: string;
  readonly configHeredocDelimiter: string;
  readonly tokenLine: string;
  readonly fleetingPlugin: string;
  readonly fleetingPluginDir: string;
  readonly metricsPort: number;
  readonly installedScript: string;
  /** systemd's TimeoutStopSec for gitlab-runner: the shard's maximum_timeout and a margin. */
  readonly gracefulStopSeconds: number;
  readonly tokenRefreshInterval: string;
  readonly google: {
    readonly project: string;
    readonly opsAgentConfig: string;
    readonly opsAgentConfigFile: string;
    /** Zone of the slot's manager group. */
    readonly zone: string;
    /** `projects/<p>/zones/<z>/instanceGroupManagers/<group>`: the slot's own manager group (the drain recreates its VM there). */
    readonly groupPath: string;
  } | null;
  readonly aws: {
    readonly region: string;
    readonly drainHookName: string;
    readonly drainHeartbeatSeconds: number;
    readonly healthCheckInterval: string;
    readonly healthFailureLimit: number;
    readonly healthProbeTimeoutSeconds: number;
    readonly healthFailuresFile: string;
    readonly logGroupName: string;
    readonly runnerLogFile: string;
    readonly cloudWatchAgentConfig: string;
  } | null;
  readonly store: TokenStoreContext;
}

export interface WorkerScriptContext {
  readonly logTag: string;
  readonly cellId: string;
  readonly shardName: string;
  readonly username: string;
  readonly readyFile: string;
  /** AWS runs user data once per instance; the script then re-installs itself as a cloud-init per-boot script. */
  readonly perBootCopy: boolean;
}

function tokenStore(model: RunnerModel, shard: Shard): TokenStoreContext {
  const location = secretLocation(model, shard);
  const { cloud } = model;
  switch (model.secrets.store) {
    case "google-secret-manager":
      if (cloud.provider !== "google") throw new TypeError(`secret store google-secret-manager needs cloud google, not ${cloud.provider}`);
      return {
        googleSecretManager: {
          tokenSource: `Secret Manager secret ${location.googleSecretId} of project ${cloud.project}`,
          secretVersionUrl: `https://secretmanager.googleapis.com/v1/projects/${cloud.project}/secrets/${location.googleSecretId}/versions/latest:access`,
        },
        awsSsm: null,
        local: null,
      };
    case "aws-ssm":
      if (cloud.provider !== "aws") throw new TypeError(`secret store aws-ssm needs cloud aws, not ${cloud.provider}`);
      return {
        googleSecretManager: null,
        awsSsm: { tokenSource: `SSM parameter ${location.awsParameterName}`, parameterName: location.awsParameterName },
        local: null,
      };
    case "local":
      return { googleSecretManager: null, awsSsm: null, local: { tokenFile: LOCAL_TOKEN_FILE } };
  }
}

/** CloudWatch agent configuration: gitlab-runner's JSON log lines to the shard's log group, one stream per instance. */
function cloudWatchAgentConfig(model: RunnerModel, shard: Shard): string {
  const config = {
    logs: {
      logs_collected: {
        files: {
          collect_list: [
            {
              file_path: RUNNER_LOG_FILE,
              log_group_name: logGroupName(model, shard),
              log_stream_name: "{instance_id}",
              timezone: "UTC",
            },
          ],
        },
      },
    },
  };
  return JSON.stringify(config, null, 2);
}

export function managerScriptContext(model: RunnerModel, shard: Shard, slot: number): ManagerScriptContext {
  assertSlot(shard, slot);
  const configToml = renderConfigToml(model, shard, slot).replace(/\n+$/, "");
  const configLines = configToml.split("\n");
  if (configLines.includes(CONFIG_HEREDOC_DELIMITER)) {
    throw new Error(`config.toml contains the line ${CONFIG_HEREDOC_DELIMITER}, which would end its heredoc early`);
  }
  const tokenLines = configLines.filter((line) => line === RUNNER_TOKEN_LINE).length;
  const runnerEntries = configLines.filter((line) => line === "[[runners]]").length;
  if (tokenLines !== runnerEntries) {
    throw new Error(`config.toml has ${tokenLines} token line(s) for ${runnerEntries} [[runners]] entr(ies); the startup script writes the token into exactly one per entry`);
  }
  const { cloud } = model;
  return {
    logTag: LOG_TAGS.manager,
    managerName: managerName(model, shard, slot),
    cellId: model.cell.id,
    shardName: shard.name,
    slot,
    runnerVersion: shard.managers.runner_version,
    architecture: machineArchitecture(cloud.provider, shard.managers.machine_type),
    runnerPackageVersion: `${shard.managers.runner_version}-1`,
    configToml,
    configHeredocDelimiter: CONFIG_HEREDOC_DELIMITER,
    tokenLine: RUNNER_TOKEN_LINE,
    fleetingPlugin: FLEETING_PLUGINS[cloud.provider],
    fleetingPluginDir: FLEETING_PLUGIN_DIR,
    metricsPort: RUNNER_METRICS_PORT,
    installedScript: INSTALLED_MANAGER_SCRIPT,
    gracefulStopSeconds: gracefulStopSeconds(shard),
    tokenRefreshInterval: TOKEN_REFRESH_INTERVAL,
    google:
      cloud.provider === "google"
        ? {
            project: cloud.project,
            opsAgentConfig: renderOpsAgentConfig(model, shard, slot),
            opsAgentConfigFile: OPS_AGENT_CONFIG_FILE,
            zone: zoneOfSlot(cloud.zones, slot),
            groupPath: `projects/${cloud.project}/zones/${zoneOfSlot(cloud.zones, slot)}/instanceGroupManagers/${managerName(model, shard, slot)}`,
          }
        : null,
    aws:
      cloud.provider === "aws"
        ? {
            region: cloud.region,
            drainHookName: DRAIN_HOOK_NAME,
            drainHeartbeatSeconds: DRAIN_HEARTBEAT_INTERVAL_SECONDS,
            healthCheckInterval: HEALTH_CHECK_INTERVAL,
            healthFailureLimit: HEALTH_FAILURE_LIMIT,
            healthProbeTimeoutSeconds: HEALTH_PROBE_TIMEOUT_SECONDS,
            healthFailuresFile: HEALTH_FAILURES_FILE,
            logGroupName: logGroupName(model, shard),
            runnerLogFile: RUNNER_LOG_FILE,
            cloudWatchAgentConfig: cloudWatchAgentConfig(model, shard),
          }
        : null,
    store: tokenStore(model, shard),
  };
}

/** Bash startup script of manager `slot`: installs, configures and starts gitlab-runner; token read at boot. */
export function renderManagerStartupScript(model: RunnerModel, shard: Shard, slot: number): string {
  return template<ManagerScriptContext>("startup/manager.sh.hbs")(managerScriptContext(model, shard, slot));
}

export function workerScriptContext(model: RunnerModel, shard: Shard): WorkerScriptContext {
  return {
    logTag: LOG_TAGS.worker,
    cellId: model.cell.id,
    shardName: shard.name,
    username: shard.workers.username,
    readyFile: WORKER_READY_FILE,
    perBootCopy: model.cloud.provider === "aws",
  };
}

/** Bash startup script of the shard's workers: Docker running, connector user in the docker group. */
export function renderWorkerStartupScript(model: RunnerModel, shard: Shard): string {
  return template<WorkerScriptContext>("startup/worker.sh.hbs")(workerScriptContext(model, shard));
}
