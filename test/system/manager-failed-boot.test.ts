/**
 * A manager whose boot fails must not sit in its group with no runner and no alert. Each example's
 * payload is run on an image of the wrong architecture (dpkg says arm64 where the machine type is
 * amd64), a failure the script detects before it installs anything.
 */
import { exampleModel } from "../support/models";
import { bootPayload, INSTANCE_ID, managerContainer, type BootResult, type Manager } from "./support/manager-boot";
import { RUNNER_UNIT } from "./support/manager-checks";
import { awsShardMetricNamespace, BOOT_FAILURES_METRIC } from "../../lib/contract/fleet-contract";

async function failedBoot(label: string, cell: "cell-1" | "cell-2"): Promise<{ manager: Manager; boot: BootResult }> {
  const model = exampleModel(cell);
  const manager = await managerContainer(label, model, model.shards[0]);
  manager.stubs.architecture("arm64");
  return { manager, boot: await bootPayload(manager) };
}

describe("AWS manager of cell-2 whose boot fails", () => {
  let manager: Manager;
  let boot: BootResult;

  beforeAll(async () => {
    ({ manager, boot } = await failedBoot("failaws", "cell-2"));
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("fails the boot, with no gitlab-runner running", async () => {
    expect(boot.code).not.toBe(0);
    expect(await manager.container.activeState(RUNNER_UNIT)).not.toBe("active");
  });

  it("reports the instance Unhealthy to Auto Scaling at once, so the group replaces it", () => {
    const reports = manager.stubs.awsCalls("autoscaling", "set-instance-health");
    expect(reports.map((call) => call.args)).toContainEqual(expect.arrayContaining(["--instance-id", INSTANCE_ID, "--health-status", "Unhealthy"]));
  });

  it("records a boot failure in the shard's CloudWatch namespace, which the shard's alarm counts", () => {
    const points = manager.stubs.awsCalls("cloudwatch", "put-metric-data");
    expect(points.map((call) => call.args)).toContainEqual(
      expect.arrayContaining(["--namespace", awsShardMetricNamespace(manager.model.cell.id, manager.shard.name), "--metric-name", BOOT_FAILURES_METRIC.aws, "--value", "1"]),
    );
  });
});

describe("Google manager of cell-1 whose boot fails", () => {
  let manager: Manager;
  let boot: BootResult;

  beforeAll(async () => {
    ({ manager, boot } = await failedBoot("failgoogle", "cell-1"));
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("fails the boot, with no gitlab-runner running", async () => {
    expect(boot.code).not.toBe(0);
    expect(await manager.container.activeState(RUNNER_UNIT)).not.toBe("active");
  });

  it("writes one point of the boot-failure metric for its shard and slot to Cloud Monitoring, which the shard's alert counts", () => {
    const writes = manager.stubs.curlCalls("POST", `monitoring.googleapis.com/v3/projects/${manager.model.cloud.provider === "google" ? manager.model.cloud.project : ""}/timeSeries`);
    expect(writes).toHaveLength(1);
    const body = JSON.parse(writes[0].args.find((arg) => arg.startsWith("data="))!.slice("data=".length));
    expect(body.timeSeries[0]).toMatchObject({
      metric: { type: BOOT_FAILURES_METRIC.google, labels: { runner_shard: manager.shard.name, runner_slot: "0" } },
      points: [{ value: { int64Value: "1" } }],
    });
  });
});
