/**
 * A manager whose boot fails must not stay InService with no runner: Auto Scaling should replace
 * it. The AWS example's user data is run on an image of the wrong architecture (dpkg says arm64
 * where the machine type is amd64), a failure the script detects before it installs anything.
 */
import { exampleModel } from "../support/models";
import { bootPayload, INSTANCE_ID, managerContainer, type BootResult, type Manager } from "./support/manager-boot";
import { RUNNER_UNIT } from "./support/manager-checks";

describe("AWS manager of cell-2 whose boot fails", () => {
  const model = exampleModel("cell-2");
  const shard = model.shards[0];
  let manager: Manager;
  let boot: BootResult;

  beforeAll(async () => {
    manager = await managerContainer("failboot", model, shard);
    manager.stubs.architecture("arm64");
    boot = await bootPayload(manager);
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("fails the boot, with no gitlab-runner running", async () => {
    expect(boot.code).not.toBe(0);
    expect(await manager.container.activeState(RUNNER_UNIT)).not.toBe("active");
  });

  // Fails before issue 18's failed-boot fix: nothing reports a boot that fails before the health timer exists.
  it("reports the instance Unhealthy to Auto Scaling, so the group replaces it", () => {
    const reports = manager.stubs.awsCalls("autoscaling", "set-instance-health");
    expect(reports.map((call) => call.args)).toContainEqual(expect.arrayContaining(["--instance-id", INSTANCE_ID, "--health-status", "Unhealthy"]));
  });
});
