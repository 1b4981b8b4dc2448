/**
 * The AWS example's worker (models/cell-2.yaml, its first shard) booted as EC2 boots it: its user data as root
 * in real systemd, on a stand-in of its default image, the ECS-optimized Amazon Linux 2023 AMI
 * (support/stubs/images): Docker installed and running, the ECS agent running, dnf and no apt. Docker is stubbed
 * (support/stubs/docker): dockerd reads /etc/docker/daemon.json as dockerd does.
 */
import { exampleModel } from "../support/models";
import type { BootResult } from "./support/manager-boot";
import { bootWorkerPayload, bridgeMtu, workerContainer, type Worker } from "./support/worker-boot";
import { allMaskedAndInactive, dockerInfoAs, failedUnits, groupsOf, packageInstalls, readyAfterDocker, unitStates } from "./support/worker-checks";

/** Docker's own bridge MTU: AWS VPCs carry 1500 and more, so the worker leaves it. */
const DOCKER_DEFAULT_MTU = 1500;
/** Where the boot installs itself for cloud-init to run at every boot. */
const PER_BOOT_HOOK = "/var/lib/cloud/scripts/per-boot/runner-fleet-worker.sh";

describe("AWS worker of cell-2 booted in real systemd on the ECS-optimized Amazon Linux 2023 AMI", () => {
  const model = exampleModel("cell-2");
  const shard = model.shards[0];
  const connector = shard.workers.username;
  let worker: Worker;
  let boot: BootResult;

  beforeAll(async () => {
    worker = await workerContainer("worker-al2023", model, shard, "amazon-linux-2023-ecs");
    boot = await bootWorkerPayload(worker);
  });

  afterAll(async () => {
    await worker?.container.dispose();
  });

  it("boots: the user data exits 0", () => {
    expect({ code: boot.code, journal: boot.code === 0 ? "" : boot.journal }).toEqual({ code: 0, journal: "" });
  });

  it("does not reinstall the image's Docker: the only install is ec2-instance-connect, which the image lacks", () => {
    expect(packageInstalls(worker)).toEqual(["dnf install -y -q ec2-instance-connect"]);
    expect(worker.stubs.callsOf("docker-package", "installed")).toHaveLength(1);
  });

  it("restarts sshd after installing ec2-instance-connect, so the key the plugin sends is accepted", () => {
    // By the order of the call log, not by its millisecond clock: two records can share a millisecond.
    const calls = worker.stubs.calls();
    const installedAt = calls.findIndex((call) => call.tool === "dnf" && call.event === "call");
    const sshd = calls.flatMap((call, index) => (call.tool === "sshd" ? [{ event: call.event, afterInstall: index > installedAt }] : []));
    expect(sshd).toEqual([
      { event: "start", afterInstall: false },
      { event: "signal", afterInstall: true },
      { event: "start", afterInstall: true },
    ]);
  });

  it("masks the ECS agent, which the image started, and stops it", async () => {
    expect(await unitStates(worker, ["ecs.service"])).toEqual(allMaskedAndInactive(["ecs.service"]));
    expect(worker.stubs.callsOf("amazon-ecs-init", "signal").map((call) => call.args.join(" "))).toEqual(["TERM"]);
  });

  it("restarts dockerd once for the model's registry mirror, and keeps Docker's own MTU and the AMI's userland-proxy false", async () => {
    expect(worker.stubs.callsOf("dockerd", "start")).toHaveLength(2);
    // The image's dockerd started on the AMI's file; the boot may restart it before it answered (the stand-in
    // answers a second after its start), so what each start read is its own record.
    const read = worker.stubs.callsOf("dockerd", "read-settings").map((call) => call.args.join(" "));
    expect(read).toEqual([`mtu=${DOCKER_DEFAULT_MTU} userland-proxy=false`, `mtu=${DOCKER_DEFAULT_MTU} registry-mirror=${shard.docker.registry_mirror}/ userland-proxy=false`]);
    const answering = worker.stubs.callsOf("dockerd", "answering").map((call) => call.args.join(" "));
    expect(answering.at(-1)).toBe(`mtu=${DOCKER_DEFAULT_MTU} registry-mirror=${shard.docker.registry_mirror}/ userland-proxy=false`);
    expect(await bridgeMtu(worker.container)).toBe(DOCKER_DEFAULT_MTU);
    expect(await worker.container.activeState("docker.service")).toBe("active");
  });

  it("writes the ready marker only after docker info answered", async () => {
    const { markerAt, firstAnsweredInfoAt } = await readyAfterDocker(worker);
    expect(firstAnsweredInfoAt).toBeDefined();
    expect(markerAt).toBeGreaterThanOrEqual(firstAnsweredInfoAt!);
  });

  it(`puts the connector user ${connector} in the docker group, so it may use Docker`, async () => {
    expect(await groupsOf(worker, connector)).toContain("docker");
    expect(await dockerInfoAs(worker, connector)).toMatchObject({ code: 0, stderr: "" });
  });

  it("installs itself as a cloud-init per-boot script: EC2 runs user data at the first boot only", async () => {
    const hook = await worker.container.readFile(PER_BOOT_HOOK);
    expect(hook).toContain("exec /usr/local/sbin/runner-fleet-worker");
  });

  it("runs again from that hook (the next boot) without installing anything more or restarting dockerd", async () => {
    const dockerdStarts = worker.stubs.callsOf("dockerd", "start").length;
    const again = await worker.container.exec(["systemd-run", "--unit=runner-fleet-per-boot", "--wait", "--quiet", "--property=Type=oneshot", PER_BOOT_HOOK], { check: false, timeoutMs: 60_000 });
    expect({ code: again.code, journal: again.code === 0 ? "" : await worker.container.journal("runner-fleet-per-boot") }).toEqual({ code: 0, journal: "" });
    expect(packageInstalls(worker)).toEqual(["dnf install -y -q ec2-instance-connect"]);
    expect(worker.stubs.callsOf("dockerd", "start")).toHaveLength(dockerdStarts);
    expect(await failedUnits(worker)).toEqual([]);
  });

  // Last: it breaks this worker's Docker. The stand-in must refuse what dockerd refuses, or a daemon.json the
  // boot renders wrong (an MTU as a string, say) would pass these tests and stop Docker on every real worker.
  it("has a dockerd stand-in that refuses to start on a daemon.json dockerd refuses: docker.service fails, docker info is refused", async () => {
    await worker.container.writeFile("/etc/docker/daemon.json", '{"mtu": "1460"}\n');
    await worker.container.exec(["systemctl", "restart", "docker.service"], { check: false });
    await worker.container.waitFor("docker.service to fail", async () => (await worker.container.activeState("docker.service")) === "failed", 20_000);
    expect(worker.stubs.callsOf("dockerd", "refused-config").length).toBeGreaterThan(0);
    expect(await worker.container.exec(["docker", "info"], { check: false })).toMatchObject({ code: 1, stderr: expect.stringContaining("Cannot connect to the Docker daemon") });
  });
});
