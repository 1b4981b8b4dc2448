/**
 * Runs the rendered manager scripts for real (bash, stub commands) through the life of a manager
 * after boot: the graceful stop of the runner's unit, the timers the script installs, and the
 * AWS drain when Auto Scaling terminates the instance. The timers' runs start the installed manager
 * script, as their units do (runInstalled); the tests that only read a first boot share it (firstBoot),
 * and those that go on from one start from a copy of it (copyFrom).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { managerName } from "../../lib/model/names";
import type { RunnerModel } from "../../lib/model/schema";
import { DRAIN_HOOK_NAME } from "../../lib/contract/fleet-contract";
import { gracefulStopSeconds, STOP_MARGIN_SECONDS } from "../../lib/render/graceful-stop";
import { HEALTH_CHECK_INTERVAL, HEALTH_FAILURE_LIMIT } from "../../lib/render/manager-health";

/** Where scripts/manager/cloud/aws.sh counts failed probes: on /run, so every boot starts from zero. */
const HEALTH_FAILURES_FILE = "/run/runner-fleet/health-failures";
import { INSTALLED_MANAGER_SCRIPT } from "../../lib/render/startup-script";
import { scriptFile } from "../../lib/render/boot-files";
import { exampleModel, modelWith } from "../support/models";
import { expectSucceeded, managerPayload, ScriptSandbox, type ScriptRun } from "./support/script-sandbox";
import { firstBoot } from "./support/shared-boots";

const fakeRunnerToken = () => `glrt-t1_${randomBytes(15).toString("base64url")}`;
const fakeAccessToken = () => `ya29.${randomBytes(24).toString("base64url")}`;

const DROP_IN = "etc/systemd/system/gitlab-runner.service.d/10-runner-fleet.conf";

let sandbox: ScriptSandbox;
beforeEach(() => {
  sandbox = new ScriptSandbox();
});
afterEach(() => {
  sandbox.dispose();
});

/** systemd unit file as key -> values (repeated keys keep every value). */
function unitSettings(text: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) settings.set(match[1], [...(settings.get(match[1]) ?? []), match[2]]);
  }
  return settings;
}

const callsOf = (run: ScriptRun, name: string) => run.calls.filter((call) => call.name === name).map((call) => call.args);

describe.each([
  ["cell-1", "Google Cloud"],
  ["cell-2", "AWS"],
] as const)("manager unit and timers (%s, %s)", (cell, _cloud) => {
  const model = exampleModel(cell);

  it.each(model.shards.map((shard) => [shard.name, shard] as const))(
    "stops gitlab-runner with SIGQUIT and waits maximum_timeout plus a margin (%s)",
    (_name, shard) => {
      const { sandbox: booted, first: run } = firstBoot(managerPayload(model, shard, 0));

      expectSucceeded(run);
      const settings = unitSettings(booted.file(DROP_IN));
      expect(settings.get("KillSignal")).toEqual(["SIGQUIT"]);
      const hours = Number(/^(\d+)h$/.exec(shard.maximum_timeout)?.[1]);
      expect(settings.get("TimeoutStopSec")).toEqual([String(hours * 3600 + STOP_MARGIN_SECONDS)]);
      expect(gracefulStopSeconds(shard)).toBeGreaterThanOrEqual(hours * 3600);
    },
  );

  it("installs itself and a token refresh timer that runs it every minute, enabled after the runner started", () => {
    const { sandbox: booted, first: run } = firstBoot(managerPayload(model, model.shards[0], 0));

    expectSucceeded(run);
    expect(booted.file(INSTALLED_MANAGER_SCRIPT.slice(1))).toBe(scriptFile("manager/runner-fleet-manager"));
    expect(booted.file("etc/runner-fleet/manager.env")).toContain(`MANAGER_NAME='${managerName(model, model.shards[0], 0)}'`);
    const service = unitSettings(booted.file("etc/systemd/system/runner-fleet-token-refresh.service"));
    expect(service.get("Type")).toEqual(["oneshot"]);
    expect(service.get("ExecStart")).toEqual([`${INSTALLED_MANAGER_SCRIPT} refresh-token`]);
    const timer = unitSettings(booted.file("etc/systemd/system/runner-fleet-token-refresh.timer"));
    expect(timer.get("OnUnitActiveSec")).toEqual(["1min"]);
    expect(timer.get("WantedBy")).toEqual(["timers.target"]);
    const systemctl = callsOf(run, "systemctl");
    const restart = systemctl.findIndex((args) => args.join(" ") === "restart gitlab-runner");
    const enableTimers = systemctl.findIndex((args) => args[0] === "enable" && args.includes("runner-fleet-token-refresh.timer"));
    expect(restart).toBeGreaterThan(-1);
    expect(enableTimers).toBeGreaterThan(restart);
    expect(systemctl[enableTimers]).toContain("--now");
  });

  it("refuses an unknown command without touching anything", () => {
    const run = sandbox.run(managerPayload(model, model.shards[0], 0), {}, ["reboot-everything"]);

    expect(run.status).toBe(2);
    expect(run.stderr).toContain("unknown command: reboot-everything");
    expect(run.calls.filter((call) => call.name !== "logger")).toEqual([]);
  });
});

describe("AWS drain on termination", () => {
  const model: RunnerModel = exampleModel("cell-2");
  const shard = model.shards[0];
  const script = managerPayload(model, shard, 1);
  // Boot installed the AWS CLI (snap) before any timer runs.
  const withAwsCli = () => sandbox.addStub("aws");

  it("installs a drain timer every 15 s, enabled with the heartbeat before anything that can fail, the other timers once the runner runs", () => {
    const { sandbox: booted, first: run } = firstBoot(script);

    expectSucceeded(run);
    expect(unitSettings(booted.file("etc/systemd/system/runner-fleet-drain.service")).get("ExecStart")).toEqual([`${INSTALLED_MANAGER_SCRIPT} drain`]);
    expect(unitSettings(booted.file("etc/systemd/system/runner-fleet-drain.timer")).get("OnUnitActiveSec")).toEqual(["15s"]);
    const enables = callsOf(run, "systemctl").filter((args) => args[0] === "enable" && args[1] === "--now");
    expect(enables).toEqual([
      ["enable", "--now", "runner-fleet-drain.timer", "runner-fleet-heartbeat.timer"],
      ["enable", "--now", "runner-fleet-token-refresh.timer", "runner-fleet-config-refresh.timer", "runner-fleet-health.timer"],
    ]);
    // The first thing the boot does: before the AWS CLI, the packages or the runner (a failure there still drains).
    const firstOther = run.calls.findIndex((call) => call.name !== "logger" && call.name !== "systemctl");
    const earlyAt = run.calls.findIndex((call) => call.name === "systemctl" && call.args.includes("runner-fleet-drain.timer"));
    expect(earlyAt).toBeGreaterThanOrEqual(0);
    expect(earlyAt).toBeLessThan(firstOther);
  });

  it("does nothing while the instance is in service", () => {
    withAwsCli();
    const run = sandbox.runInstalled(script, { STUB_LIFECYCLE_STATE: "InService" }, ["drain"]);

    expectSucceeded(run);
    expect(callsOf(run, "systemctl")).toEqual([]);
    expect(callsOf(run, "aws")).toEqual([]);
  });

  it("when terminating, stops the runner with SIGQUIT, waits until it exited, then completes its own group's hook", () => {
    withAwsCli();
    const run = sandbox.runInstalled(script, { STUB_LIFECYCLE_STATE: "Terminated", STUB_ACTIVE_CHECKS: "4" }, ["drain"]);

    expectSucceeded(run);
    expect(run.stderr).toContain(`running jobs get up to ${gracefulStopSeconds(shard)}s`);
    const systemctl = callsOf(run, "systemctl");
    // Running (the first look), so stopped.
    expect(systemctl.slice(0, 2)).toEqual([["show", "--property=ActiveState", "--value", "gitlab-runner"], ["stop", "--no-block", "gitlab-runner"]]);
    // Three more "deactivating" answers (jobs still running), then "inactive": the hook is completed only after
    // the runner is gone. `is-active` would have answered "not active" at once for a deactivating unit.
    expect(systemctl.filter((args) => args[0] === "is-active")).toEqual([]);
    expect(systemctl.filter((args) => args.join(" ") === "show --property=ActiveState --value gitlab-runner").length).toBeGreaterThanOrEqual(5);
    expect(readFileSync(join(sandbox.stateDir, "sleeps"), "utf8").trim()).toBe("3");
    expect(run.stderr).toContain("gitlab-runner is inactive; completing the lifecycle hook");
    expect(callsOf(run, "aws")).toEqual([
      [
        "autoscaling", "complete-lifecycle-action", "--region", "eu-west-1", "--lifecycle-action-result", "CONTINUE",
        "--lifecycle-hook-name", DRAIN_HOOK_NAME, "--auto-scaling-group-name", managerName(model, shard, 1),
        "--instance-id", "i-0123456789abcdef0",
      ],
    ]);
    const stopAt = run.calls.findIndex((call) => call.name === "systemctl" && call.args[0] === "stop");
    const completeAt = run.calls.findIndex((call) => call.name === "aws");
    expect(completeAt).toBeGreaterThan(stopAt);
  });

  it("when terminating without a runner (a boot that failed or still runs), completes the hook at once and stops nothing", () => {
    withAwsCli();
    const run = sandbox.runInstalled(script, { STUB_LIFECYCLE_STATE: "Terminated", STUB_FINAL_STATE: "inactive" }, ["drain"]);

    expectSucceeded(run);
    expect(run.stderr).toContain("terminating with gitlab-runner inactive; nothing to drain");
    expect(callsOf(run, "systemctl").filter((args) => args[0] !== "show")).toEqual([]);
    expect(callsOf(run, "aws").map((args) => args.slice(0, 2))).toEqual([["autoscaling", "complete-lifecycle-action"]]);
  });

  it("does nothing when instance metadata cannot be read (the next timer run tries again)", () => {
    withAwsCli();
    const run = sandbox.runInstalled(script, { STUB_LIFECYCLE_STATE: "Terminated", STUB_IMDS_DOWN: "1" }, ["drain"]);

    expectSucceeded(run);
    expect(callsOf(run, "curl")).toHaveLength(1);
    expect(callsOf(run, "systemctl")).toEqual([]);
    expect(callsOf(run, "aws")).toEqual([]);
  });
});

describe("AWS manager health timer", () => {
  const model: RunnerModel = exampleModel("cell-2");
  const shard = model.shards[0];
  const script = managerPayload(model, shard, 0);
  const withAwsCli = () => sandbox.addStub("aws");
  const healthCheck = (env: Record<string, string> = {}) => sandbox.runInstalled(script, { STUB_LIFECYCLE_STATE: "InService", ...env }, ["health"]);
  const setHealthCalls = (run: ScriptRun) => callsOf(run, "aws").filter((args) => args[1] === "set-instance-health");

  it("is installed every 30 s with the other timers", () => {
    const { sandbox: booted, first: run } = firstBoot(script);

    expectSucceeded(run);
    expect(unitSettings(booted.file("etc/systemd/system/runner-fleet-health.service")).get("ExecStart")).toEqual([`${INSTALLED_MANAGER_SCRIPT} health`]);
    expect(unitSettings(booted.file("etc/systemd/system/runner-fleet-health.timer")).get("OnUnitActiveSec")).toEqual([HEALTH_CHECK_INTERVAL]);
    expect(callsOf(run, "systemctl")).toContainEqual(expect.arrayContaining(["enable", "--now", "runner-fleet-health.timer"]));
  });

  it("leaves a runner that answers on :9252 alone, and forgets earlier failures", () => {
    withAwsCli();
    expectSucceeded(healthCheck());
    expect(sandbox.exists(HEALTH_FAILURES_FILE.slice(1))).toBe(true);

    const run = healthCheck({ STUB_METRICS_UP: "1" });

    expectSucceeded(run);
    expect(sandbox.exists(HEALTH_FAILURES_FILE.slice(1))).toBe(false);
    expect(callsOf(run, "aws")).toEqual([]);
  });

  it(`reports the instance Unhealthy to its Auto Scaling group after ${HEALTH_FAILURE_LIMIT} failed probes in a row, not before`, () => {
    withAwsCli();
    for (let probe = 1; probe < HEALTH_FAILURE_LIMIT; probe++) {
      const run = healthCheck();
      expectSucceeded(run);
      expect(run.stderr).toContain(`did not answer on :9252 (${probe}/${HEALTH_FAILURE_LIMIT})`);
      expect(setHealthCalls(run)).toEqual([]);
    }

    const run = healthCheck();

    expectSucceeded(run);
    expect(run.stderr).toContain(`reporting this instance Unhealthy to ${managerName(model, shard, 0)}`);
    expect(setHealthCalls(run)).toEqual([
      ["autoscaling", "set-instance-health", "--region", "eu-west-1", "--instance-id", "i-0123456789abcdef0", "--health-status", "Unhealthy"],
    ]);
    const probes = callsOf(run, "curl").filter((args) => args.some((arg) => arg.includes(":9252/")));
    expect(probes).toEqual([expect.arrayContaining(["--max-time", "http://127.0.0.1:9252/metrics"])]);
  });

  it.each(["Pending", "Warmed:Running", "Standby", "Terminated"])("judges nothing while the instance is %s (starting, parked or draining)", (state) => {
    withAwsCli();
    for (let probe = 0; probe < HEALTH_FAILURE_LIMIT + 1; probe++) {
      const run = healthCheck({ STUB_LIFECYCLE_STATE: state });
      expectSucceeded(run);
      expect(callsOf(run, "aws")).toEqual([]);
    }
    expect(sandbox.exists(HEALTH_FAILURES_FILE.slice(1))).toBe(false);
  });
});

describe.each([
  ["cell-1", "Secret Manager"],
  ["cell-2", "SSM"],
] as const)("token refresh timer (%s, %s)", (cell, _store) => {
  // A runner that keeps its taskscaler across a token change (19.2+): the token is rotated live.
  const model = modelWith(cell, (draft) => {
    draft.shards[0].managers.runner_version = "19.5.0";
  });
  const script = managerPayload(model, model.shards[0], 0);
  const CONFIG = "etc/gitlab-runner/config.toml";
  const runnerEntry = () => (parse(sandbox.file(CONFIG)) as { runners: Array<{ token: string; id: number }> }).runners[0];
  const configToken = () => runnerEntry().token;
  const configStat = () => statSync(join(sandbox.root, CONFIG));
  const accessToken = fakeAccessToken();

  /** This test's sandbox as the VM is after its first boot (booted once per file and copied); the boot's tokens. */
  function boot(): { token: string; accessToken: string } {
    const booted = firstBoot(script);
    expectSucceeded(booted.first);
    sandbox.copyFrom(booted.sandbox);
    return { token: booted.runnerToken, accessToken: booted.accessToken };
  }

  it("fills in the runner ID GitLab gives for the token, asking with the token on stdin only", () => {
    const token = fakeRunnerToken();

    const run = sandbox.run(script, { STUB_RUNNER_TOKEN: token, STUB_ACCESS_TOKEN: accessToken, STUB_RUNNER_ID: "73" });

    expectSucceeded(run);
    expect(runnerEntry()).toMatchObject({ id: 73, token });
    expect(sandbox.state("verify-bodies").trim()).toBe("token=<redacted>");
    expect(run.callLog).not.toContain(token);
    expect(sandbox.file("var/lib/runner-fleet/runner-id")).not.toContain(token);
  });

  it("writes nothing while the stored token is the one in config.toml, and asks GitLab nothing", () => {
    const { token, accessToken } = boot();
    const before = configStat();

    const run = sandbox.runInstalled(script, { STUB_RUNNER_TOKEN: token, STUB_ACCESS_TOKEN: accessToken }, ["refresh-token"]);

    expectSucceeded(run);
    const after = configStat();
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(configToken()).toBe(token);
    expect(run.stderr).toBe("");
    // No restart, no reload: the runner is left alone.
    expect(callsOf(run, "systemctl")).toEqual([]);
    expect(callsOf(run, "gitlab-runner")).toEqual([]);
    expect(callsOf(run, "curl").some((args) => args.some((arg) => arg.endsWith("/runners/verify")))).toBe(false);
  });

  it("replaces config.toml atomically (new file renamed over it), mode 0600, under the running runner when the token was rotated", () => {
    const { token: oldToken, accessToken } = boot();
    const newToken = fakeRunnerToken();
    const before = configStat();

    const run = sandbox.runInstalled(script, { STUB_RUNNER_TOKEN: newToken, STUB_ACCESS_TOKEN: accessToken }, ["refresh-token"]);

    expectSucceeded(run);
    expect(run.stderr).toContain("changed; rewriting config.toml");
    expect(configToken()).toBe(newToken);
    expect(runnerEntry().id).toBe(4242);
    expect(sandbox.file(CONFIG)).not.toContain(oldToken);
    const after = configStat();
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o777).toBe(0o600);
    expect(readdirSync(join(sandbox.root, "etc/gitlab-runner")).filter((name) => name.startsWith(".config.toml."))).toEqual([]);
    expect(callsOf(run, "systemctl")).toEqual([]);
    for (const secret of [oldToken, newToken, accessToken]) {
      expect(run.callLog).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
      expect(sandbox.state("logger")).not.toContain(secret);
    }
  });

  it("keeps config.toml and fails the timer run when the store answers with something that is not a token", () => {
    const { token, accessToken } = boot();

    const run = sandbox.runInstalled(script, { STUB_RUNNER_TOKEN: token, STUB_ACCESS_TOKEN: accessToken, STUB_STORE_VALUE: 'x" = evil' }, ["refresh-token"]);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain("config.toml is unchanged");
    expect(configToken()).toBe(token);
  });
});

describe("token refresh on a runner before 19.2 (taskscaler keyed by token)", () => {
  const model = modelWith("cell-2", (draft) => {
    draft.shards[0].managers.runner_version = "19.1.3";
  });
  const script = managerPayload(model, model.shards[0], 0);

  it("drains gitlab-runner before writing the new token, then starts it again", () => {
    const oldToken = fakeRunnerToken();
    const newToken = fakeRunnerToken();
    expectSucceeded(sandbox.run(script, { STUB_RUNNER_TOKEN: oldToken }));
    // The boot's own looks at the unit counted against the "deactivating" answers; the refresh gets its own three.
    rmSync(join(sandbox.stateDir, "active-state"), { force: true });

    const run = sandbox.runInstalled(script, { STUB_RUNNER_TOKEN: newToken, STUB_ACTIVE_CHECKS: "3", STUB_FINAL_STATE: "inactive" }, ["refresh-token"]);

    expectSucceeded(run);
    expect(run.stderr).toContain("would drop its workers on a live change: draining it first");
    const systemctl = callsOf(run, "systemctl").map((args) => args.join(" "));
    const stopAt = systemctl.indexOf("stop gitlab-runner");
    const restartAt = systemctl.indexOf("restart gitlab-runner");
    expect(stopAt).toBeGreaterThan(-1);
    expect(restartAt).toBeGreaterThan(stopAt);
    // Waited through "deactivating" until the unit was inactive, and only then restarted.
    expect(systemctl.slice(stopAt, restartAt).filter((call) => call.startsWith("show")).length).toBeGreaterThanOrEqual(3);
    expect((parse(sandbox.file("etc/gitlab-runner/config.toml")) as { runners: Array<{ token: string }> }).runners[0].token).toBe(newToken);
  });
});

describe("Google Cloud drain before replacement", () => {
  const model: RunnerModel = exampleModel("cell-1");
  const shard = model.shards[0];
  const script = managerPayload(model, shard, 1);
  const accessToken = fakeAccessToken();
  const env = (groupTemplate: string) => ({
    STUB_ACCESS_TOKEN: accessToken,
    STUB_OWN_TEMPLATE: "cell-1-small-amd64-mgr-1-20260101",
    STUB_GROUP_TEMPLATE: groupTemplate,
    STUB_INSTANCE_NAME: "cell-1-small-amd64-mgr-1-x7k2",
  });

  it("installs a drain timer every 30 s whose service may run as long as the drain takes", () => {
    const { sandbox: booted, first: run } = firstBoot(script);

    expectSucceeded(run);
    const service = unitSettings(booted.file("etc/systemd/system/runner-fleet-drain.service"));
    expect(service.get("ExecStart")).toEqual([`${INSTALLED_MANAGER_SCRIPT} drain`]);
    expect(service.get("TimeoutStartSec")).toEqual(["infinity"]);
    expect(unitSettings(booted.file("etc/systemd/system/runner-fleet-drain.timer")).get("OnUnitActiveSec")).toEqual(["30s"]);
    expect(callsOf(run, "systemctl")).toContainEqual(["enable", "--now", "runner-fleet-token-refresh.timer", "runner-fleet-config-refresh.timer", "runner-fleet-drain.timer"]);
  });

  it("does nothing while the group's template is the one the VM was created from", () => {
    const run = sandbox.runInstalled(script, env("cell-1-small-amd64-mgr-1-20260101"), ["drain"]);

    expectSucceeded(run);
    expect(callsOf(run, "systemctl")).toEqual([]);
    expect(sandbox.state("recreate")).toBe("");
  });

  it("when the group has a new template, stops gitlab-runner (SIGQUIT, waiting) and only then has its own group recreate it", () => {
    const run = sandbox.runInstalled(script, env("cell-1-small-amd64-mgr-1-20261122"), ["drain"]);

    expectSucceeded(run);
    expect(run.stderr).toContain(`running jobs get up to ${gracefulStopSeconds(shard)}s`);
    expect(callsOf(run, "systemctl")[0]).toEqual(["stop", "gitlab-runner"]);
    expect(callsOf(run, "systemctl").slice(1).every((args) => args[0] === "show")).toBe(true);
    expect(run.stderr).toContain("gitlab-runner is inactive; asking");
    const stopAt = run.calls.findIndex((call) => call.name === "systemctl");
    const recreateAt = run.calls.findIndex((call) => call.name === "curl" && call.args.some((arg) => arg.endsWith("/recreateInstances")));
    expect(recreateAt).toBeGreaterThan(stopAt);
    if (model.cloud.provider !== "google") throw new Error("cell-1 is the Google Cloud example");
    const zone = model.cloud.zones[1 % model.cloud.zones.length];
    expect(sandbox.state("recreate").trim()).toBe(
      `https://compute.googleapis.com/compute/v1/projects/${model.cloud.project}/zones/${zone}/instanceGroupManagers/${managerName(model, shard, 1)}/recreateInstances ` +
        `{"instances": ["zones/${zone}/instances/cell-1-small-amd64-mgr-1-x7k2"]}`,
    );
    expect(run.callLog).not.toContain(accessToken);
  });

  it("does nothing on a VM no group created (no instance-template metadata)", () => {
    const run = sandbox.runInstalled(script, { ...env("other"), STUB_OWN_TEMPLATE: "" }, ["drain"]);

    expectSucceeded(run);
    expect(callsOf(run, "systemctl")).toEqual([]);
    expect(callsOf(run, "curl")).toHaveLength(1);
  });
});

describe("token refresh while GitLab cannot confirm the new token", () => {
  const model = exampleModel("cell-2");
  const script = managerPayload(model, model.shards[0], 0);

  it("gives up after three attempts, keeps config.toml and fails the run (the next timer run tries again)", () => {
    // The VM after its first boot (booted once per file and copied).
    const booted = firstBoot(script);
    expectSucceeded(booted.first);
    sandbox.copyFrom(booted.sandbox);
    const before = sandbox.file("etc/gitlab-runner/config.toml");

    const run = sandbox.runInstalled(script, { STUB_RUNNER_TOKEN: fakeRunnerToken(), STUB_VERIFY: "down" }, ["refresh-token"]);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain("after 3 attempts");
    expect(run.stderr).toContain("config.toml is unchanged");
    expect(sandbox.file("etc/gitlab-runner/config.toml")).toBe(before);
    expect(callsOf(run, "curl").filter((args) => args.some((arg) => arg.endsWith("/runners/verify")))).toHaveLength(3);
  });
});

describe("AWS boot: one manager per slot", () => {
  const model: RunnerModel = exampleModel("cell-2");
  const shard = model.shards[0];
  const script = managerPayload(model, shard, 0);
  const sibling = "i-0aaaaaaaaaaaaaaa1\\tTerminating:Wait";

  it("asks its own group for terminating siblings after the token, before config.toml gets the credentials, and waits while there is one", () => {
    const run = sandbox.run(script, { STUB_RUNNER_TOKEN: fakeRunnerToken(), STUB_TERMINATING_SIBLINGS: sibling, STUB_SIBLING_LOOKS: "2" });

    expectSucceeded(run);
    const describes = run.calls.flatMap((call, index) => (call.name === "aws" && call.args[1] === "describe-auto-scaling-groups" ? [index] : []));
    expect(describes).toHaveLength(3);
    expect(run.calls[describes[0]].args).toEqual([
      "autoscaling", "describe-auto-scaling-groups", "--region", "eu-west-1", "--auto-scaling-group-names", managerName(model, shard, 0),
      "--query", "AutoScalingGroups[].Instances[?InstanceId != 'i-0123456789abcdef0' && starts_with(LifecycleState, 'Terminating')][].[InstanceId, LifecycleState]",
      "--output", "text",
    ]);
    const tokenRead = run.calls.findIndex((call) => call.name === "aws" && call.args[0] === "ssm");
    const restart = run.calls.findIndex((call) => call.name === "systemctl" && call.args[0] === "restart");
    expect(tokenRead).toBeLessThan(describes[0]);
    expect(restart).toBeGreaterThan(describes[2]);
    expect(run.stderr).toContain(`waiting for i-0aaaaaaaaaaaaaaa1 Terminating:Wait of ${managerName(model, shard, 0)} to finish draining`);
    expect(readFileSync(join(sandbox.stateDir, "sleeps"), "utf8").trim()).toBe("2");
  });

  it("fails when the slot is still taken at its bound, without config.toml", () => {
    const run = sandbox.run(script, { STUB_RUNNER_TOKEN: fakeRunnerToken(), STUB_TERMINATING_SIBLINGS: sibling, STUB_SIBLING_LOOKS: "100000", RUNNER_FLEET_SLOT_WAIT_SECONDS: "1" });

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`the slot ${managerName(model, shard, 0)} was not free after 1s; giving up`);
    expect(sandbox.exists("etc/gitlab-runner/config.toml")).toBe(false);
    expect(run.calls.some((call) => call.name === "aws" && call.args[1] === "set-instance-health")).toBe(true);
  });
});

describe("boot after a reboot: gitlab-runner restarted only when what it runs with changed", () => {
  const model: RunnerModel = exampleModel("cell-2");
  const script = managerPayload(model, model.shards[0], 0);
  const restarts = (run: ScriptRun) => callsOf(run, "systemctl").filter((args) => args[0] === "restart");

  it("keeps a runner that systemd started with the same configuration, and restarts one started with another", () => {
    const token = fakeRunnerToken();
    expectSucceeded(sandbox.run(script, { STUB_RUNNER_TOKEN: token }));
    // systemd starts the enabled unit at boot: its ExecStartPre records what it starts with.
    expectSucceeded(sandbox.runInstalled(script, {}, ["record-start"]));
    expect(statSync(join(sandbox.root, "run/runner-fleet/runner-started-with")).mode & 0o777).toBe(0o600);

    const same = sandbox.run(script, { STUB_RUNNER_TOKEN: token, STUB_FINAL_STATE: "active" });
    expectSucceeded(same);
    expect(restarts(same)).toEqual([]);
    expect(same.stderr).toContain("gitlab-runner already runs with this configuration; not restarting it");

    // The unit changed on disk (a new drop-in): the running process still has the old one.
    const changed = sandbox.run(script, { STUB_RUNNER_TOKEN: token, STUB_FINAL_STATE: "active", STUB_UNIT_TEXT: "[Service]\nTimeoutStopSec=999" });
    expectSucceeded(changed);
    expect(restarts(changed)).toEqual([["restart", "gitlab-runner"]]);
  });

  it("restarts a running runner that no start recorded (the package started it before config.toml existed)", () => {
    expectSucceeded(sandbox.run(script, { STUB_RUNNER_TOKEN: fakeRunnerToken() }));
    rmSync(join(sandbox.root, "run/runner-fleet"), { recursive: true, force: true });

    const run = sandbox.run(script, { STUB_RUNNER_TOKEN: fakeRunnerToken(), STUB_FINAL_STATE: "active" });

    expectSucceeded(run);
    expect(restarts(run)).toEqual([["restart", "gitlab-runner"]]);
  });
});
