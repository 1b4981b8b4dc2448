/**
 * What a VM downloads at boot (docs/security.md, "What a VM downloads at boot"): the rendered payloads run no
 * downloaded script, name no `latest/` download, and check what they install against pinned keys; a download
 * that does not verify fails the boot and is reported like any failed boot. Run against the stub commands of
 * ./support (their gpg and gpgv stand in for GnuPG's: a key file lists its fingerprints, a signature names
 * the key that made it).
 */
import { randomBytes } from "node:crypto";
import { renderWorkerStartupScript } from "../../lib/render/manager-files";
import { exampleModel } from "../support/models";
import { expectSucceeded, managerPayload, ScriptSandbox } from "./support/script-sandbox";
import { firstBoot } from "./support/shared-boots";

const GITLAB_KEY = "F6403F6544A38863DAA0B6E03F01618A51312F3F";
const CLOUDWATCH_KEY = "937616F3450B7D806CBD9725D58167303B789C72";
const OTHER_KEY = "0123456789ABCDEF0123456789ABCDEF01234567";

let sandbox: ScriptSandbox;
beforeEach(() => {
  sandbox = new ScriptSandbox();
});
afterEach(() => {
  sandbox.dispose();
});

const bootEnv = () => ({
  STUB_RUNNER_TOKEN: `glrt-t1_${randomBytes(15).toString("base64url")}`,
  STUB_ACCESS_TOKEN: `ya29.${randomBytes(24).toString("base64url")}`,
});

/** Every payload of both examples: each manager slot and the worker of each shard. */
const payloads = (["cell-1", "cell-2"] as const).flatMap((name) => {
  const model = exampleModel(name);
  return model.shards.flatMap((shard) => [
    ...Array.from({ length: shard.managers.count }, (_, slot) => ({ label: `${name}/${shard.name}/manager-${slot}`, text: managerPayload(model, shard, slot) })),
    { label: `${name}/${shard.name}/worker`, text: renderWorkerStartupScript(model, shard) },
  ]);
});

describe("the rendered boot payloads", () => {
  it.each(payloads)("$label pipes nothing into a shell, runs no downloaded script and names no latest/ download", ({ text: payload }) => {
    // The commands, not the comments (which cite documentation pages such as docs.aws.amazon.com/.../latest/...).
    const text = payload.split("\n").filter((line) => !/^\s*#/.test(line)).join("\n");
    expect(text).not.toMatch(/\|\s*(sudo\s+)?(ba)?sh\b/);
    expect(text).not.toMatch(/\bbash\s+"\$(setup|script)"/);
    expect(text).not.toMatch(/https?:\/\/\S*script\.(deb|rpm)\.sh/);
    expect(text).not.toMatch(/https?:\/\/\S*add-google-cloud-ops-agent-repo\.sh/);
    // EC2's instance metadata API is versioned "latest" (169.254.169.254/latest/...): that is no download.
    expect(text).not.toMatch(/https?:\/\/(?!169\.254\.169\.254\/)\S*\/latest\//);
  });

  it.each(payloads.filter((payload) => payload.label.includes("manager")))("$label pins what it installs: GitLab's repository key, the agents' versions", ({ label, text }) => {
    expect(text).toContain(`GITLAB_REPOSITORY_KEY_FINGERPRINT=${GITLAB_KEY}`);
    expect(text).toContain("deb [signed-by=${GITLAB_REPOSITORY_KEYRING}] https://packages.gitlab.com/runner/gitlab-runner/");
    if (label.startsWith("cell-2")) {
      expect(text).toContain(`CLOUDWATCH_AGENT_KEY_FINGERPRINT=${CLOUDWATCH_KEY}`);
      expect(text).toMatch(/CLOUDWATCH_AGENT_VERSION=\d+\.\d+\.\d+\n/);
      expect(text).toContain('gpgv --keyring "${work}/agent.gpg"');
    } else {
      expect(text).toMatch(/OPS_AGENT_VERSION=\d+\.\d+\.\d+\n/);
      expect(text).toContain('"google-cloud-ops-agent=${OPS_AGENT_VERSION}~${OS_ID}${OS_VERSION_ID}"');
    }
  });
});

describe("a manager's first boot", () => {
  it("adds GitLab's repository with the pinned key alone, then installs the runner from it", () => {
    const model = exampleModel("cell-1");
    const { sandbox: booted, first: run } = firstBoot(managerPayload(model, model.shards[0], 0));

    expectSucceeded(run);
    expect(booted.file("usr/share/keyrings/runner_gitlab-runner-archive-keyring.gpg")).toBe(`keyring-of ${GITLAB_KEY}\n`);
    expect(booted.file("etc/apt/sources.list.d/runner_gitlab-runner.list")).toBe(
      "deb [signed-by=/usr/share/keyrings/runner_gitlab-runner-archive-keyring.gpg] https://packages.gitlab.com/runner/gitlab-runner/ubuntu/ noble main\n",
    );
    const key = run.calls.findIndex((call) => call.name === "curl" && call.args.includes("https://packages.gitlab.com/runner/gitlab-runner/gpgkey"));
    const install = run.calls.findIndex((call) => call.name === "apt-get" && call.args.includes("gitlab-runner=19.5.0-1"));
    expect(key).toBeGreaterThan(-1);
    expect(install).toBeGreaterThan(key);
    // The Ops Agent at its pinned version, from the repository of its major version, held there.
    expect(booted.file("etc/apt/sources.list.d/google-cloud-ops-agent.list")).toBe(
      "deb [signed-by=/usr/share/keyrings/google-cloud-ops-agent-archive-keyring.gpg] https://packages.cloud.google.com/apt google-cloud-ops-agent-noble-2 main\n",
    );
    expect(run.calls.some((call) => call.name === "apt-get" && call.args.some((arg) => /^google-cloud-ops-agent=\d+\.\d+\.\d+~ubuntu24\.04$/.test(arg)))).toBe(true);
    expect(run.calls.some((call) => call.name === "apt-mark" && call.args.join(" ") === "hold google-cloud-ops-agent")).toBe(true);
  });

  it("installs the CloudWatch agent at its pinned version once its signature verifies against the pinned key", () => {
    const model = exampleModel("cell-2");
    const { first: run } = firstBoot(managerPayload(model, model.shards[0], 0));

    expectSucceeded(run);
    const deb = run.calls.find((call) => call.name === "curl" && call.args.some((arg) => arg.endsWith("/amazon-cloudwatch-agent.deb")));
    expect(deb?.args.find((arg) => arg.startsWith("https://"))).toMatch(/^https:\/\/amazoncloudwatch-agent-eu-west-1\.s3\.eu-west-1\.amazonaws\.com\/ubuntu\/amd64\/\d+\.\d+\.\d+\/amazon-cloudwatch-agent\.deb$/);
    const verify = run.calls.findIndex((call) => call.name === "gpgv");
    const install = run.calls.findIndex((call) => call.name === "dpkg" && call.args[0] === "-i");
    expect(verify).toBeGreaterThan(-1);
    expect(install).toBeGreaterThan(verify);
  });

  it("fails when GitLab's repository key is not the pinned one: nothing is installed from it, and the failure is reported", () => {
    const model = exampleModel("cell-2");

    const run = sandbox.run(managerPayload(model, model.shards[0], 0), { ...bootEnv(), STUB_GITLAB_KEY: OTHER_KEY });

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`the key at https://packages.gitlab.com/runner/gitlab-runner/gpgkey is not ${GITLAB_KEY}: refusing it`);
    expect(run.stderr).toMatch(/FAILED: line \d+ exited with status 3; the runner manager is not ready/);
    expect(sandbox.exists("etc/apt/sources.list.d/runner_gitlab-runner.list")).toBe(false);
    expect(sandbox.exists("usr/share/keyrings/runner_gitlab-runner-archive-keyring.gpg")).toBe(false);
    expect(run.calls.some((call) => call.name === "apt-get" && call.args.includes("install"))).toBe(false);
    expect(run.calls.filter((call) => call.name === "aws").map((call) => call.args.slice(0, 2))).toContainEqual(["autoscaling", "set-instance-health"]);
    expect(sandbox.exists("run/runner-fleet/boot-failed")).toBe(true);
  });

  it.each([
    ["a key other than AWS's", { STUB_CLOUDWATCH_KEY: OTHER_KEY }],
    ["a package signed by another key", { STUB_CLOUDWATCH_SIGNER: OTHER_KEY }],
  ])("fails when the CloudWatch agent comes with %s: it is not installed, no retry, and the boot failure is reported", (_case, env) => {
    const model = exampleModel("cell-2");

    const run = sandbox.run(managerPayload(model, model.shards[0], 0), { ...bootEnv(), ...env });

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("the monitoring agent's download did not verify: not running it");
    expect(run.stderr).toMatch(/FAILED: line \d+ exited with status 3; the runner manager is not ready/);
    expect(run.stderr).not.toContain("attempt 2/3");
    expect(run.calls.some((call) => call.name === "dpkg" && call.args[0] === "-i")).toBe(false);
    const aws = run.calls.filter((call) => call.name === "aws").map((call) => call.args);
    expect(aws.some((args) => args.includes("BootFailures"))).toBe(true);
    expect(aws.some((args) => args.includes("set-instance-health"))).toBe(true);
  });
});

describe("a worker's boot", () => {
  it("keeps job containers off the metadata server (DOCKER-USER), once, before it says it is ready", () => {
    const model = exampleModel("cell-1");
    const payload = renderWorkerStartupScript(model, model.shards[0]);

    const first = sandbox.run(payload);
    const second = sandbox.run(payload);

    expectSucceeded(first);
    expectSucceeded(second);
    const inserts = [...first.calls, ...second.calls].filter((call) => call.name === "iptables" && call.args[0] === "-I");
    expect(inserts.map((call) => call.args)).toEqual([["-I", "DOCKER-USER", "-d", "169.254.169.254/32", "-j", "REJECT"]]);
    const dockerStarted = first.calls.findIndex((call) => call.name === "systemctl" && call.args.includes("docker.service") && call.args.includes("--now"));
    expect(first.calls.findIndex((call) => call.name === "iptables")).toBeGreaterThan(dockerStarted);
  });

  it("fails when iptables is missing, and never says it is ready", () => {
    const model = exampleModel("cell-1");
    sandbox.removeStub("iptables");

    const run = sandbox.run(renderWorkerStartupScript(model, model.shards[0]));

    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("iptables is missing: job containers could reach the metadata server");
    expect(sandbox.exists("run/runner-fleet/worker-ready")).toBe(false);
  });
});
