/**
 * Checks shared by the Google and AWS manager suites: what a booted manager looks like from
 * outside, read from real systemd and the stubs' call logs only (never from the script's text).
 */
import { gracefulStopSeconds } from "../../../lib/render/graceful-stop";
import type { Manager } from "./manager-boot";
import type { StubCall } from "./stub-state";

export const RUNNER_UNIT = "gitlab-runner.service";
export const TOKEN_REFRESH_TIMER = "runner-fleet-token-refresh.timer";
export const DRAIN_TIMER = "runner-fleet-drain.timer";
export const HEALTH_TIMER = "runner-fleet-health.timer";
export const HEARTBEAT_TIMER = "runner-fleet-heartbeat.timer";
export const CONFIG_FILE = "/etc/gitlab-runner/config.toml";

const TIMESPAN_UNITS: Record<string, number> = { w: 604800, d: 86400, h: 3600, min: 60, s: 1, ms: 0.001, us: 0.000001 };

/** Seconds of a systemd time span as `systemctl show` prints it ("2h 5min", "1min 30s"). */
export function timespanSeconds(text: string): number {
  let seconds = 0;
  for (const [, value, unit] of text.matchAll(/(\d+(?:\.\d+)?)\s*(w|d|h|min|ms|us|s)\b/g)) seconds += Number(value) * TIMESPAN_UNITS[unit];
  return seconds;
}

/** The longest monotonic interval of a timer (OnActiveSec=, OnUnitActiveSec=, ...), in seconds. */
export async function timerIntervalSeconds(manager: Manager, timer: string): Promise<number> {
  const { TimersMonotonic } = await manager.container.unitProperties(timer, ["TimersMonotonic"]);
  const spans = [...(TimersMonotonic ?? "").matchAll(/On\w+USec=([^;}]+)/g)].map(([, span]) => timespanSeconds(span));
  if (spans.length === 0) throw new Error(`${timer} has no monotonic timers: ${JSON.stringify(TimersMonotonic)}`);
  return Math.max(...spans);
}

/** Whether a timer has fired since the container booted. */
export async function timerHasFired(manager: Manager, timer: string): Promise<boolean> {
  const { LastTriggerUSecMonotonic } = await manager.container.unitProperties(timer, ["LastTriggerUSecMonotonic"]);
  return LastTriggerUSecMonotonic !== undefined && LastTriggerUSecMonotonic !== "0";
}

/** When a unit last entered a state, as epoch milliseconds (systemd's own record). */
export async function stateEnteredAt(manager: Manager, unit: string, property: "InactiveEnterTimestamp" | "ActiveEnterTimestamp"): Promise<number> {
  const result = await manager.container.exec(["systemctl", "show", "--timestamp=unix", `--property=${property}`, "--value", unit]);
  const match = /@(\d+(?:\.\d+)?)/.exec(result.stdout);
  if (!match) throw new Error(`${unit} has no ${property}: ${JSON.stringify(result.stdout)}`);
  return Number(match[1]) * 1000;
}

/** The service's effective settings that the manager's drop-in is there to set. */
export async function runnerServiceSettings(manager: Manager): Promise<Record<string, string>> {
  return manager.container.unitProperties(RUNNER_UNIT, ["ActiveState", "SubState", "UnitFileState", "KillSignal", "KillMode", "TimeoutStopUSec", "Environment", "DropInPaths", "MainPID", "NRestarts"]);
}

export function expectedStopSeconds(manager: Manager): number {
  return gracefulStopSeconds(manager.shard);
}

/** `systemd-analyze verify` of units as installed in the container (drop-ins included). */
export async function verifyUnits(manager: Manager, units: readonly string[]): Promise<{ code: number; output: string }> {
  const result = await manager.container.exec(["systemd-analyze", "verify", ...units], { check: false });
  return { code: result.code, output: `${result.stdout}${result.stderr}`.trim() };
}

/** The plugin children the gitlab-runner stub started, and everything each of them recorded. */
export function pluginEvents(manager: Manager): Map<number, StubCall[]> {
  const events = new Map<number, StubCall[]>();
  for (const call of manager.stubs.callsOf("fleeting-plugin")) {
    events.set(call.pid, [...(events.get(call.pid) ?? []), call]);
  }
  return events;
}

/** The gitlab-runner stub's `run` processes' exits, in order. */
export function runnerExits(manager: Manager): StubCall[] {
  return manager.stubs.callsOf("gitlab-runner", "exit");
}

export async function waitForConfigToken(manager: Manager, token: string, timeoutMs: number): Promise<void> {
  await manager.container.waitFor(
    `${CONFIG_FILE} to hold the new token`,
    async () => (await manager.container.exec(["grep", "-qF", `token = "${token}"`, CONFIG_FILE], { check: false })).code === 0,
    timeoutMs,
    1000,
  );
}

/**
 * Waits until gitlab-runner runs with its plugins after a change: the unit is active, and a plugin
 * started after the runner's last start and after its last taskscaler replacement. A stop that landed
 * mid-change would reach no plugin.
 */
export async function waitForRunnerSettled(manager: Manager, timeoutMs = 15_000): Promise<void> {
  await manager.container.waitFor(
    "gitlab-runner to run with its plugins",
    async () => {
      if ((await manager.container.activeState(RUNNER_UNIT)) !== "active") return false;
      const calls = manager.stubs.calls();
      const last = (tool: string, event: string) => calls.map((call) => `${call.tool} ${call.event}`).lastIndexOf(`${tool} ${event}`);
      return last("fleeting-plugin", "start") > Math.max(last("gitlab-runner", "run"), last("gitlab-runner", "taskscaler-replaced"));
    },
    timeoutMs,
  );
}

/** gitlab-runner.service's state, with the tail of its journal when it is not running (for the failure message). */
export async function runnerRunning(manager: Manager): Promise<{ ActiveState: string; SubState: string; journal: string }> {
  const { ActiveState, SubState } = await manager.container.unitProperties(RUNNER_UNIT, ["ActiveState", "SubState"]);
  const running = ActiveState === "active" && SubState === "running";
  const journal = running ? "" : (await manager.container.journal(RUNNER_UNIT)).split("\n").slice(-6).join("\n");
  return { ActiveState, SubState, journal };
}
