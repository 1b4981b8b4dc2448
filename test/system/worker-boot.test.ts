/**
 * The worker's boot in real systemd, on an image that already has Docker: the payload is what the
 * worker VM gets (`renderWorkerStartupScript`), run as root in a oneshot unit as cloud-init or the guest
 * agent would. Docker is stood in for by a `docker` command that answers `info` and a docker.service that
 * runs a sleeper; apt's own units are the Debian image's (apt-daily*.timer and .service), so masking is
 * real systemd's.
 */
import { renderWorkerStartupScript } from "../../lib/render/manager-files";
import { WORKER_READY_FILE } from "../../lib/render/config-toml";
import { exampleModel } from "../support/models";
import { SystemContainer } from "./support/system-container";
import { StubState } from "./support/stub-state";

const BOOT_UNIT = "runner-fleet-worker-boot";
const DOCKER_UNIT = `[Unit]
Description=Docker stand-in (system tests)

[Service]
ExecStart=/bin/sleep infinity

[Install]
WantedBy=multi-user.target
`;
const DOCKER_COMMAND = `#!/bin/sh
# docker stand-in: answers \`info\` while docker.service runs, and records each call.
echo "$*" >>/var/log/docker-calls
[ "$1" = info ] && exec systemctl is-active --quiet docker.service
exit 0
`;

describe("Google worker of cell-1 (large shard) booting an image with Docker", () => {
  const model = exampleModel("cell-1");
  const shard = model.shards[1];
  let container: SystemContainer;
  let code: number;
  let journal: string;

  beforeAll(async () => {
    container = await SystemContainer.boot("workergoogle");
    await container.writeFile("/usr/bin/docker", DOCKER_COMMAND, "0755");
    await container.writeFile("/etc/systemd/system/docker.service", DOCKER_UNIT);
    await container.exec(["groupadd", "--system", "docker"]);
    await container.exec(["systemctl", "daemon-reload"]);
    const path = "/var/lib/google/startup-script";
    await container.writeFile(path, renderWorkerStartupScript(model, shard), "0700");
    const result = await container.exec(["systemd-run", `--unit=${BOOT_UNIT}`, "--wait", "--quiet", "--property=Type=oneshot", path], { check: false, timeoutMs: 120_000 });
    code = result.code;
    journal = await container.journal(BOOT_UNIT);
  });

  afterAll(async () => {
    await container?.dispose();
  });

  it("boots, writes the ready marker, and leaves Docker running for the connector user", async () => {
    expect({ code, journal }).toEqual({ code: 0, journal: expect.stringContaining("done: Docker is running") });
    expect((await container.exec(["test", "-e", WORKER_READY_FILE], { check: false })).code).toBe(0);
    expect(await container.activeState("docker.service")).toBe("active");
    expect((await container.exec(["id", "-nG", shard.workers.username])).stdout.split(/\s+/)).toContain("docker");
  });

  it("does not reinstall Docker: apt is never asked", async () => {
    expect(journal).toContain("Docker is already installed");
    expect(new StubState(container.stubState).callsOf("apt-get")).toEqual([]);
  });

  it("masks apt's daily timers and services, so no upgrade restarts dockerd under a job", async () => {
    for (const unit of ["apt-daily.timer", "apt-daily-upgrade.timer", "apt-daily.service", "apt-daily-upgrade.service", "unattended-upgrades.service"]) {
      const state = await container.exec(["systemctl", "is-enabled", unit], { check: false });
      expect(`${unit}: ${state.stdout.trim()}`).toBe(`${unit}: masked`);
    }
    expect(await container.activeState("apt-daily.timer")).toBe("inactive");
  });

  it("gives dockerd the VPC's MTU and the registry mirror before it starts", async () => {
    expect(JSON.parse(await container.readFile("/etc/docker/daemon.json"))).toEqual({ "registry-mirrors": ["https://mirror.gcr.io"], mtu: 1460 });
  });
});
