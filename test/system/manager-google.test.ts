/**
 * The Google example (models/cell-1.yaml, its first shard) booted as Compute Engine would boot it:
 * the manager's startup-script run as root in real systemd, with gitlab-runner, its plugin, the
 * metadata server, Secret Manager and the Compute API stubbed (support/stubs). Then its timers act
 * on their own schedule: token refresh, and the drain before the group recreates the VM.
 */
import { exampleModel } from "../support/models";
import {
  bootPayload,
  FIRST_TOKEN,
  RUNNER_ID,
  googleGroupPath,
  googleGroupTemplate,
  googleInstanceName,
  managerContainer,
  type BootResult,
  type Manager,
} from "./support/manager-boot";
import {
  CONFIG_FILE,
  DRAIN_TIMER,
  expectedStopSeconds,
  pluginEvents,
  RUNNER_UNIT,
  runnerExits,
  runnerRunning,
  runnerServiceSettings,
  stateEnteredAt,
  timerHasFired,
  timerIntervalSeconds,
  timespanSeconds,
  TOKEN_REFRESH_TIMER,
  verifyUnits,
  waitForRunnerSettled,
} from "./support/manager-checks";
import { describeTokenRotation } from "./support/token-rotation-checks";
import { zoneOfSlot } from "../../lib/model/names";

const NEW_TEMPLATE = "tmpl-next-wave";
/** How long the stub's running jobs take after SIGQUIT: long enough to see the drain wait. */
const JOB_SECONDS = 6;

describe("Google manager of cell-1 booted in real systemd", () => {
  const model = exampleModel("cell-1");
  const shard = model.shards[0];
  let manager: Manager;
  let boot: BootResult;

  beforeAll(async () => {
    manager = await managerContainer("google", model, shard);
    boot = await bootPayload(manager);
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("boots: the startup-script exits 0", () => {
    expect({ code: boot.code, journal: boot.code === 0 ? "" : boot.journal }).toEqual({ code: 0, journal: "" });
  });

  it("runs gitlab-runner.service with the rendered drop-in: SIGQUIT, the shard's stop timeout, the plugin path", async () => {
    expect(await runnerRunning(manager)).toEqual({ ActiveState: "active", SubState: "running", journal: "" });
    const settings = await runnerServiceSettings(manager);
    expect(settings).toMatchObject({ UnitFileState: "enabled", KillSignal: "3" });
    expect(timespanSeconds(settings.TimeoutStopUSec)).toBe(expectedStopSeconds(manager));
    expect(settings.Environment.split(" ")).toEqual(expect.arrayContaining(["HOME=/root", "FLEETING_PLUGIN_PATH=/root/.config/fleeting/plugins"]));
    expect(settings.DropInPaths).toMatch(/^\/etc\/systemd\/system\/gitlab-runner\.service\.d\/\S+\.conf/);
  });

  it("passes systemd-analyze verify for gitlab-runner.service with its drop-in and for every timer it installed", async () => {
    const verify = await verifyUnits(manager, [RUNNER_UNIT, TOKEN_REFRESH_TIMER, DRAIN_TIMER, TOKEN_REFRESH_TIMER.replace(".timer", ".service"), DRAIN_TIMER.replace(".timer", ".service")]);
    expect(verify).toEqual({ code: 0, output: "" });
  });

  it("reads the token from Secret Manager with the VM's access token, never on a command line", () => {
    const secretReads = manager.stubs.curlCalls("GET", "secretmanager.googleapis.com");
    expect(secretReads.length).toBeGreaterThan(0);
    expect(secretReads[0].args).toContain("header=Authorization: Bearer ya29.stub-access-token");
    const commandLines = manager.stubs.calls().flatMap((call) => call.args);
    expect(commandLines.filter((arg) => arg.includes(FIRST_TOKEN))).toEqual([]);
  });

  it("writes config.toml mode 0600, owned by root, with the stored token and the runner ID GitLab confirms", async () => {
    const stat = await manager.container.exec(["stat", "-c", "%a %U", CONFIG_FILE]);
    expect(stat.stdout.trim()).toBe("600 root");
    const config = await manager.container.readFile(CONFIG_FILE);
    expect(config).toContain(`token = "${FIRST_TOKEN}"`);
    expect(config).not.toContain("__RUNNER_TOKEN__");
    expect(config).toMatch(new RegExp(`^\\s*id = ${RUNNER_ID}$`, "m"));
  });

  it("configures and restarts the Ops Agent, and starts the fleeting plugin inside gitlab-runner.service's cgroup", async () => {
    expect(await manager.container.activeState("google-cloud-ops-agent.service")).toBe("active");
    const started = manager.stubs.callsOf("fleeting-plugin", "start");
    expect(started.length).toBeGreaterThan(0);
    const cgroup = await manager.container.exec(["cat", `/proc/${started.at(-1)!.pid}/cgroup`]);
    expect(cgroup.stdout).toMatch(/\/system\.slice\/gitlab-runner\.service$/m);
  });

  it("installs the token-refresh and drain timers, enabled and active", async () => {
    for (const timer of [TOKEN_REFRESH_TIMER, DRAIN_TIMER]) {
      expect({ timer, ...(await manager.container.unitProperties(timer, ["UnitFileState", "ActiveState"])) }).toEqual({ timer, UnitFileState: "enabled", ActiveState: "active" });
    }
  });

  it("leaves the VM alone while its group still has the template it was created from", async () => {
    await manager.container.waitFor("the drain timer to fire once", async () => timerHasFired(manager, DRAIN_TIMER), ((await timerIntervalSeconds(manager, DRAIN_TIMER)) + 15) * 1000, 1000);
    await manager.container.waitFor("the drain run to finish", async () => (await manager.container.activeState(DRAIN_TIMER.replace(".timer", ".service"))) !== "activating", 10_000);
    expect(manager.stubs.curlCalls("GET", `compute/v1/${googleGroupPath(manager)}`).length).toBeGreaterThan(0);
    expect(manager.stubs.curlCalls("POST", "recreateInstances")).toEqual([]);
    expect(await manager.container.activeState(RUNNER_UNIT)).toBe("active");
  });

  describeTokenRotation("Secret Manager", () => manager, shard.managers.runner_version);

  describe("when the manager's group has a new instance template", () => {
    let recreateAt: number;

    beforeAll(async () => {
      await waitForRunnerSettled(manager);
      manager.stubs.jobSeconds(JOB_SECONDS);
      googleGroupTemplate(manager, NEW_TEMPLATE);
      const timeoutMs = ((await timerIntervalSeconds(manager, DRAIN_TIMER)) + JOB_SECONDS + 30) * 1000;
      const recreate = await manager.container.waitFor("recreateInstances", async () => manager.stubs.curlCalls("POST", "recreateInstances")[0], timeoutMs);
      recreateAt = recreate.at;
    });

    it("stops gitlab-runner gracefully: SIGQUIT, running jobs finish, no forceful stop", () => {
      const runnerEvents = manager.stubs.callsOf("gitlab-runner").map((call) => [call.event, ...call.args].join(" "));
      expect(runnerEvents).toEqual(expect.arrayContaining(["signal QUIT", "jobs-finished", "exit 0"]));
      expect(runnerEvents.filter((event) => event.startsWith("forceful-shutdown"))).toEqual([]);
    });

    it("asks the group to recreate this VM only after gitlab-runner is inactive", async () => {
      expect(await manager.container.activeState(RUNNER_UNIT)).toBe("inactive");
      const inactiveAt = await stateEnteredAt(manager, RUNNER_UNIT, "InactiveEnterTimestamp");
      expect(runnerExits(manager).at(-1)!.at).toBeLessThanOrEqual(recreateAt);
      expect(inactiveAt).toBeLessThanOrEqual(recreateAt);
      const recreate = manager.stubs.curlCalls("POST", "recreateInstances");
      expect(recreate).toHaveLength(1);
      expect(recreate[0].args[1]).toBe(`https://compute.googleapis.com/compute/v1/${googleGroupPath(manager)}/recreateInstances`);
      const body = JSON.parse(recreate[0].args.find((arg) => arg.startsWith("data="))!.slice("data=".length));
      const zone = model.cloud.provider === "google" ? zoneOfSlot(model.cloud.zones, 0) : "";
      expect(body).toEqual({ instances: [`zones/${zone}/instances/${googleInstanceName(manager)}`] });
    });

    it("never sends the fleeting plugin SIGQUIT: the runner shuts it down itself", () => {
      const signals = [...pluginEvents(manager).values()].flat().filter((call) => call.event === "signal");
      expect(signals.map((call) => `${call.pid} ${call.args.join(" ")}`)).toEqual([]);
      expect(manager.stubs.callsOf("gitlab-runner", "plugin-exited-unexpectedly")).toEqual([]);
    });
  });
});
