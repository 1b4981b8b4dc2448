/**
 * What runner managers and workers boot with: one startup payload each (GCE `startup-script` metadata or
 * EC2 user data) that writes the VM's files and runs its entry script. The logic is in plain scripts
 * (scripts/manager/, scripts/worker/); what differs per manager is data: its settings file, its
 * config.toml, its systemd units. None of it contains a token: the manager reads it at boot from the
 * store named by `secretLocation(model, shard)`.
 */
import { awsShardMetricNamespace, BOOT_FAILURES_METRIC, DRAIN_HOOK_NAME, MANAGER_HEARTBEAT_METRIC, RUNNER_METRICS_PORT } from "../contract/fleet-contract";
import { logGroupName, managerName, secretLocation, zoneOfSlot } from "../model/names";
import { machineArchitecture } from "../model/architecture";
import { fleetingPlugin } from "../model/fleeting-plugin";
import type { RunnerModel, Shard } from "../model/schema";
import { assertSlot, FLEETING_SSH_KEY, renderConfigToml, RUNNER_ID_LINE, RUNNER_TOKEN_LINE, WORKER_READY_FILE } from "./config-toml";
import { DRAIN_HEARTBEAT_INTERVAL_SECONDS, gracefulStopSeconds } from "./graceful-stop";
import { HEALTH_CHECK_INTERVAL, HEALTH_FAILURE_LIMIT, HEALTH_PROBE_TIMEOUT_SECONDS } from "./manager-health";
import { renderOpsAgentConfig } from "./ops-agent-config";
import { renderSettingsFile, scriptFile, type BootFile } from "./boot-files";
import { renderBootPayload } from "./boot-payload";
import { DOCKER_DAEMON_SETTINGS_FILE, dockerDaemonBootFiles } from "./docker-daemon";
import { INSTALLED_MANAGER_SCRIPT, runnerServiceDropIn, timerUnitNames, timerUnits, type ManagerTimer } from "./manager-units";
import { rotationMode } from "../model/rotation-mode";
import { egressSettings, MANAGER_CA_FILE, proxyEnvironment, type EgressSettings } from "./egress-settings";
import { CONFIG_REFRESH_INTERVAL, liveConfigSettings } from "./live-config";

export { INSTALLED_MANAGER_SCRIPT } from "./manager-units";
/** Where the manager waits for the token when the model's secret store is `local` (scripts/manager/store/local.sh). */
export const LOCAL_TOKEN_FILE = "/etc/gitlab-runner/runner-token";
/** gitlab-runner's log file on AWS managers, shipped to CloudWatch Logs. */
export const RUNNER_LOG_FILE = "/var/log/gitlab-runner/gitlab-runner.log";
/**
 * Where `gitlab-runner fleeting install` puts plugins: the default for root
 * (~/.config/fleeting/plugins), also set explicitly so install and service agree.
 */
export const FLEETING_PLUGIN_DIR = "/root/.config/fleeting/plugins";
export const INSTALLED_WORKER_SCRIPT = "/usr/local/sbin/runner-fleet-worker";
/** The manager's scripts next to its entry (scripts/manager/ minus the other cloud's and stores' halves). */
export const MANAGER_LIB_DIR = "/usr/local/lib/runner-fleet/manager";
export const MANAGER_SETTINGS_FILE = "/etc/runner-fleet/manager.env";
export const WORKER_SETTINGS_FILE = "/etc/runner-fleet/worker.env";
export const CONFIG_TEMPLATE_FILE = "/etc/runner-fleet/config.toml.template";
/**
 * How often a manager re-reads its token from the store (systemd time span). The gap after
 * `onboard --rotate`, while the old token is already refused, is at most this long.
 */
export const TOKEN_REFRESH_INTERVAL = "1min";
/** Seconds between two looks at gitlab-runner's state while an AWS drain waits for it to stop. */
export const DRAIN_POLL_SECONDS = 10;
/**
 * How long the boot waits for the runner token in the store and for GitLab to confirm it (each), before it
 * fails (boot_failed: reported, the instance replaced). The token may be stored after the VM boots.
 */
export const CREDENTIALS_WAIT_SECONDS = 900;
/** Seconds between two looks at the slot's group while a new AWS manager waits for the old one to drain. */
export const SLOT_POLL_SECONDS = 15;
/** How often an AWS manager puts its heartbeat (systemd time span). */
export const HEARTBEAT_INTERVAL = "1min";
/** Tags of the scripts' log lines (`journalctl -t <tag>`). */
export const LOG_TAGS = { manager: "runner-fleet-manager", worker: "runner-fleet-worker" } as const;

/** The manager's scripts that every cloud and store share (scripts/manager/). */
const SHARED_MANAGER_SCRIPTS = ["common.sh", "install.sh", "runner-config.sh", "service.sh", "live-config.sh"] as const;

function tokenStoreSettings(model: RunnerModel, shard: Shard): Record<string, string> {
  const location = secretLocation(model, shard);
  const { cloud } = model;
  switch (model.secrets.store) {
    case "google-secret-manager":
      if (cloud.provider !== "google") throw new TypeError(`secret store google-secret-manager needs cloud google, not ${cloud.provider}`);
      return {
        TOKEN_SOURCE: `Secret Manager secret ${location.googleSecretId} of project ${cloud.project}`,
        // The secret's latest version; `:access` returns the payload, base64.
        SECRET_VERSION_URL: `https://secretmanager.googleapis.com/v1/projects/${cloud.project}/secrets/${location.googleSecretId}/versions/latest:access`,
      };
    case "aws-ssm":
      if (cloud.provider !== "aws") throw new TypeError(`secret store aws-ssm needs cloud aws, not ${cloud.provider}`);
      return { TOKEN_SOURCE: `SSM parameter ${location.awsParameterName}`, SSM_PARAMETER_NAME: location.awsParameterName };
    case "local":
      return { TOKEN_SOURCE: LOCAL_TOKEN_FILE, LOCAL_TOKEN_FILE };
  }
}

/** The timers of a manager on `cloud`. */
export function managerTimers(cloud: RunnerModel["cloud"]["provider"]): ManagerTimer[] {
  const refresh: ManagerTimer = { name: "token-refresh", command: "refresh-token", every: TOKEN_REFRESH_INTERVAL, description: "Re-read the runner token from its store" };
  const config: ManagerTimer = { name: "config-refresh", command: "refresh-config", every: CONFIG_REFRESH_INTERVAL, description: "Apply a changed config.toml from its store" };
  if (cloud === "aws") {
    return [
      refresh,
      config,
      // Early: a boot that fails still completes its termination lifecycle action, and releases its slot at once.
      { name: "drain", command: "drain", every: "15s", description: "Drain gitlab-runner when Auto Scaling terminates this instance", early: true },
      { name: "health", command: "health", every: HEALTH_CHECK_INTERVAL, description: "Report this instance Unhealthy when gitlab-runner stops answering" },
      { name: "heartbeat", command: "heartbeat", every: HEARTBEAT_INTERVAL, description: "Put this manager's heartbeat metric in CloudWatch", early: true },
    ];
  }
  return [refresh, config, { name: "drain", command: "drain", every: "30s", description: "Drain gitlab-runner, then recreate this VM, when its group has a new template" }];
}

/** The settings file of manager `slot` (manager.env): everything its scripts need to know, as data. */
export function managerSettings(model: RunnerModel, shard: Shard, slot: number): Record<string, string | number> {
  const { cloud } = model;
  const common = {
    LOG_TAG: LOG_TAGS.manager,
    CELL_ID: model.cell.id,
    SHARD_NAME: shard.name,
    SLOT: slot,
    MANAGER_NAME: managerName(model, shard, slot),
    CLOUD: cloud.provider,
    TOKEN_STORE: model.secrets.store,
    GITLAB_URL: model.gitlab.url,
    RUNNER_VERSION: shard.managers.runner_version,
    // Debian package version of the pinned runner.
    RUNNER_PACKAGE_VERSION: `${shard.managers.runner_version}-1`,
    RUNNER_ARCH: machineArchitecture(cloud.provider, shard.managers.machine_type),
    ROTATION_MODE: rotationMode(shard.managers.runner_version),
    TOKEN_LINE: RUNNER_TOKEN_LINE,
    RUNNER_ID_LINE,
    FLEETING_PLUGIN: fleetingPlugin(cloud.provider, shard.managers.fleeting_plugin).reference,
    // Where that exact version sits once installed: the boot installs it only when this is missing.
    FLEETING_PLUGIN_INSTALLED_PATH: fleetingPlugin(cloud.provider, shard.managers.fleeting_plugin).installedPath,
    FLEETING_PLUGIN_DIR,
    FLEETING_SSH_KEY,
    GRACEFUL_STOP_SECONDS: gracefulStopSeconds(shard),
    METRICS_PORT: RUNNER_METRICS_PORT,
    MONITORING_ATTEMPTS: 3,
    EARLY_TIMERS: timerUnitNames(managerTimers(cloud.provider).filter((timer) => timer.early)).join(" "),
    TIMERS: timerUnitNames(managerTimers(cloud.provider).filter((timer) => !timer.early)).join(" "),
    CREDENTIALS_WAIT_SECONDS,
    ...tokenStoreSettings(model, shard),
    ...liveConfigSettings(model, shard, slot),
    ...egressScriptSettings(model),
  };
  if (cloud.provider === "aws") {
    return {
      ...common,
      AWS_REGION_NAME: cloud.region,
      DRAIN_HOOK_NAME,
      DRAIN_HEARTBEAT_SECONDS: DRAIN_HEARTBEAT_INTERVAL_SECONDS,
      DRAIN_POLL_SECONDS,
      RUNNER_LOG_FILE,
      HEALTH_FAILURE_LIMIT,
      HEALTH_PROBE_TIMEOUT_SECONDS,
      BOOT_METRIC_NAMESPACE: awsShardMetricNamespace(model.cell.id, shard.name),
      HEARTBEAT_METRIC: MANAGER_HEARTBEAT_METRIC,
      // The previous manager of the slot drains for up to its graceful stop, then completes its hook.
      SLOT_WAIT_SECONDS: gracefulStopSeconds(shard) + SLOT_POLL_SECONDS * 4,
      SLOT_POLL_SECONDS,
    };
  }
  const zone = zoneOfSlot(cloud.zones, slot);
  return {
    ...common,
    GOOGLE_PROJECT: cloud.project,
    GROUP_ZONE: zone,
    // The slot's own manager group: the drain recreates its VM there.
    GROUP_PATH: `projects/${cloud.project}/zones/${zone}/instanceGroupManagers/${managerName(model, shard, slot)}`,
    BOOT_METRIC_TYPE: BOOT_FAILURES_METRIC.google,
  };
}

/**
 * What the scripts' own requests need behind a private CA and a proxy (curl to GitLab and the package
 * sources): the CA file's path, and the proxy settings common.sh exports to every command it runs.
 */
function egressScriptSettings(model: RunnerModel): Record<string, string> {
  const proxy = new Map(proxyEnvironment(model).map(({ name, value }) => [name, value]));
  return {
    GITLAB_CA_FILE: model.gitlab.ca_file === undefined ? "" : MANAGER_CA_FILE,
    EGRESS_HTTPS_PROXY: proxy.get("HTTPS_PROXY") ?? "",
    EGRESS_HTTP_PROXY: proxy.get("HTTP_PROXY") ?? "",
    EGRESS_NO_PROXY: proxy.get("NO_PROXY") ?? "",
  };
}

/** The CA file and proxy drop-ins a VM writes before apt, dockerd or gitlab-runner start. */
function egressBootFiles(egress: EgressSettings, role: "manager" | "worker"): BootFile[] {
  const { proxyFiles } = egress;
  return [
    ...(egress.caFile && role === "manager" ? [egress.caFile] : []),
    ...(role === "manager" ? proxyFiles.gitlabRunner : []),
    ...proxyFiles.docker,
    ...proxyFiles.apt,
  ];
}

/** CloudWatch agent configuration: gitlab-runner's JSON log lines to the shard's log group, one stream per instance. */
function cloudWatchAgentConfig(model: RunnerModel, shard: Shard): string {
  const config = {
    logs: {
      logs_collected: {
        files: {
          collect_list: [{ file_path: RUNNER_LOG_FILE, log_group_name: logGroupName(model, shard), log_stream_name: "{instance_id}", timezone: "UTC" }],
        },
      },
    },
  };
  return JSON.stringify(config, null, 2);
}

const LOGROTATE_RUNNER_LOG = `${RUNNER_LOG_FILE} {
  daily
  rotate 7
  compress
  missingok
  notifempty
  copytruncate
}
`;

/** Every file manager `slot` boots with, in the order the payload writes them. */
export function managerBootFiles(model: RunnerModel, shard: Shard, slot: number): BootFile[] {
  assertSlot(shard, slot);
  const { cloud } = model;
  const configToml = renderConfigToml(model, shard, slot);
  const configLines = configToml.split("\n");
  const runnerEntries = configLines.filter((line) => line === "[[runners]]").length;
  for (const [what, line] of [["token", RUNNER_TOKEN_LINE], ["runner ID", RUNNER_ID_LINE]] as const) {
    const found = configLines.filter((candidate) => candidate === line).length;
    if (found !== runnerEntries) throw new Error(`config.toml has ${found} ${what} line(s) for ${runnerEntries} [[runners]] entr(ies); the boot fills in exactly one per entry`);
  }
  const scripts: BootFile[] = [
    { path: INSTALLED_MANAGER_SCRIPT, mode: "0755", content: scriptFile("manager/runner-fleet-manager") },
    ...SHARED_MANAGER_SCRIPTS.map((name): BootFile => ({ path: `${MANAGER_LIB_DIR}/${name}`, mode: "0644", content: scriptFile(`manager/${name}`) })),
    { path: `${MANAGER_LIB_DIR}/cloud/${cloud.provider}.sh`, mode: "0644", content: scriptFile(`manager/cloud/${cloud.provider}.sh`) },
    { path: `${MANAGER_LIB_DIR}/store/${model.secrets.store}.sh`, mode: "0644", content: scriptFile(`manager/store/${model.secrets.store}.sh`) },
  ];
  const data: BootFile[] = [
    { path: MANAGER_SETTINGS_FILE, mode: "0644", content: renderSettingsFile(`Settings of runner manager ${managerName(model, shard, slot)}`, managerSettings(model, shard, slot)) },
    // No config.toml here: the manager reads it from its store at run time (live-config.ts), so a change to it
    // changes no template and replaces no manager.
    runnerServiceDropIn({
      gracefulStopSeconds: gracefulStopSeconds(shard),
      fleetingPluginDir: FLEETING_PLUGIN_DIR,
      aws: cloud.provider === "aws" ? { region: cloud.region, runnerLogFile: RUNNER_LOG_FILE } : null,
    }),
    ...managerTimers(cloud.provider).flatMap(timerUnits),
  ];
  const monitoring: BootFile[] =
    cloud.provider === "google"
      ? [{ path: "/etc/runner-fleet/ops-agent.yaml", mode: "0644", content: renderOpsAgentConfig(model, shard, slot) }]
      : [
          { path: "/etc/runner-fleet/cloudwatch-agent.json", mode: "0644", content: cloudWatchAgentConfig(model, shard) },
          { path: "/etc/logrotate.d/gitlab-runner-fleet", mode: "0644", content: LOGROTATE_RUNNER_LOG },
        ];
  return [...scripts, ...data, ...egressBootFiles(egressSettings(model), "manager"), ...monitoring];
}

/** Startup payload of manager `slot`: writes its files, then runs `runner-fleet-manager boot`. */
export function renderManagerStartupScript(model: RunnerModel, shard: Shard, slot: number): string {
  const files = managerBootFiles(model, shard, slot);
  return renderBootPayload(`runner manager ${managerName(model, shard, slot)} (cell ${model.cell.id}, shard ${shard.name}, slot ${slot})`, INSTALLED_MANAGER_SCRIPT, files);
}

/** The settings file of the shard's workers (worker.env). */
export function workerSettings(model: RunnerModel, shard: Shard): Record<string, string> {
  return {
    LOG_TAG: LOG_TAGS.worker,
    CELL_ID: model.cell.id,
    SHARD_NAME: shard.name,
    // The user gitlab-runner connects as (workers.username in the model).
    CONNECTOR_USER: shard.workers.username,
    // The manager hands out jobs once this exists; /run is cleared at every boot.
    READY_FILE_PATH: WORKER_READY_FILE,
    // Rendered Docker daemon settings (absent when the model sets none): installed as /etc/docker/daemon.json.
    DOCKER_DAEMON_SETTINGS_PATH: DOCKER_DAEMON_SETTINGS_FILE,
    // EC2 runs user data once per instance; the boot then installs itself as a cloud-init per-boot script.
    BOOT_HOOK: model.cloud.provider === "aws" ? "cloud-init-per-boot" : "none",
    // The aws fleeting plugin sends its key through EC2 Instance Connect; the boot makes sure sshd accepts it.
    SSH_KEY_DELIVERY: model.cloud.provider === "aws" ? "ec2-instance-connect" : "instance-metadata",
    ...egressScriptSettings(model),
  };
}

/** Every file the shard's workers boot with. */
export function workerBootFiles(model: RunnerModel, shard: Shard): BootFile[] {
  return [
    { path: INSTALLED_WORKER_SCRIPT, mode: "0755", content: scriptFile("worker/runner-fleet-worker") },
    { path: WORKER_SETTINGS_FILE, mode: "0644", content: renderSettingsFile(`Settings of the workers of ${model.cell.id}/${shard.name}`, workerSettings(model, shard)) },
    ...dockerDaemonBootFiles(model, shard),
    ...egressBootFiles(egressSettings(model), "worker"),
  ];
}

/** Startup payload of the shard's workers: Docker running, connector user in the docker group, ready marker. */
export function renderWorkerStartupScript(model: RunnerModel, shard: Shard): string {
  return renderBootPayload(`the GitLab runner workers of cell ${model.cell.id}, shard ${shard.name}`, INSTALLED_WORKER_SCRIPT, workerBootFiles(model, shard));
}
