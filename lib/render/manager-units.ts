/**
 * The systemd units of a runner manager: the drop-in that makes gitlab-runner's service stop gracefully,
 * and runner-fleet's timers (token refresh, drain, health). Rendered as files of the startup payload, so
 * tests check them with `systemd-analyze verify` and real systemd.
 */
import type { BootFile } from "./boot-files";
import { renderUnitFile, type UnitFile } from "./systemd-unit";

/** Where the payload puts the manager's entry script; the timers run it with a command. */
export const INSTALLED_MANAGER_SCRIPT = "/usr/local/sbin/runner-fleet-manager";
export const RUNNER_DROP_IN = "/etc/systemd/system/gitlab-runner.service.d/10-runner-fleet.conf";

export interface RunnerServiceSettings {
  /** systemd's TimeoutStopSec: the shard's maximum_timeout and a margin. */
  readonly gracefulStopSeconds: number;
  readonly fleetingPluginDir: string;
  /** AWS: the plugin's region, and gitlab-runner's JSON log to a file the CloudWatch agent ships. */
  readonly aws: { readonly region: string; readonly runnerLogFile: string } | null;
}

/**
 * Graceful stop (GitLab docs, "Overriding default stopping behavior", docs/configuration/init.md): on SIGQUIT
 * gitlab-runner takes no new jobs and exits when the running ones are done; the default SIGTERM aborts them.
 * KillMode=mixed sends that SIGQUIT to the main process only (systemd.kill(5)): with the default
 * control-group it reaches every process of the unit, including the fleeting plugin, a Go program run as a
 * go-plugin child, which SIGQUIT makes dump its goroutines and exit (Go os/signal: "SIGQUIT ... causes the
 * program to exit with a stack dump") while the runner still needs it to drive its workers. The runner shuts
 * the plugin down itself when it exits; whatever is left gets SIGKILL.
 */
export function runnerServiceDropIn(settings: RunnerServiceSettings): BootFile {
  const service: Array<readonly [string, string | number]> = [
    ["KillSignal", "SIGQUIT"],
    ["KillMode", "mixed"],
    ["TimeoutStopSec", settings.gracefulStopSeconds],
    // Every start records what it starts with ("-": a failure to record never keeps the runner from starting).
    // The boot compares it and restarts a running runner only when its configuration changed (scripts/manager/service.sh).
    ["ExecStartPre", `-${INSTALLED_MANAGER_SCRIPT} record-start`],
    // The service finds the plugin where `gitlab-runner fleeting install` put it.
    ["Environment", "HOME=/root"],
    ["Environment", `FLEETING_PLUGIN_PATH=${settings.fleetingPluginDir}`],
  ];
  if (settings.aws) {
    service.push(
      // The aws fleeting plugin takes its region from the environment.
      ["Environment", `AWS_REGION=${settings.aws.region}`],
      // append: creates the file, not its directory, which the boot makes first (scripts/manager/cloud/aws.sh).
      // Not LogsDirectory=: systemd opens the output before it creates that directory, and the start fails
      // with 209/STDOUT (systemd issue 27591; seen in real systemd 252 by test/system/manager-aws.test.ts).
      ["StandardOutput", `append:${settings.aws.runnerLogFile}`],
      ["StandardError", `append:${settings.aws.runnerLogFile}`],
    );
  }
  return {
    path: RUNNER_DROP_IN,
    mode: "0644",
    content: renderUnitFile("runner-fleet: gitlab-runner stops gracefully (SIGQUIT to the runner only; running jobs finish).", { Service: service }),
  };
}

export interface ManagerTimer {
  /** Unit name without the runner-fleet- prefix and suffix. */
  readonly name: string;
  /** The manager script's command. */
  readonly command: "refresh-token" | "refresh-config" | "drain" | "health" | "heartbeat";
  /** Enabled at the start of the boot, before anything can fail, instead of once the runner runs. */
  readonly early?: boolean;
  /** systemd time span between runs. */
  readonly every: string;
  readonly description: string;
}

/** A timer and its oneshot service. */
export function timerUnits(timer: ManagerTimer): BootFile[] {
  const service: UnitFile = {
    Unit: [["Description", timer.description]],
    Service: [
      ["Type", "oneshot"],
      // A drain waits for running jobs: no start timeout.
      ["TimeoutStartSec", "infinity"],
      ["ExecStart", `${INSTALLED_MANAGER_SCRIPT} ${timer.command}`],
    ],
  };
  const schedule: UnitFile = {
    Unit: [["Description", `${timer.description} (every ${timer.every})`]],
    Timer: [
      ["OnActiveSec", timer.every],
      ["OnUnitActiveSec", timer.every],
      ["AccuracySec", "5s"],
    ],
    Install: [["WantedBy", "timers.target"]],
  };
  const base = `/etc/systemd/system/runner-fleet-${timer.name}`;
  return [
    { path: `${base}.service`, mode: "0644", content: renderUnitFile("runner-fleet: run by its timer.", service) },
    { path: `${base}.timer`, mode: "0644", content: renderUnitFile("runner-fleet", schedule) },
  ];
}

/** Unit names of the timers, as `systemctl enable` takes them. */
export function timerUnitNames(timers: readonly ManagerTimer[]): string[] {
  return timers.map((timer) => `runner-fleet-${timer.name}.timer`);
}
