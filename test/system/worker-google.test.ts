/**
 * The Google example's worker (models/cell-1.yaml, its first shard) booted as Compute Engine boots it: its
 * startup-script as root in real systemd, on a stand-in of the image (support/stubs/images): Ubuntu, Google's
 * default, with apt's daily timers and unattended-upgrades running and no Docker; then a baked image that has
 * Docker already. Docker is stubbed (support/stubs/docker): dockerd reads /etc/docker/daemon.json as dockerd does.
 */
import { exampleModel } from "../support/models";
import { WORKER_READY_FILE } from "../../lib/render/config-toml";
import { GOOGLE_VPC_MTU } from "../../lib/render/docker-daemon";
import type { BootResult } from "./support/manager-boot";
import { bootWorkerPayload, bridgeMtu, workerContainer, type Worker } from "./support/worker-boot";
import { allMaskedAndInactive, dockerInfoAs, failedUnits, groupsOf, packageInstalls, readyAfterDocker, unitStates, UPGRADE_UNITS } from "./support/worker-checks";

const model = exampleModel("cell-1");
const shard = model.shards[0];
const connector = shard.workers.username;

function describeGoogleWorker(image: "ubuntu" | "ubuntu-with-docker", checks: (worker: () => Worker) => void): void {
  describe(`on ${image}`, () => {
    let worker: Worker;
    let boot: BootResult;

    beforeAll(async () => {
      worker = await workerContainer(`worker-${image}`, model, shard, image);
      boot = await bootWorkerPayload(worker);
    });

    afterAll(async () => {
      await worker?.container.dispose();
    });

    it("boots: the startup-script exits 0", () => {
      expect({ code: boot.code, journal: boot.code === 0 ? "" : boot.journal }).toEqual({ code: 0, journal: "" });
    });

    it("masks apt's daily timers and services and unattended-upgrades, and none of them runs", async () => {
      expect(await unitStates(worker, UPGRADE_UNITS)).toEqual(allMaskedAndInactive(UPGRADE_UNITS));
      // The unattended-upgrades daemon the image started was stopped, not left running until the next boot.
      expect(worker.stubs.callsOf("unattended-upgrade-shutdown", "signal").map((call) => call.args.join(" "))).toEqual(["TERM"]);
    });

    it("leaves no failed unit: a timer still active when its service is masked would fail", async () => {
      expect(await failedUnits(worker)).toEqual([]);
    });

    it("runs dockerd with the VPC's MTU on its bridge and the model's registry mirror", async () => {
      expect(await worker.container.activeState("docker.service")).toBe("active");
      expect(await bridgeMtu(worker.container)).toBe(GOOGLE_VPC_MTU);
      expect((await worker.container.exec(["docker", "info"])).stdout).toContain(` Registry Mirrors:\n  ${shard.docker.registry_mirror}/\n`);
    });

    it("rejects job containers' traffic to the metadata server in DOCKER-USER, once, after dockerd made that chain", () => {
      const inserts = worker.stubs.callsOf("iptables", "call").filter((call) => call.args[0] === "-I");
      expect(inserts.map((call) => call.args.join(" "))).toEqual(["-I DOCKER-USER -d 169.254.169.254/32 -j REJECT"]);
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

    checks(() => worker);
  });
}

describe("Google worker of cell-1 booted in real systemd", () => {
  it("renders the settings these tests expect: a mirror, and the ready marker the manager waits for", () => {
    expect(shard.docker.registry_mirror).toMatch(/^https:\/\//);
    expect(WORKER_READY_FILE).toBe("/run/runner-fleet/worker-ready");
  });

  describeGoogleWorker("ubuntu", (worker) => {
    it("waits out a dockerd that does not answer yet: docker info refused, retried, the marker after its answer", async () => {
      const { markerAt, firstAnsweredInfoAt, refusedInfoAt } = await readyAfterDocker(worker());
      expect(refusedInfoAt.length).toBeGreaterThan(0);
      expect(Math.max(...refusedInfoAt)).toBeLessThan(firstAnsweredInfoAt!);
      expect(markerAt).toBeGreaterThanOrEqual(firstAnsweredInfoAt!);
    });

    it("installs docker.io, the image lacking it, once", () => {
      expect(packageInstalls(worker())).toEqual([expect.stringMatching(/^apt-get .*install .*docker\.io$/)]);
      expect(worker().stubs.callsOf("docker-package", "installed")).toHaveLength(1);
    });
  });

  describeGoogleWorker("ubuntu-with-docker", (worker) => {
    it("does not reinstall Docker: no package install at all", () => {
      expect(packageInstalls(worker())).toEqual([]);
      // The one install is the image's own, before the boot.
      expect(worker().stubs.callsOf("docker-package", "installed")).toHaveLength(1);
    });

    it("restarts the image's dockerd once, for the new daemon.json: the running daemon has the MTU", () => {
      // The image's dockerd starts at boot beside the startup-script, so it may be restarted before it answered once.
      expect(worker().stubs.callsOf("dockerd", "start")).toHaveLength(2);
      const answering = worker().stubs.callsOf("dockerd", "answering").map((call) => call.args.join(" "));
      expect(answering.at(-1)).toBe(`mtu=${GOOGLE_VPC_MTU} registry-mirror=${shard.docker.registry_mirror}/`);
    });
  });
});
