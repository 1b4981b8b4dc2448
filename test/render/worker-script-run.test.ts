/**
 * Runs rendered worker startup scripts for real (bash) against stub commands in a scratch root. The tests
 * that only read a first boot with the default stubs share it (firstBoot).
 */
import { renderWorkerStartupScript, WORKER_READY_FILE } from "../../lib/render/manager-files";
import { exampleModel, modelWith } from "../support/models";
import { expectSucceeded, ScriptSandbox, type ScriptRun } from "./support/script-sandbox";
import { firstBoot } from "./support/shared-boots";

let sandbox: ScriptSandbox;
beforeEach(() => {
  sandbox = new ScriptSandbox();
});
afterEach(() => {
  sandbox.dispose();
});


const called = (run: ScriptRun, name: string, ...args: string[]) =>
  run.calls.some((call) => call.name === name && args.every((arg) => call.args.includes(arg)));

const readyFile = WORKER_READY_FILE.replace(/^\//, "");

describe("worker startup script", () => {
  it.each(["cell-1", "cell-2"] as const)("installs Docker when missing, starts it and lets the connector user use it (%s)", (name) => {
    const model = exampleModel(name);
    const shard = model.shards[0];

    const { sandbox: booted, first: run } = firstBoot(renderWorkerStartupScript(model, shard));

    expectSucceeded(run);
    expect(called(run, "apt-get", "install", "docker.io")).toBe(true);
    expect(called(run, "systemctl", "enable", "--now", "docker.service")).toBe(true);
    expect(called(run, "docker", "info")).toBe(true);
    expect(called(run, "useradd", shard.workers.username)).toBe(true);
    expect(called(run, "usermod", "-aG", "docker", shard.workers.username)).toBe(true);
    expect(booted.exists(readyFile)).toBe(true);
  });

  it("masks apt's daily timers and unattended-upgrades before it installs anything, so no upgrade restarts dockerd under a job", () => {
    const model = exampleModel("cell-1");

    const { first: run } = firstBoot(renderWorkerStartupScript(model, model.shards[0]));

    expectSucceeded(run);
    const mask = run.calls.findIndex((call) => call.name === "systemctl" && call.args[0] === "mask");
    expect(run.calls[mask].args.slice(1)).toEqual([
      "apt-daily.timer",
      "apt-daily.service",
      "apt-daily-upgrade.timer",
      "apt-daily-upgrade.service",
      "unattended-upgrades.service",
    ]);
    const aptInstall = run.calls.findIndex((call) => call.name === "apt-get" && call.args.includes("install"));
    expect(aptInstall).toBeGreaterThan(mask);
    const stop = run.calls.findIndex((call) => call.name === "systemctl" && call.args[0] === "stop");
    expect(stop).toBeGreaterThan(-1);
    expect(stop).toBeLessThan(mask);
  });

  it("on Amazon Linux 2023 (no apt-get) masks no apt units, installs a missing Docker with dnf and masks the ECS agent", () => {
    const model = exampleModel("cell-2");
    sandbox.removeStub("apt-get");
    sandbox.addStub("dnf");
    sandbox.writeRootFile("usr/lib/systemd/system/ecs.service", "[Service]\n");

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    expectSucceeded(run);
    expect(called(run, "dnf", "install", "docker")).toBe(true);
    // The ECS-optimized AMI lacks EC2 Instance Connect, through which the aws plugin sends its key.
    expect(called(run, "dnf", "install", "ec2-instance-connect")).toBe(true);
    expect(called(run, "systemctl", "try-restart", "sshd.service")).toBe(true);
    expect(sandbox.exists("opt/aws/bin/eic_run_authorized_keys")).toBe(true);
    expect(called(run, "systemctl", "mask", "apt-daily.timer")).toBe(false);
    expect(called(run, "systemctl", "mask", "--now", "ecs.service")).toBe(true);
    expect(called(run, "usermod", "-aG", "docker", model.shards[0].workers.username)).toBe(true);
    expect(sandbox.exists(readyFile)).toBe(true);
  });

  it("fails without a ready marker when Docker is missing and neither apt-get nor dnf can install it", () => {
    const model = exampleModel("cell-1");
    sandbox.removeStub("apt-get");

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("Docker is missing and there is neither apt-get nor dnf to install it");
    expect(sandbox.exists(readyFile)).toBe(false);
  });

  it("leaves EC2 Instance Connect alone where the image has it, and never installs it on Google Cloud", () => {
    const aws = exampleModel("cell-2");
    sandbox.addStub("dnf");
    sandbox.writeRootFile("opt/aws/bin/eic_run_authorized_keys", "");

    const run = sandbox.run(renderWorkerStartupScript(aws, aws.shards[0]));
    const googleSandbox = new ScriptSandbox();
    try {
      googleSandbox.addStub("dnf");
      const google = exampleModel("cell-1");
      const googleRun = googleSandbox.run(renderWorkerStartupScript(google, google.shards[0]));
      expectSucceeded(googleRun);
      expect(called(googleRun, "dnf", "install", "ec2-instance-connect")).toBe(false);
    } finally {
      googleSandbox.dispose();
    }

    expectSucceeded(run);
    expect(called(run, "dnf", "install", "ec2-instance-connect")).toBe(false);
  });

  it("fails without a ready marker when EC2 Instance Connect is missing and neither dnf nor apt-get can install it", () => {
    const model = exampleModel("cell-2");
    sandbox.removeStub("apt-get");

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("EC2 Instance Connect is missing and there is neither dnf nor apt-get to install it");
    expect(sandbox.exists(readyFile)).toBe(false);
  });

  it("writes the registry mirror into /etc/docker/daemon.json before dockerd is started, and leaves it alone when unchanged", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].docker.registry_mirror = "https://mirror.example.com";
    });

    const first = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));
    const second = sandbox.run(renderWorkerStartupScript(model, model.shards[0]), { STUB_ACTIVE_UNITS: "docker.service" });

    expectSucceeded(first);
    expect(JSON.parse(sandbox.file("etc/docker/daemon.json"))).toEqual({ "registry-mirrors": ["https://mirror.example.com"] });
    expect(first.stderr.indexOf("writing the Docker daemon settings")).toBeLessThan(first.stderr.indexOf("done:"));
    const enable = first.calls.findIndex((call) => call.name === "systemctl" && call.args.includes("enable"));
    expect(first.stderr).toContain("writing the Docker daemon settings");
    expect(enable).toBeGreaterThan(-1);
    expect(called(first, "systemctl", "restart", "docker.service")).toBe(false);
    expectSucceeded(second);
    expect(second.stderr).not.toContain("writing the Docker daemon settings");
    expect(called(second, "systemctl", "restart", "docker.service")).toBe(false);
  });

  it("restarts a dockerd that was already running with other settings, before the worker is marked ready", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].docker.registry_mirror = "https://mirror.example.com";
    });
    sandbox.addStub("docker");
    sandbox.writeRootFile("etc/docker/daemon.json", '{"log-driver": "journald"}\n');

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[0]), { STUB_ACTIVE_UNITS: "docker.service" });

    expectSucceeded(run);
    // Merged: the image's log driver stays, the model's mirror is added.
    expect(JSON.parse(sandbox.file("etc/docker/daemon.json"))).toEqual({ "log-driver": "journald", "registry-mirrors": ["https://mirror.example.com"] });
    const restart = run.calls.findIndex((call) => call.name === "systemctl" && call.args.join(" ") === "restart docker.service");
    const dockerInfo = run.calls.findIndex((call) => call.name === "docker" && call.args[0] === "info");
    expect(restart).toBeGreaterThan(-1);
    expect(dockerInfo).toBeGreaterThan(restart);
  });

  it("gives dockerd the VPC's MTU (1460) on Google Cloud, with the mirror, before it starts", () => {
    const model = exampleModel("cell-1");

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[1]));

    expectSucceeded(run);
    expect(JSON.parse(sandbox.file("etc/docker/daemon.json"))).toEqual({ "registry-mirrors": ["https://mirror.gcr.io"], mtu: 1460 });
    const install = run.calls.findIndex((call) => call.name === "apt-get" && call.args.includes("install"));
    const enable = run.calls.findIndex((call) => call.name === "systemctl" && call.args.join(" ") === "enable --now docker.service");
    expect(install).toBeGreaterThan(-1);
    expect(enable).toBeGreaterThan(install);
  });

  it("keeps the ECS-optimized AMI's own setting (userland-proxy false) and lets the model's keys win over the image's", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].docker.registry_mirror = "https://mirror.example.com";
    });
    sandbox.writeRootFile("etc/docker/daemon.json", '{\n    "userland-proxy": false,\n    "registry-mirrors": ["https://old.example.com"]\n}\n');

    const first = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));
    const second = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    expectSucceeded(first);
    expect(JSON.parse(sandbox.file("etc/docker/daemon.json"))).toEqual({ "userland-proxy": false, "registry-mirrors": ["https://mirror.example.com"] });
    expectSucceeded(second);
    expect(second.stderr).not.toContain("writing the Docker daemon settings");
  });

  it("fails when the image's daemon.json is not a JSON object, and writes no ready marker", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].docker.registry_mirror = "https://mirror.example.com";
    });
    sandbox.writeRootFile("etc/docker/daemon.json", '["not", "an", "object"]\n');

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("is not a JSON object");
    expect(sandbox.file("etc/docker/daemon.json")).toBe('["not", "an", "object"]\n');
    expect(sandbox.exists(readyFile)).toBe(false);
  });

  it("leaves the image's daemon.json alone when the model sets no daemon settings", () => {
    const model = modelWith("cell-2", (m) => {
      delete m.shards[0].docker.registry_mirror;
    });
    sandbox.writeRootFile("etc/docker/daemon.json", '{"log-driver": "journald"}\n');

    expectSucceeded(sandbox.run(renderWorkerStartupScript(model, model.shards[0])));

    expect(sandbox.file("etc/docker/daemon.json")).toBe('{"log-driver": "journald"}\n');
  });

  it("leaves an image's Docker and existing user alone, and is safe to run again", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].workers.username = "runner";
    });
    sandbox.addStub("docker");
    // Ubuntu's AMIs ship EC2 Instance Connect.
    sandbox.writeRootFile("usr/share/ec2-instance-connect/eic_run_authorized_keys", "");

    const first = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));
    const second = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    for (const run of [first, second]) {
      expectSucceeded(run);
      expect(called(run, "apt-get", "install")).toBe(false);
      expect(called(run, "apt-get", "update")).toBe(false);
      expect(called(run, "usermod", "-aG", "docker", "runner")).toBe(true);
    }
    expect(called(first, "useradd", "runner")).toBe(true);
    expect(called(second, "useradd")).toBe(false);
    expect(sandbox.exists(readyFile)).toBe(true);
  });

  it("marks the worker ready only after Docker answers", () => {
    const model = exampleModel("cell-1");
    sandbox.addStub("docker");

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    expectSucceeded(run);
    const dockerInfo = run.calls.findIndex((call) => call.name === "docker" && call.args[0] === "info");
    const usermod = run.calls.findIndex((call) => call.name === "usermod");
    expect(dockerInfo).toBeGreaterThan(-1);
    expect(usermod).toBeGreaterThan(dockerInfo);
    expect(run.stderr).toMatch(/done: Docker is running and ubuntu may use it\n$/);
  });

  it("installs itself as a cloud-init per-boot script on AWS only", () => {
    const aws = exampleModel("cell-2");
    const google = exampleModel("cell-1");

    const awsBoot = firstBoot(renderWorkerStartupScript(aws, aws.shards[0]));
    expectSucceeded(awsBoot.first);
    expect(awsBoot.sandbox.file("var/lib/cloud/scripts/per-boot/runner-fleet-worker.sh")).toContain("exec /usr/local/sbin/runner-fleet-worker");
    const googleBoot = firstBoot(renderWorkerStartupScript(google, google.shards[0]));
    expectSucceeded(googleBoot.first);
    expect(googleBoot.sandbox.exists("var/lib/cloud/scripts/per-boot/runner-fleet-worker.sh")).toBe(false);
    expect(googleBoot.sandbox.exists("usr/local/sbin/runner-fleet-worker")).toBe(true);
  });
});
