/**
 * Runs rendered manager startup scripts for real (bash) against stub commands in a
 * scratch root: the token is read from the store, lands in config.toml (0600) and
 * nowhere else, and a second boot skips what is already installed. The tests that only read a first boot,
 * or a first boot and a reboot, with the default stubs share it (firstBoot, bootAndReboot).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { logGroupName, secretLocation } from "../../lib/model/names";
import type { RunnerModel } from "../../lib/model/schema";
import { RUNNER_TOKEN_PLACEHOLDER } from "../../lib/render/manager-files";
import { FLEETING_PLUGIN_DIR, INSTALLED_MANAGER_SCRIPT } from "../../lib/render/startup-script";
import { exampleModel, modelWith } from "../support/models";
import { expectSucceeded, managerPayload, ScriptSandbox, type ScriptRun } from "./support/script-sandbox";
import { bootAndReboot, firstBoot } from "./support/shared-boots";

/** A token-shaped value made up at run time (never committed). */
const fakeRunnerToken = () => `glrt-t1_${randomBytes(15).toString("base64url")}`;
const fakeAccessToken = () => `ya29.${randomBytes(24).toString("base64url")}`;

const CONFIG = "etc/gitlab-runner/config.toml";

let sandbox: ScriptSandbox;
beforeEach(() => {
  sandbox = new ScriptSandbox();
});
afterEach(() => {
  sandbox.dispose();
});


function expectSecretsKeptOut(run: ScriptRun, ...secrets: string[]): void {
  for (const secret of secrets) {
    expect(run.callLog).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
    expect(run.stdout).not.toContain(secret);
    expect(sandbox.state("logger")).not.toContain(secret);
  }
}

/** Packages of each `apt-get install` call (options and their values left out). */
const aptInstalls = (run: ScriptRun) =>
  run.calls
    .filter((call) => call.name === "apt-get" && call.args.includes("install"))
    .map((call) => call.args.filter((arg, index) => !arg.startsWith("-") && call.args[index - 1] !== "-o" && arg !== "install"));

const callIndex = (run: ScriptRun, name: string, ...args: string[]) =>
  run.calls.findIndex((call) => call.name === name && args.every((arg) => call.args.includes(arg)));

describe("manager startup script on Google Cloud (Secret Manager)", () => {
  const model = exampleModel("cell-1");
  const shard = model.shards[0];

  it("reads the token from Secret Manager and writes it only into config.toml, mode 0600", () => {
    const token = fakeRunnerToken();
    const accessToken = fakeAccessToken();

    const run = sandbox.run(managerPayload(model, shard, 1), { STUB_RUNNER_TOKEN: token, STUB_ACCESS_TOKEN: accessToken });

    expectSucceeded(run);
    const config = parse(sandbox.file(CONFIG)) as { runners: Array<{ token: string }> };
    expect(config.runners[0].token).toBe(token);
    expect(sandbox.file(CONFIG)).not.toContain(RUNNER_TOKEN_PLACEHOLDER);
    expect(sandbox.file(CONFIG).split(token)).toHaveLength(2);
    expect(statSync(join(sandbox.root, CONFIG)).mode & 0o777).toBe(0o600);
    expectSecretsKeptOut(run, token, accessToken);
    const { googleSecretId } = secretLocation(model, shard);
    if (model.cloud.provider !== "google") throw new Error("cell-1 is the Google Cloud example");
    expect(sandbox.state("secret-urls").trim()).toBe(
      `https://secretmanager.googleapis.com/v1/projects/${model.cloud.project}/secrets/${googleSecretId}/versions/latest:access`,
    );
  });

  it("installs the pinned runner, then the fleeting plugin after config.toml exists, then restarts the service", () => {
    const { sandbox: booted, first: run } = firstBoot(managerPayload(model, shard, 0));

    expectSucceeded(run);
    expect(aptInstalls(run)).toContainEqual(["gitlab-runner=19.5.0-1", "gitlab-runner-helper-images=19.5.0-1"]);
    expect(callIndex(run, "apt-mark", "hold", "gitlab-runner")).toBeGreaterThan(-1);
    const fleeting = run.calls.find((call) => call.name === "gitlab-runner");
    expect(fleeting?.args).toEqual(["fleeting", "-c", join(booted.root, CONFIG), "install"]);
    expect(fleeting?.env).toEqual({ FLEETING_PLUGIN_PATH: FLEETING_PLUGIN_DIR, HOME: "/root" });
    expect(booted.state("config-at-fleeting-install").trim()).toBe("present");
    expect(callIndex(run, "systemctl", "restart", "gitlab-runner")).toBeGreaterThan(callIndex(run, "gitlab-runner", "install"));
    expect(booted.file("etc/systemd/system/gitlab-runner.service.d/10-runner-fleet.conf")).toContain(
      `Environment=FLEETING_PLUGIN_PATH=${FLEETING_PLUGIN_DIR}`,
    );
  });

  it("installs the pinned fleeting plugin once: a reboot finds that version and does not ask the registry again", () => {
    const { sandbox: booted, first, reboot } = bootAndReboot(managerPayload(model, shard, 0));

    expectSucceeded(first);
    expectSucceeded(reboot);
    expect(callIndex(first, "gitlab-runner", "install")).toBeGreaterThan(-1);
    expect(booted.exists(`${FLEETING_PLUGIN_DIR.slice(1)}/registry.gitlab.com/gitlab-org/fleeting/plugins/googlecloud/1.0.0/plugin`)).toBe(true);
    expect(callIndex(reboot, "gitlab-runner", "install")).toBe(-1);
    expect(reboot.stderr).toContain("the fleeting plugin googlecloud:1.0.0 is already installed");
  });

  it("makes one SSH key for the fleeting plugin at the first boot and keeps it across reboots", () => {
    const { sandbox: booted, first, reboot } = bootAndReboot(managerPayload(model, shard, 0));

    expectSucceeded(first);
    expectSucceeded(reboot);
    const keyPath = "/etc/gitlab-runner/fleeting/id_ed25519";
    expect(parse(booted.file(CONFIG)).runners).toEqual([expect.objectContaining({ autoscaler: expect.objectContaining({ connector_config: expect.objectContaining({ key_path: keyPath }) }) })]);
    expect(booted.state("keys").trim().split("\n")).toEqual([join(booted.root, keyPath)]);
    expect(statSync(join(booted.root, keyPath)).mode & 0o777).toBe(0o600);
    expect(statSync(join(booted.root, "etc/gitlab-runner/fleeting")).mode & 0o777).toBe(0o700);
    expect(callIndex(reboot, "ssh-keygen")).toBe(-1);
  });

  it("installs a mirror's plugin reference, and a new version when the model raises it", () => {
    const env = { STUB_RUNNER_TOKEN: fakeRunnerToken(), STUB_ACCESS_TOKEN: fakeAccessToken() };
    const mirrored = (version: string) =>
      modelWith("cell-1", (m) => {
        m.shards[0].managers.fleeting_plugin = `registry.example.com:5000/mirror/fleeting/googlecloud:${version}`;
      });

    const first = sandbox.run(managerPayload(mirrored("1.0.0"), mirrored("1.0.0").shards[0], 0), env);
    const raised = sandbox.run(managerPayload(mirrored("1.0.1"), mirrored("1.0.1").shards[0], 0), env);

    expectSucceeded(first);
    expectSucceeded(raised);
    expect(sandbox.file(CONFIG)).toContain('plugin = "registry.example.com:5000/mirror/fleeting/googlecloud:1.0.1"');
    for (const version of ["1.0.0", "1.0.1"]) {
      expect(sandbox.exists(`${FLEETING_PLUGIN_DIR.slice(1)}/registry.example.com:5000/mirror/fleeting/googlecloud/${version}/plugin`)).toBe(true);
    }
    expect(callIndex(raised, "gitlab-runner", "install")).toBeGreaterThan(-1);
  });

  it("sets up the Ops Agent to scrape the runner's metrics on localhost:9252", () => {
    const { sandbox: booted, first: run } = firstBoot(managerPayload(model, shard, 0));

    expectSucceeded(run);
    const opsAgent = parseYaml(booted.file("etc/google-cloud-ops-agent/config.yaml"));
    expect(opsAgent.metrics.receivers.prometheus.type).toBe("prometheus");
    expect(opsAgent.metrics.receivers.prometheus.config.scrape_configs[0]).toMatchObject({
      job_name: "gitlab-runner",
      static_configs: [{ targets: ["localhost:9252"] }],
    });
    expect(callIndex(run, "systemctl", "restart", "google-cloud-ops-agent")).toBeGreaterThan(-1);
  });

  it("skips installing what a previous boot installed and still rewrites config.toml", () => {
    const { sandbox: booted, runnerToken: token, first, reboot: secondBoot } = bootAndReboot(managerPayload(model, shard, 0));
    expectSucceeded(first);

    expectSucceeded(secondBoot);
    expect(aptInstalls(secondBoot)).toEqual([]);
    expect(callIndex(secondBoot, "curl", "https://packages.cloud.google.com/apt/doc/apt-key.gpg")).toBe(-1);
    expect(secondBoot.stderr).toContain("gitlab-runner 19.5.0 is already installed");
    expect((parse(booted.file(CONFIG)) as { runners: Array<{ token: string }> }).runners[0].token).toBe(token);
  });

  it("upgrades when the installed runner is not the pinned version", () => {
    sandbox.preinstall("gitlab-runner", "19.4.0-1");

    const run = sandbox.run(managerPayload(model, shard, 0), { STUB_RUNNER_TOKEN: fakeRunnerToken(), STUB_ACCESS_TOKEN: fakeAccessToken() });

    expectSucceeded(run);
    expect(run.stderr).toContain("installing gitlab-runner 19.5.0 (installed: 19.4.0-1)");
    expect(aptInstalls(run)).toContainEqual(["gitlab-runner=19.5.0-1", "gitlab-runner-helper-images=19.5.0-1"]);
  });

  it("fails when the store holds something that is not a runner token, and writes no config.toml", () => {
    const run = sandbox.run(managerPayload(model, shard, 0), {
      STUB_RUNNER_TOKEN: fakeRunnerToken(),
      STUB_ACCESS_TOKEN: fakeAccessToken(),
      STUB_STORE_VALUE: 'x" = evil',
      STUB_SLEEP_HOOK: "fail-after-2",
    });

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("is empty or not a runner token");
    expect(run.stderr).toMatch(/FAILED: line \d+ exited with status 1/);
    expect(sandbox.exists(CONFIG)).toBe(false);
  });
});

describe("manager startup script on AWS (SSM Parameter Store)", () => {
  const model = exampleModel("cell-2");
  const shard = model.shards[0];

  it("reads the token with the AWS CLI and writes config.toml, mode 0600", () => {
    const token = fakeRunnerToken();

    const run = sandbox.run(managerPayload(model, shard, 1), { STUB_RUNNER_TOKEN: token });

    expectSucceeded(run);
    expect((parse(sandbox.file(CONFIG)) as { runners: Array<{ token: string }> }).runners[0].token).toBe(token);
    expect(statSync(join(sandbox.root, CONFIG)).mode & 0o777).toBe(0o600);
    expectSecretsKeptOut(run, token);
    expect(callIndex(run, "snap", "install", "aws-cli")).toBeGreaterThan(-1);
    const ssm = run.calls.find((call) => call.name === "aws" && call.args.includes(secretLocation(model, shard).awsParameterName));
    expect(ssm?.args).toEqual([
      "ssm", "get-parameter", "--region", "eu-west-1", "--name", secretLocation(model, shard).awsParameterName,
      "--with-decryption", "--query", "Parameter.Value", "--output", "text",
    ]);
  });

  it("gives the service AWS_REGION and a JSON log file the CloudWatch agent ships to the shard's log group", () => {
    const { sandbox: booted, first: run } = firstBoot(managerPayload(model, shard, 0));

    expectSucceeded(run);
    const dropIn = booted.file("etc/systemd/system/gitlab-runner.service.d/10-runner-fleet.conf");
    expect(dropIn).toContain("Environment=AWS_REGION=eu-west-1");
    expect(dropIn).toContain("StandardError=append:/var/log/gitlab-runner/gitlab-runner.log");
    // systemd's append: makes the file, not its directory: the boot does, before the first start.
    expect(statSync(join(booted.root, "var/log/gitlab-runner")).isDirectory()).toBe(true);
    expect(dropIn).not.toContain("LogsDirectory");
    const agent = JSON.parse(booted.file("etc/runner-fleet/cloudwatch-agent.json"));
    expect(agent.logs.logs_collected.files.collect_list).toEqual([
      expect.objectContaining({ file_path: "/var/log/gitlab-runner/gitlab-runner.log", log_group_name: logGroupName(model, shard) }),
    ]);
    expect(callIndex(run, "amazon-cloudwatch-agent-ctl", "fetch-config")).toBeGreaterThan(-1);
    expect(run.calls.find((call) => call.name === "amazon-cloudwatch-agent-ctl")?.args).toContain(`file:${booted.root}/etc/runner-fleet/cloudwatch-agent.json`);
    expect(booted.file("etc/logrotate.d/gitlab-runner-fleet")).toContain("copytruncate");
  });

  it("installs a cloud-init per-boot hook that runs the manager again, because EC2 runs user data only once", () => {
    const { sandbox: booted, first } = firstBoot(managerPayload(model, shard, 0));

    expectSucceeded(first);

    const hook = booted.file("var/lib/cloud/scripts/per-boot/runner-fleet-manager.sh");
    expect(hook.split("\n")[0]).toBe("#!/bin/sh");
    expect(hook).toContain(`exec ${INSTALLED_MANAGER_SCRIPT} boot`);
    expect(statSync(join(booted.root, "var/lib/cloud/scripts/per-boot/runner-fleet-manager.sh")).mode & 0o777).toBe(0o700);
  });
});

describe("manager startup script with the local secret store", () => {
  const localModel = (name: "cell-1" | "cell-2"): RunnerModel =>
    modelWith(name, (model) => {
      model.secrets.store = "local";
    });

  it.each(["cell-1", "cell-2"] as const)("waits for the operator to place the token (%s)", (name) => {
    const model = localModel(name);
    const token = fakeRunnerToken();

    const run = sandbox.run(managerPayload(model, model.shards[0], 0), { STUB_RUNNER_TOKEN: token, STUB_ACCESS_TOKEN: fakeAccessToken(), STUB_SLEEP_HOOK: "place-token" });

    expectSucceeded(run);
    expect(run.stderr).toContain("waiting for the runner token in");
    expect(sandbox.state("sleeps").trim()).toBe("1");
    expect((parse(sandbox.file(CONFIG)) as { runners: Array<{ token: string }> }).runners[0].token).toBe(token);
    expect(statSync(join(sandbox.root, "etc/gitlab-runner/runner-token")).mode & 0o777).toBe(0o600);
    // The token comes from the file alone; the store is asked only for config.toml (lib/render/live-config.ts).
    // (The AWS boot's other calls, its heartbeat and its look at its group, read no store.)
    const storeReads = run.calls.filter((call) => (call.name === "aws" && call.args[0] === "ssm") || (call.name === "curl" && call.args.some((arg) => arg.includes("secretmanager"))));
    expect(storeReads.length).toBeGreaterThan(0);
    for (const call of storeReads) expect(call.args.some((arg) => arg.includes("config"))).toBe(true);
    expectSecretsKeptOut(run, token);
  });
});

describe.each([
  ["cell-1", "Google Cloud Ops Agent", "apt/doc/apt-key.gpg"],
  ["cell-2", "Amazon CloudWatch agent", "assets/amazon-cloudwatch-agent.gpg"],
] as const)("manager startup script when the monitoring agent cannot be installed (%s, %s)", (cell, _agent, download) => {
  const model = exampleModel(cell);
  const shard = model.shards[0];

  it("retries the agent, reports it, and still starts gitlab-runner", () => {
    const run = sandbox.run(managerPayload(model, shard, 0), {
      STUB_RUNNER_TOKEN: fakeRunnerToken(),
      STUB_ACCESS_TOKEN: fakeAccessToken(),
      STUB_AGENT_DOWN: "1",
    });

    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain("FAILED");
    // Three attempts, each retrying the download.
    for (const attempt of [1, 2, 3]) expect(run.stderr).toContain(`setting up the monitoring agent failed (attempt ${attempt}/3)`);
    expect(run.stderr).toContain("WARNING: no monitoring agent; gitlab-runner runs without it");
    expect(run.calls.filter((call) => call.name === "curl" && call.args.some((arg) => arg.endsWith(download))).length).toBeGreaterThanOrEqual(3);
    expect(sandbox.state("logger")).toContain("WARNING: no monitoring agent");
    // The runner was configured and started regardless.
    expect(sandbox.exists(CONFIG)).toBe(true);
    expect(callIndex(run, "systemctl", "restart", "gitlab-runner")).toBeGreaterThan(-1);
    expect(run.stderr).toContain("done: gitlab-runner");
  });

  it("sets the agent up without retries or a warning when its download works", () => {
    const { first: run } = firstBoot(managerPayload(model, shard, 0));
    expectSucceeded(run);
    expect(run.stderr).not.toContain("monitoring agent failed");
    expect(run.stderr).not.toContain("WARNING: no monitoring agent");
  });
});

describe("a failed boot", () => {
  it("on AWS: records a BootFailures point and reports the instance Unhealthy at once, not after the grace period", () => {
    const model = exampleModel("cell-2");
    const shard = model.shards[0];

    // An image of the wrong architecture: the boot stops before any runner runs.
    const { sandbox: booted, first: run } = firstBoot(managerPayload(model, shard, 0), { STUB_ARCH: "arm64" });

    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/FAILED: line \d+ exited with status 1; the runner manager is not ready/);
    const aws = run.calls.filter((call) => call.name === "aws").map((call) => call.args);
    expect(aws).toContainEqual([
      "cloudwatch", "put-metric-data", "--region", "eu-west-1", "--namespace", `GitLabRunner/${model.cell.id}/${shard.name}`,
      "--metric-name", "BootFailures", "--dimensions", `Shard=${shard.name}`, "--value", "1", "--unit", "Count",
    ]);
    expect(aws).toContainEqual([
      "autoscaling", "set-instance-health", "--region", "eu-west-1", "--instance-id", "i-0123456789abcdef0",
      "--health-status", "Unhealthy", "--no-should-respect-grace-period",
    ]);
    expect(booted.exists("run/runner-fleet/boot-failed")).toBe(true);
    // Looked at (the heartbeat says whether it runs), never enabled, started or restarted.
    expect(run.calls.filter((call) => call.name === "systemctl" && call.args.includes("gitlab-runner") && call.args[0] !== "show")).toEqual([]);
  });

  it("on Google Cloud: writes a point of the boot-failures metric with the shard's labels, the token on stdin", () => {
    const model = exampleModel("cell-1");
    const shard = model.shards[0];
    const accessToken = `ya29.${randomBytes(24).toString("base64url")}`;

    const run = sandbox.run(managerPayload(model, shard, 1), { STUB_RUNNER_TOKEN: fakeRunnerToken(), STUB_ACCESS_TOKEN: accessToken, STUB_ARCH: "arm64" });

    expect(run.status).not.toBe(0);
    if (model.cloud.provider !== "google") throw new Error("cell-1 is the Google Cloud example");
    const [url, body] = sandbox.state("monitoring").trim().split(/ (.*)/s);
    expect(url).toBe(`https://monitoring.googleapis.com/v3/projects/${model.cloud.project}/timeSeries`);
    const point = JSON.parse(body).timeSeries[0];
    expect(point.metric).toEqual({
      type: "custom.googleapis.com/runner_fleet/boot_failures",
      labels: { gitlab_cell: model.cell.id, runner_shard: shard.name, runner_slot: "1" },
    });
    expect(point.points[0].value).toEqual({ int64Value: "1" });
    expect(run.callLog).not.toContain(accessToken);
  });

  it("clears the marker of an earlier failed boot when the next one starts", () => {
    const model = exampleModel("cell-2");
    // The VM after the failed boot above (booted once per file and copied).
    const failed = firstBoot(managerPayload(model, model.shards[0], 0), { STUB_ARCH: "arm64" });
    expect(failed.first.status).not.toBe(0);
    sandbox.copyFrom(failed.sandbox);
    expect(sandbox.exists("run/runner-fleet/boot-failed")).toBe(true);

    expectSucceeded(sandbox.run(managerPayload(model, model.shards[0], 0), { STUB_RUNNER_TOKEN: fakeRunnerToken() }));

    expect(sandbox.exists("run/runner-fleet/boot-failed")).toBe(false);
  });
});

describe("a manager behind a private CA and a corporate proxy", () => {
  const caDir = mkdtempSync(join(tmpdir(), "runner-fleet-ca-"));
  const pem = "-----BEGIN CERTIFICATE-----\nMIIBprivate\n-----END CERTIFICATE-----\n";
  writeFileSync(join(caDir, "gitlab-ca.pem"), pem);
  const model = modelWith("cell-2", (draft) => {
    draft.gitlab.ca_file = join(caDir, "gitlab-ca.pem");
    draft.gitlab.proxy = { https: "http://proxy.corp:3128", no_proxy: [".corp.example"] };
  });

  it("writes the CA and the proxy drop-ins before anything starts, and asks GitLab for the runner ID through that CA", () => {
    const run = sandbox.run(managerPayload(model, model.shards[0], 0), { STUB_RUNNER_TOKEN: fakeRunnerToken() });

    expectSucceeded(run);
    expect(sandbox.file("etc/gitlab-runner/certs/gitlab-ca.crt")).toBe(pem);
    expect(sandbox.file("etc/systemd/system/gitlab-runner.service.d/proxy.conf")).toContain('Environment="HTTPS_PROXY=http://proxy.corp:3128"');
    expect(sandbox.file("etc/systemd/system/docker.service.d/proxy.conf")).toContain("169.254.169.254");
    expect(sandbox.file("etc/apt/apt.conf.d/95runner-fleet-proxy")).toContain('Acquire::https::Proxy "http://proxy.corp:3128";');
    const verify = run.calls.find((call) => call.name === "curl" && call.args.some((arg) => arg.endsWith("/api/v4/runners/verify")));
    expect(verify?.args).toEqual(expect.arrayContaining(["--cacert", `${sandbox.root}/etc/gitlab-runner/certs/gitlab-ca.crt`]));
    const firstApt = run.calls.findIndex((call) => call.name === "apt-get");
    expect(firstApt).toBeGreaterThan(-1);
  });
});
