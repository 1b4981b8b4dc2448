/**
 * One manager per slot on AWS. A replacement boots while its slot's previous manager may still be held in
 * Terminating:Wait by the drain hook ("terminate and launch" provisions the new instance at the same time, and
 * MaxHealthyPercentage counts only instances in service or pending: EC2 Auto Scaling user guide, instance
 * maintenance policies). A gitlab-runner that started then would remove the draining manager's workers with
 * their jobs (gitlab-runner executors/internal/autoscaler/provider.go, instanceReadyUp: "no data on
 * pre-existing instance so removing for safety"). The AWS CLI stand-in (support/stubs/bin/aws) answers
 * DescribeAutoScalingGroups from the group the test stores, in the CLI's documented output shape.
 */
import { exampleModel } from "../support/models";
import { awsShardMetricNamespace, BOOT_FAILURES_METRIC, DRAIN_HOOK_NAME } from "../../lib/contract/fleet-contract";
import { managerName } from "../../lib/model/names";
import { bootPayload, INSTANCE_ID, managerContainer, type BootResult, type Manager } from "./support/manager-boot";
import { CONFIG_FILE, RUNNER_UNIT } from "./support/manager-checks";

const OLD_INSTANCE = "i-0aaaaaaaaaaaaaaa1";

describe("AWS manager whose slot's previous manager is still draining (Terminating:Wait)", () => {
  const model = exampleModel("cell-2");
  const shard = model.shards[0];
  const group = managerName(model, shard, 0);
  let manager: Manager;
  let boot: BootResult;
  /** What the new manager had done while the old one still drained. */
  let whileDraining: { describes: number; taskscalers: number; plugins: number; config: string };
  let releasedAt: number;

  beforeAll(async () => {
    manager = await managerContainer("slot", model, shard);
    manager.stubs.autoscalingGroup(group, [
      { id: OLD_INSTANCE, state: "Terminating:Wait" },
      { id: INSTANCE_ID, state: "InService" },
    ]);
    const booting = bootPayload(manager, { RUNNER_FLEET_SLOT_POLL_SECONDS: "1" });
    // Three looks at the group: the boot got to the guard and stayed there.
    await manager.container.waitFor("the boot to look at its group three times", async () => manager.stubs.awsCalls("autoscaling", "describe-auto-scaling-groups").length >= 3, 60_000);
    const config = await manager.container.exec(["cat", CONFIG_FILE], { check: false });
    whileDraining = {
      describes: manager.stubs.awsCalls("autoscaling", "describe-auto-scaling-groups").length,
      taskscalers: manager.stubs.callsOf("gitlab-runner", "runner-entry").length,
      plugins: manager.stubs.callsOf("fleeting-plugin", "start").length,
      config: config.stdout,
    };
    // The old manager completes its hook and terminates: the group no longer lists it.
    releasedAt = Date.now();
    manager.stubs.autoscalingGroup(group, [{ id: INSTANCE_ID, state: "InService" }]);
    boot = await booting;
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("asks its own group, in its region, through the AWS CLI", () => {
    const describe = manager.stubs.awsCalls("autoscaling", "describe-auto-scaling-groups")[0];
    expect(describe.args).toEqual(expect.arrayContaining(["--region", model.cloud.provider === "aws" ? model.cloud.region : "", "--auto-scaling-group-names", group]));
  });

  it("starts no taskscaler and no plugin, and writes no credentials, while the old manager drains", () => {
    expect(whileDraining.describes).toBeGreaterThanOrEqual(3);
    expect({ taskscalers: whileDraining.taskscalers, plugins: whileDraining.plugins, token: whileDraining.config.includes("token =") }).toEqual({ taskscalers: 0, plugins: 0, token: false });
  });

  it("boots once the old manager is gone, and only then does gitlab-runner load its runner", async () => {
    expect({ code: boot.code, journal: boot.code === 0 ? "" : boot.journal }).toEqual({ code: 0, journal: "" });
    expect(boot.journal).toContain(`waiting for ${OLD_INSTANCE} Terminating:Wait of ${group} to finish draining`);
    const entries = manager.stubs.callsOf("gitlab-runner", "runner-entry");
    expect(entries.length).toBeGreaterThan(0);
    expect(entries[0].at).toBeGreaterThanOrEqual(releasedAt);
    expect(await manager.container.activeState(RUNNER_UNIT)).toBe("active");
  });
});

describe("AWS manager whose slot stays taken past its bound", () => {
  const model = exampleModel("cell-2");
  const shard = model.shards[0];
  const group = managerName(model, shard, 0);
  let manager: Manager;
  let boot: BootResult;
  let startedAt: number;
  let endedAt: number;

  beforeAll(async () => {
    manager = await managerContainer("slotbound", model, shard);
    manager.stubs.autoscalingGroup(group, [
      { id: OLD_INSTANCE, state: "Terminating:Wait" },
      { id: INSTANCE_ID, state: "InService" },
    ]);
    startedAt = Date.now();
    boot = await bootPayload(manager, { RUNNER_FLEET_SLOT_WAIT_SECONDS: "4", RUNNER_FLEET_SLOT_POLL_SECONDS: "1" });
    endedAt = Date.now();
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("fails when the slot is not free after the bound: boot_failed, never a second runner for the slot", async () => {
    expect(boot.code).not.toBe(0);
    expect(boot.journal).toContain(`the slot ${group} was not free after 4s; giving up`);
    expect(boot.journal).toMatch(/FAILED: line \d+ exited with status 1; the runner manager is not ready/);
    expect(manager.stubs.callsOf("gitlab-runner", "runner-entry")).toEqual([]);
    expect((await manager.container.exec(["grep", "-qs", "token =", CONFIG_FILE], { check: false })).code).not.toBe(0);
    // The whole boot, installs included, within the bound and a margin: the wait ended at its bound.
    expect(endedAt - startedAt).toBeLessThan(60_000);
  });

  it("reports itself: a BootFailures point, and Unhealthy at once", () => {
    expect(manager.stubs.awsCalls("cloudwatch", "put-metric-data").map((call) => call.args)).toContainEqual(
      expect.arrayContaining(["--namespace", awsShardMetricNamespace(model.cell.id, shard.name), "--metric-name", BOOT_FAILURES_METRIC.aws]),
    );
    expect(manager.stubs.awsCalls("autoscaling", "set-instance-health").map((call) => call.args)).toContainEqual(expect.arrayContaining(["--instance-id", INSTANCE_ID, "--health-status", "Unhealthy"]));
  });

  it("releases its own place at once: the drain timer completes its termination lifecycle action", async () => {
    const complete = await manager.container.waitFor("complete-lifecycle-action", async () => manager.stubs.awsCalls("autoscaling", "complete-lifecycle-action")[0], 45_000, 500);
    expect(complete.args).toEqual(expect.arrayContaining(["--lifecycle-action-result", "CONTINUE", "--lifecycle-hook-name", DRAIN_HOOK_NAME, "--auto-scaling-group-name", group, "--instance-id", INSTANCE_ID]));
  });
});
