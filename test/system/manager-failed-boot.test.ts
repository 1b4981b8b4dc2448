/**
 * A manager whose boot fails must not sit in its group with no runner and no alert. Each example's
 * payload is run on an image of the wrong architecture (dpkg says arm64 where the machine type is
 * amd64), a failure the script detects before it installs anything.
 */
import { exampleModel } from "../support/models";
import { bootPayload, INSTANCE_ID, managerContainer, type BootResult, type Manager } from "./support/manager-boot";
import { RUNNER_UNIT } from "./support/manager-checks";
import { awsShardMetricNamespace, BOOT_FAILURES_METRIC, DRAIN_HOOK_NAME, MANAGER_HEARTBEAT_METRIC } from "../../lib/contract/fleet-contract";
import { managerName, secretLocation } from "../../lib/model/names";

/**
 * What Auto Scaling does with an instance reported Unhealthy, modelled by the AWS CLI stand-in: the
 * termination hook holds it in Terminating:Wait and IMDS says Terminated. The drain timer, enabled before
 * anything in the boot could fail, completes the hook, so the slot is not held for the hook's timeout.
 */
async function lifecycleCompleted(manager: Manager) {
  return manager.container.waitFor("complete-lifecycle-action", async () => manager.stubs.awsCalls("autoscaling", "complete-lifecycle-action")[0], 45_000, 500);
}

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

  it("put its heartbeat (0: no runner) before it failed, for the shard's heartbeat alarm", () => {
    const heartbeats = manager.stubs.awsCalls("cloudwatch", "put-metric-data").filter((call) => call.args.includes(MANAGER_HEARTBEAT_METRIC));
    expect(heartbeats[0].args).toEqual(expect.arrayContaining(["--dimensions", `Shard=${manager.shard.name},Slot=0`, "--value", "0"]));
    const failure = manager.stubs.awsCalls("cloudwatch", "put-metric-data").find((call) => call.args.includes(BOOT_FAILURES_METRIC.aws))!;
    expect(heartbeats[0].at).toBeLessThanOrEqual(failure.at);
  });

  it("completes its termination lifecycle action once Auto Scaling terminates it, instead of holding the slot for the hook's timeout", async () => {
    const complete = await lifecycleCompleted(manager);
    expect(complete.args).toEqual(
      expect.arrayContaining(["--lifecycle-action-result", "CONTINUE", "--lifecycle-hook-name", DRAIN_HOOK_NAME, "--auto-scaling-group-name", managerName(manager.model, manager.shard, 0), "--instance-id", INSTANCE_ID]),
    );
  });
});

describe("AWS manager of cell-2 whose runner token never arrives in SSM", () => {
  let manager: Manager;
  let boot: BootResult;
  let seconds: number;

  beforeAll(async () => {
    const model = exampleModel("cell-2");
    manager = await managerContainer("notoken", model, model.shards[0]);
    await manager.container.exec(["rm", "-f", `/var/lib/stub/ssm/${secretLocation(model, model.shards[0]).awsParameterName.replace(/^\//, "")}`]);
    const started = Date.now();
    boot = await bootPayload(manager, { RUNNER_FLEET_CREDENTIALS_WAIT_SECONDS: "4" });
    seconds = (Date.now() - started) / 1000;
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("fails when the token is still missing after the bound: boot_failed, not a wait without end", () => {
    expect(boot.code).not.toBe(0);
    expect(boot.journal).toMatch(/no runner token from SSM parameter \S+ after 4s; giving up/);
    expect(boot.journal).toMatch(/FAILED: line \d+ exited with status 1; the runner manager is not ready/);
    expect(seconds).toBeLessThan(60);
  });

  it("reports the failure (BootFailures, Unhealthy) and releases its slot (lifecycle action completed)", async () => {
    expect(manager.stubs.awsCalls("cloudwatch", "put-metric-data").map((call) => call.args)).toContainEqual(expect.arrayContaining(["--metric-name", BOOT_FAILURES_METRIC.aws]));
    expect(manager.stubs.awsCalls("autoscaling", "set-instance-health").map((call) => call.args)).toContainEqual(expect.arrayContaining(["--instance-id", INSTANCE_ID, "--health-status", "Unhealthy"]));
    await lifecycleCompleted(manager);
    expect(manager.stubs.callsOf("gitlab-runner", "runner-entry")).toEqual([]);
  });
});

describe("AWS manager of cell-2 whose token GitLab refuses (POST /runners/verify answers 403)", () => {
  let manager: Manager;
  let boot: BootResult;

  beforeAll(async () => {
    const model = exampleModel("cell-2");
    manager = await managerContainer("refused", model, model.shards[0]);
    // GitLab knows no runner with the stored token.
    await manager.container.exec(["rm", "-rf", "/var/lib/stub/gitlab/tokens"]);
    boot = await bootPayload(manager, { RUNNER_FLEET_CREDENTIALS_WAIT_SECONDS: "4" });
  });

  afterAll(async () => {
    await manager?.container.dispose();
  });

  it("fails when GitLab has not confirmed the token after the bound, and starts no runner", () => {
    expect(boot.code).not.toBe(0);
    expect(boot.journal).toMatch(/GitLab did not confirm the runner token from SSM parameter \S+ within 4s \(\d+ attempts\); giving up/);
    expect(manager.stubs.callsOf("gitlab-runner", "runner-entry")).toEqual([]);
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
