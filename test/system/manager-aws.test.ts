/**
 * The AWS example (models/cell-2.yaml, its spot shard) booted as EC2 would boot it: the manager's
 * user data run as root in real systemd, with gitlab-runner, its plugin, the AWS CLI and IMDSv2
 * stubbed (support/stubs). Then its timers act on their own schedule: token refresh and the
 * termination drain.
 */
import { exampleModel } from "../support/models";
import { awsLifecycleState, bootPayload, FIRST_TOKEN, RUNNER_ID, INSTANCE_ID, managerContainer, rebootHook, type BootResult, type Manager } from "./support/manager-boot";
import {
  CONFIG_FILE,
  DRAIN_TIMER,
  expectedStopSeconds,
  HEALTH_TIMER,
  HEARTBEAT_TIMER,
  pluginEvents,
  RUNNER_UNIT,
  runnerExits,
  runnerRunning,
  runnerServiceSettings,
  stateEnteredAt,
  timerIntervalSeconds,
  timespanSeconds,
  TOKEN_REFRESH_TIMER,
  verifyUnits,
  waitForRunnerSettled,
} from "./support/manager-checks";
import { tokenFingerprint } from "./support/stub-state";
import { describeTokenRotation } from "./support/token-rotation-checks";
import { DRAIN_HOOK_NAME } from "../../lib/contract/fleet-contract";
import { managerName } from "../../lib/model/names";

/** How long the stub's running jobs take after SIGQUIT: long enough to see the drain wait. */
const JOB_SECONDS = 8;

describe("AWS manager of cell-2 (spot shard) booted in real systemd", () => {
  const model = exampleModel("cell-2");
  const shard = model.shards.find((candidate) => candidate.workers.spot)!;
  let manager: Manager;
  let boot: BootResult;

  beforeAll(async () => {
    manager = await managerContainer("aws", model, shard);
    boot = await bootPayload(manager);
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("is a spot shard", () => {
    expect(shard.workers.spot).toBe(true);
  });

  it("boots: the user data exits 0", () => {
    expect({ code: boot.code, journal: boot.code === 0 ? "" : boot.journal }).toEqual({ code: 0, journal: "" });
  });

  it("installs the pinned gitlab-runner from GitLab's apt repository and holds it", () => {
    const installs = manager.stubs.callsOf("apt-get", "call").filter((call) => call.args.includes("install"));
    expect(installs.flatMap((call) => call.args)).toEqual(expect.arrayContaining([`gitlab-runner=${shard.managers.runner_version}-1`, `gitlab-runner-helper-images=${shard.managers.runner_version}-1`]));
    // The repository from its pinned key, not from packagecloud's install script.
    expect(manager.stubs.callsOf("gpg", "call").some((call) => call.args.includes("--export") && call.args.includes("F6403F6544A38863DAA0B6E03F01618A51312F3F"))).toBe(true);
    expect(manager.stubs.callsOf("apt-mark", "call").map((call) => call.args)).toContainEqual(["hold", "gitlab-runner", "gitlab-runner-helper-images"]);
  });

  it("runs gitlab-runner.service with the rendered drop-in: SIGQUIT, the shard's stop timeout, the plugin path and region", async () => {
    expect(await runnerRunning(manager)).toEqual({ ActiveState: "active", SubState: "running", journal: "" });
    const settings = await runnerServiceSettings(manager);
    expect(settings).toMatchObject({ UnitFileState: "enabled", KillSignal: "3" });
    expect(timespanSeconds(settings.TimeoutStopUSec)).toBe(expectedStopSeconds(manager));
    expect(settings.Environment.split(" ")).toEqual(expect.arrayContaining(["HOME=/root", "FLEETING_PLUGIN_PATH=/root/.config/fleeting/plugins", `AWS_REGION=${model.cloud.provider === "aws" ? model.cloud.region : ""}`]));
    expect(settings.DropInPaths).toMatch(/^\/etc\/systemd\/system\/gitlab-runner\.service\.d\/\S+\.conf/);
    const run = manager.stubs.callsOf("gitlab-runner", "run").at(-1)!;
    expect(run.args).toEqual(["--config", CONFIG_FILE, "--working-directory", "/home/gitlab-runner", "--service", "gitlab-runner", "--user", "gitlab-runner"]);
  });

  it("passes systemd-analyze verify for gitlab-runner.service with its drop-in and for every timer it installed", async () => {
    const timers = [TOKEN_REFRESH_TIMER, DRAIN_TIMER, HEALTH_TIMER, HEARTBEAT_TIMER];
    const verify = await verifyUnits(manager, [RUNNER_UNIT, ...timers, ...timers.map((timer) => timer.replace(".timer", ".service"))]);
    expect(verify).toEqual({ code: 0, output: "" });
  });

  it("writes config.toml mode 0600, owned by root, with the token from SSM and the runner ID GitLab confirms", async () => {
    const stat = await manager.container.exec(["stat", "-c", "%a %U", CONFIG_FILE]);
    expect(stat.stdout.trim()).toBe("600 root");
    const config = await manager.container.readFile(CONFIG_FILE);
    expect(config).toContain(`token = "${FIRST_TOKEN}"`);
    expect(config).not.toContain("__RUNNER_TOKEN__");
    expect(config).toMatch(new RegExp(`^\\s*id = ${RUNNER_ID}$`, "m"));
    expect(manager.stubs.callsOf("gitlab-runner", "runner-entry").at(-1)!.args).toContain(`token=${tokenFingerprint(FIRST_TOKEN)}`);
  });

  it("starts the fleeting plugin as a child inside gitlab-runner.service's cgroup", async () => {
    const started = manager.stubs.callsOf("fleeting-plugin", "start");
    expect(started.length).toBeGreaterThan(0);
    const cgroup = await manager.container.exec(["cat", `/proc/${started.at(-1)!.pid}/cgroup`]);
    expect(cgroup.stdout).toMatch(/\/system\.slice\/gitlab-runner\.service$/m);
  });

  it("installs the token-refresh, drain, health and heartbeat timers, enabled and active", async () => {
    for (const timer of [TOKEN_REFRESH_TIMER, DRAIN_TIMER, HEALTH_TIMER, HEARTBEAT_TIMER]) {
      expect({ timer, ...(await manager.container.unitProperties(timer, ["UnitFileState", "ActiveState"])) }).toEqual({ timer, UnitFileState: "enabled", ActiveState: "active" });
    }
  });

  describeTokenRotation("SSM", () => manager, shard.managers.runner_version);

  /**
   * A reboot as the runner sees it: its process ends with the machine (nothing runs: a clean stop), /run is
   * a new tmpfs, systemd starts the enabled gitlab-runner.service with multi-user.target (its [Install]
   * WantedBy), and only then does cloud-init run the per-boot hook. `stale` leaves a config.toml on disk that
   * differs from what the boot renders (a change made while the machine was down).
   */
  async function rebootMachine(stale: boolean): Promise<{ since: number; mainPid: string; boot: BootResult }> {
    await waitForRunnerSettled(manager);
    await manager.container.exec(["systemctl", "stop", RUNNER_UNIT]);
    await manager.container.exec(["rm", "-rf", "/run/runner-fleet"]);
    if (stale) await manager.container.bash(`printf '# left from before the reboot\\n' >>${CONFIG_FILE}`);
    await manager.container.exec(["systemctl", "start", "multi-user.target"]);
    // A whole start (plugin included) on a loaded machine: more than a settle after a config change.
    await waitForRunnerSettled(manager, 45_000);
    const { MainPID: mainPid } = await manager.container.unitProperties(RUNNER_UNIT, ["MainPID"]);
    const since = Date.now();
    return { since, mainPid, boot: await rebootHook(manager) };
  }
  const runnerEventsSince = (since: number) =>
    manager.stubs.callsOf("gitlab-runner").filter((call) => call.at >= since && (call.event === "signal" || call.event === "run")).map((call) => [call.event, ...call.args.slice(0, 1)].join(" "));

  describe("after a reboot with the same configuration", () => {
    let reboot: { since: number; mainPid: string; boot: BootResult };

    beforeAll(async () => {
      reboot = await rebootMachine(false);
    });

    it("systemd started the enabled gitlab-runner before the boot ran, and the boot exits 0", () => {
      expect(Number(reboot.mainPid)).toBeGreaterThan(0);
      expect({ code: reboot.boot.code, journal: reboot.boot.code === 0 ? "" : reboot.boot.journal }).toEqual({ code: 0, journal: "" });
    });

    it("does not restart the running gitlab-runner: same process, no SIGQUIT, so it keeps taking jobs", async () => {
      expect(runnerEventsSince(reboot.since)).toEqual([]);
      expect((await manager.container.unitProperties(RUNNER_UNIT, ["MainPID", "ActiveState"]))).toEqual({ MainPID: reboot.mainPid, ActiveState: "active" });
      expect(reboot.boot.journal).toContain("gitlab-runner already runs with this configuration; not restarting it");
    });
  });

  describe("after a reboot with a configuration that changed while the machine was down", () => {
    let reboot: { since: number; mainPid: string; boot: BootResult };

    beforeAll(async () => {
      reboot = await rebootMachine(true);
      await waitForRunnerSettled(manager, 45_000);
    });

    it("restarts gitlab-runner once (SIGQUIT, then a new process) and exits 0", async () => {
      expect(reboot.boot.code).toBe(0);
      expect(runnerEventsSince(reboot.since)).toEqual(["signal QUIT", "run --config"]);
      expect((await manager.container.unitProperties(RUNNER_UNIT, ["MainPID"])).MainPID).not.toBe(reboot.mainPid);
      expect(await manager.container.readFile(CONFIG_FILE)).not.toContain("left from before the reboot");
    });
  });

  describe("when Auto Scaling terminates the instance (target-lifecycle-state Terminated)", () => {
    let completedAt: number;

    beforeAll(async () => {
      await waitForRunnerSettled(manager);
      manager.stubs.jobSeconds(JOB_SECONDS);
      awsLifecycleState(manager, "Terminated");
      const timeoutMs = ((await timerIntervalSeconds(manager, DRAIN_TIMER)) + JOB_SECONDS + 30) * 1000;
      const complete = await manager.container.waitFor("complete-lifecycle-action", async () => manager.stubs.awsCalls("autoscaling", "complete-lifecycle-action")[0], timeoutMs);
      completedAt = complete.at;
      await manager.container.waitFor("gitlab-runner to stop", async () => (await manager.container.activeState(RUNNER_UNIT)) === "inactive", (JOB_SECONDS + 10) * 1000);
    });

    it("stops gitlab-runner gracefully: SIGQUIT, running jobs finish, no forceful stop", () => {
      const runnerEvents = manager.stubs.callsOf("gitlab-runner").map((call) => [call.event, ...call.args].join(" "));
      expect(runnerEvents).toEqual(expect.arrayContaining(["signal QUIT", "jobs-finished", "exit 0"]));
      expect(runnerEvents.filter((event) => event.startsWith("forceful-shutdown"))).toEqual([]);
    });

    it("completes the lifecycle hook (CONTINUE) only after gitlab-runner is inactive", async () => {
      const inactiveAt = await stateEnteredAt(manager, RUNNER_UNIT, "InactiveEnterTimestamp");
      const complete = manager.stubs.awsCalls("autoscaling", "complete-lifecycle-action");
      expect(complete).toHaveLength(1);
      expect(complete[0].args).toEqual(
        expect.arrayContaining(["--lifecycle-action-result", "CONTINUE", "--lifecycle-hook-name", DRAIN_HOOK_NAME, "--auto-scaling-group-name", managerName(model, shard, 0), "--instance-id", INSTANCE_ID]),
      );
      expect(runnerExits(manager).at(-1)!.at).toBeLessThanOrEqual(completedAt);
      expect(inactiveAt).toBeLessThanOrEqual(completedAt);
    });

    it("never sends the fleeting plugin SIGQUIT: the runner shuts it down itself", () => {
      const signals = [...pluginEvents(manager).values()].flat().filter((call) => call.event === "signal");
      expect(signals.map((call) => `${call.pid} ${call.args.join(" ")}`)).toEqual([]);
      expect(manager.stubs.callsOf("gitlab-runner", "plugin-exited-unexpectedly")).toEqual([]);
    });
  });
});
