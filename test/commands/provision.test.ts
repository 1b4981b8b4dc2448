import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeGitLab } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { FAKE_ENGINE_SETTINGS_PASS, pathWithFakeEngines, type FakeCall, readFakeCalls } from "../support/fake-terraform-workspace";
import { REPO_ROOT, runBin, runInProcess, STACK_TRACE_LINE } from "../support/cli";
import { MODELS_DIR } from "../support/models";

const TOKEN_SHAPED = /gl(rt|pat)-[A-Za-z0-9_-]{20,}/;

// A process where one is the point (a dry run with no credentials, a refused model's exit 2); the other
// runs go through the same command line and error handler in this process, as a process costs ~0.3 CPU-s.
describe("bin/provision --dry-run", () => {
  let out: string;
  beforeEach(() => {
    out = mkdtempSync(join(tmpdir(), "provision-dry-"));
  });
  afterEach(() => rmSync(out, { recursive: true, force: true }));

  it.each([
    ["cell-1.yaml", "google_compute_instance_group_manager", 4, ["small-amd64", "large-amd64"], "a process"],
    ["cell-2.yaml", "aws_autoscaling_group", 2, ["spot-amd64"], "this process"],
  ])("synthesizes %s and summarizes what would be created, with no credentials (%s)", async (model, groupType, slots, shards, where) => {
    // GIVEN no GitLab token and no engine on PATH
    const env = { PATH: `${join(process.execPath, "..")}:/usr/bin:/bin`, HOME: out };
    const args = ["--model", model, "--dry-run", "--out", join(out, "cdktf.out"), "--json"];
    const result = where === "a process" ? runBin("provision", args, { env }) : await runInProcess("provision", args, { cwd: REPO_ROOT, env });

    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.mode).toBe("dry-run");
    const [cell] = report.cells;
    expect(cell.outcome).toBe("dry-run");
    expect(cell.onboarded).toBe(false);
    // Every manager slot has its own group and so does its worker group: 2 per slot.
    const groups = cell.summary.changes.byType.find((entry: { type: string }) => entry.type === groupType);
    expect(groups.counts.add).toBe(slots * 2);
    expect(cell.summary.changes.counts.destroy).toBe(0);
    expect(cell.summary.changes.byShard.map((entry: { shard: string | null }) => entry.shard)).toEqual(expect.arrayContaining(shards));
    expect(existsSync(join(out, "cdktf.out", "stacks", model.replace(".yaml", ""), "cdk.tf.json"))).toBe(true);
    expect(result.stdout + result.stderr).not.toMatch(TOKEN_SHAPED);
  });

  it("prints a human summary with capacity", async () => {
    const result = await runInProcess("provision", ["--model", "cell-2", "--dry-run", "--out", join(out, "cdktf.out")], { cwd: REPO_ROOT, env: process.env });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Capacity");
    expect(result.stdout).toContain("spot-amd64");
    expect(result.stdout).toContain("cell-2: dry run: nothing was created");
  });

  it("fails when the model is invalid, with exit 2 and nothing synthesized", () => {
    const models = join(out, "models");
    mkdirSync(models);
    writeFileSync(join(models, "cell-1.yaml"), readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8").replace("max_instances: 60", "max_instances: -1"));
    const result = runBin("provision", ["--model", "cell-1", "--models-dir", models, "--dry-run", "--out", join(out, "cdktf.out")]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/cell-1\.yaml:\d+:\d+: shards\[0\]\.workers\.max_instances/);
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(existsSync(join(out, "cdktf.out"))).toBe(false);
  });

  it("fails when no model is named, with exit 2", async () => {
    const result = await runInProcess("provision", ["--dry-run"], { cwd: REPO_ROOT, env: process.env });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--model");
  });
});

describe("provision (in process) against fake GitLab and a stand-in terraform", () => {
  const gitlab = useFakeGitLab();
  let fake: FakeGitLab;
  let root: string;
  let modelsDir: string;
  let secretsDir: string;
  let callLog: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    fake = gitlab.fake;
    root = mkdtempSync(join(tmpdir(), "provision-"));
    modelsDir = join(root, "models");
    secretsDir = join(root, "secrets");
    callLog = join(root, "terraform-calls.jsonl");
    mkdirSync(modelsDir);
    // cell-1 pointed at the fake, with local state and the local secret store
    const text = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8")
      .replace("https://cell-1.gitlab.example.com", fake.url)
      .replace(/state:\n(  .*\n)+/, "state:\n  backend: local\n")
      .replace("store: google-secret-manager", `store: local\n  local_dir: ${secretsDir}`);
    writeFileSync(join(modelsDir, "cell-1.yaml"), text);
    env = {
      PATH: `${pathWithFakeEngines(["terraform"])}:/usr/bin:/bin`,
      HOME: root,
      GITLAB_TOKEN: fake.adminToken,
      FAKE_TF_LOG: callLog,
      ...FAKE_ENGINE_SETTINGS_PASS,
    };
  });
  afterEach(async () => {
    rmSync(root, { recursive: true, force: true });
  });

  const provision = (args: string[], extraEnv: Record<string, string> = {}) =>
    runInProcess("provision", ["--model", "cell-1", "--models-dir", modelsDir, "--out", join(root, "cdktf.out"), ...args], {
      cwd: root,
      env: { ...env, ...extraEnv },
    });
  const engineCalls = (): FakeCall[] => readFakeCalls(callLog);
  const steps = () => engineCalls().map((call) => call.argv![0]).filter((step) => step !== "version");
  const storedTokens = () => readdirSync(secretsDir).map((name) => JSON.parse(readFileSync(join(secretsDir, name), "utf8")).token as string);

  it("onboards, then inits, plans, shows and applies exactly the saved plan", async () => {
    const result = await provision(["--auto-approve", "--json"]);

    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(result.status).toBe(0);
    // one runner per shard, tokens in the local store only
    expect(fake.runners.size).toBe(2);
    const tokens = storedTokens();
    expect(tokens).toHaveLength(2);
    for (const name of readdirSync(secretsDir)) expect(statSync(join(secretsDir, name)).mode & 0o777).toBe(0o600);

    const stackDir = join(root, "cdktf.out", "stacks", "cell-1");
    expect(steps()).toEqual(["init", "plan", "show", "apply"]);
    const [init, plan, show, apply] = engineCalls().filter((call) => call.argv![0] !== "version");
    for (const call of [init, plan, show, apply]) expect(call.cwd).toBe(stackDir);
    const planFile = join(stackDir, "cell-1.tfplan");
    expect(plan.argv).toContain(`-out=${planFile}`);
    expect(show.argv).toEqual(expect.arrayContaining(["-json", planFile]));
    expect(apply.argv![apply.argv!.length - 1]).toBe(planFile);

    const report = JSON.parse(result.stdout);
    expect(report.cells[0]).toMatchObject({ cell: "cell-1", outcome: "applied", onboarded: true });
    // no token anywhere it was printed
    for (const token of [...tokens, fake.adminToken]) expect(result.stdout + result.stderr).not.toContain(token);
  });

  it("warns after an AWS apply about alert e-mail subscriptions still pending confirmation (aws CLI stand-in)", async () => {
    // GIVEN cell-2 with local state and store, and an `aws` that lists its topic's e-mail subscription as pending
    writeFileSync(
      join(modelsDir, "cell-2.yaml"),
      readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8")
        .replace("https://cell-2.gitlab.example.com", fake.url)
        .replace(/state:\n(  .*\n)+/, "state:\n  backend: local\n")
        .replace("store: aws-ssm", `store: local\n  local_dir: ${secretsDir}`),
    );
    const bin = join(root, "bin");
    mkdirSync(bin);
    const listing = { Subscriptions: [{ TopicArn: "arn:aws:sns:eu-west-1:123456789012:cell-2-runner-alerts", Protocol: "email", Endpoint: "runner-oncall@example.com", SubscriptionArn: "PendingConfirmation" }] };
    writeFileSync(join(bin, "aws"), `#!/bin/sh\necho "$@" >> ${join(root, "aws-calls")}\ncat <<'JSON'\n${JSON.stringify(listing)}\nJSON\n`, { mode: 0o755 });
    const result = await runInProcess("provision", ["--model", "cell-2", "--models-dir", modelsDir, "--out", join(root, "cdktf.out"), "--auto-approve", "--skip-onboard"], {
      cwd: root,
      env: { ...env, PATH: `${bin}:${env.PATH}` },
    });
    expect(result.status).toBe(0);
    expect(readFileSync(join(root, "aws-calls"), "utf8").trim()).toBe("sns list-subscriptions --region eu-west-1 --output json");
    expect(result.stderr).toContain("[cell-2] warning: alarms of SNS topic cell-2-runner-alerts do not reach runner-oncall@example.com (email): the subscription is pending confirmation");
  });

  it("stops after the plan with --plan and writes the markdown summary", async () => {
    const markdown = join(root, "plan.md");
    const result = await provision(["--plan", "--skip-onboard", "--markdown", markdown]);
    expect(result.status).toBe(0);
    expect(steps()).toEqual(["init", "plan", "show"]);
    expect(fake.runners.size).toBe(0);
    expect(readFileSync(markdown, "utf8")).toContain("<!-- runner-fleet-plan:cell-1 -->");
  });

  it("fails when a step fails, with exit 1 naming the step, and applies nothing", async () => {
    const result = await provision(["--auto-approve", "--skip-onboard"], { FAKE_TF_FAIL: "plan" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/plan/);
    expect(result.stderr).toContain("cell-1");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(steps()).toEqual(["init", "plan"]);
  });

  it("fails when it would apply with nobody to confirm, keeping the plan (exit 2)", async () => {
    const result = await provision(["--skip-onboard"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--auto-approve");
    expect(steps()).toEqual(["init", "plan", "show"]);
    expect(existsSync(join(root, "cdktf.out", "stacks", "cell-1", "cell-1.tfplan"))).toBe(true);
  });

  it("does not apply when the plan has no changes", async () => {
    const result = await provision(["--auto-approve", "--skip-onboard", "--json"], { FAKE_TF_NO_CHANGES: "1" });
    expect(result.status).toBe(0);
    expect(steps()).toEqual(["init", "plan", "show"]);
    expect(JSON.parse(result.stdout).cells[0].outcome).toBe("no-changes");
  });

  it("destroys the cell, then removes its runners and their secrets", async () => {
    expect((await provision(["--auto-approve"])).status).toBe(0);
    expect(fake.runners.size).toBe(2);
    rmSync(callLog);

    const result = await provision(["--destroy", "--auto-approve", "--json"]);
    expect(result.status).toBe(0);
    const plan = engineCalls().find((call) => call.argv![0] === "plan")!;
    expect(plan.argv).toContain("-destroy");
    expect(steps()).toEqual(["init", "plan", "show", "apply"]);
    expect(fake.runners.size).toBe(0);
    expect(readdirSync(secretsDir)).toEqual([]);
    expect(JSON.parse(result.stdout).cells[0]).toMatchObject({ outcome: "applied", runnersRemoved: true });
  });

  it("fails when onboarding fails, with exit 1 and nothing applied", async () => {
    const wrongToken = `glpat-${randomBytes(15).toString("base64url")}`;
    const result = await provision(["--auto-approve"], { GITLAB_TOKEN: wrongToken });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("onboarding");
    expect(result.stderr).not.toContain(wrongToken);
    expect(steps()).toEqual(["init", "plan", "show"]);
  });
});

describe("provision (in process): side effects come last", () => {
  const gitlab = useFakeGitLab();
  let fake: FakeGitLab;
  let root: string;
  let modelsDir: string;
  let callLog: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(async () => {
    fake = gitlab.fake;
    root = mkdtempSync(join(tmpdir(), "provision-order-"));
    modelsDir = join(root, "models");
    callLog = join(root, "terraform-calls.jsonl");
    mkdirSync(modelsDir);
    const text = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8")
      .replace("https://cell-1.gitlab.example.com", fake.url)
      .replace(/state:\n(  .*\n)+/, "state:\n  backend: local\n")
      .replace("store: google-secret-manager", `store: local\n  local_dir: ${join(root, "secrets")}`);
    writeFileSync(join(modelsDir, "cell-1.yaml"), text);
    env = { PATH: `${pathWithFakeEngines(["terraform"])}:/usr/bin:/bin`, HOME: root, GITLAB_TOKEN: fake.adminToken, FAKE_TF_LOG: callLog, ...FAKE_ENGINE_SETTINGS_PASS };
  });
  afterEach(async () => {
    rmSync(root, { recursive: true, force: true });
  });

  const provision = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runInProcess("provision", ["--model", "cell-1", "--models-dir", modelsDir, "--out", join(root, "cdktf.out"), ...args], {
      cwd: root,
      env: { ...env, ...extraEnv },
    });
  const engineCalls = (): FakeCall[] => readFakeCalls(callLog);
  const steps = () => engineCalls().map((call) => call.argv![0]).filter((step) => step !== "version");

  it("fails when nobody can confirm, with exit 2 before any runner is created", async () => {
    const result = await provision([]);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--auto-approve");
    expect(result.stderr).toContain("nothing was onboarded or applied");
    expect(steps()).toEqual(["init", "plan", "show"]);
    expect(fake.writeCalls()).toEqual([]);
    expect(fake.runners.size).toBe(0);
  });

  it("fails when the plan fails (a stack the cloud refuses), with exit 1 before any runner is created", async () => {
    const result = await provision(["--auto-approve"], { FAKE_TF_FAIL: "plan" });

    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/terraform plan/);
    expect(fake.writeCalls()).toEqual([]);
    expect(fake.runners.size).toBe(0);
  });

  it("fails when there is no engine, with exit 1 before any runner is created", async () => {
    const result = await provision(["--auto-approve"], { PATH: `${pathWithFakeEngines([])}:/nonexistent` });

    expect(result.status).toBe(1);
    expect(result.stderr).toContain("no usable Terraform engine");
    expect(fake.requests).toEqual([]);
    expect(fake.runners.size).toBe(0);
  });

  it("onboards only after the plan was confirmed, and applies after onboarding", async () => {
    // The engine's apply fails: by then the runners exist, so onboarding came before apply and after plan.
    const result = await provision(["--auto-approve"], { FAKE_TF_FAIL: "apply" });

    expect(result.status).toBe(1);
    expect(steps()).toEqual(["init", "plan", "show", "apply"]);
    expect(fake.runners.size).toBe(2);
    expect(result.stderr.indexOf("onboarding runners")).toBeGreaterThan(result.stderr.indexOf("terraform show"));
    expect(result.stderr.indexOf("onboarding runners")).toBeLessThan(result.stderr.indexOf("terraform apply"));
  });

  it("plans with --plan without an admin token and sends nothing to GitLab", async () => {
    const result = await provision(["--plan", "--json"], { GITLAB_TOKEN: undefined });

    expect(result.status).toBe(0);
    expect(steps()).toEqual(["init", "plan", "show"]);
    expect(fake.requests).toEqual([]);
    expect(JSON.parse(result.stdout).cells[0]).toMatchObject({ outcome: "planned", onboarded: false });
  });

  it("keeps the GitLab tokens out of the engine's environment and scrubs known secrets from its output", async () => {
    // Secrets without a recognizable prefix: only redaction by value can catch them.
    const reviewToken = randomBytes(20).toString("hex");
    const cloudSecret = randomBytes(20).toString("hex");
    const stateishSecret = randomBytes(20).toString("hex");
    const result = await provision(["--auto-approve"], {
      GITLAB_REVIEW_TOKEN: reviewToken,
      AWS_SECRET_ACCESS_KEY: cloudSecret,
      DEPLOY_PASSWORD: stateishSecret,
      FAKE_TF_ECHO_ENV: "GITLAB_TOKEN,GITLAB_REVIEW_TOKEN,AWS_SECRET_ACCESS_KEY",
      FAKE_TF_ECHO: `leaked ${stateishSecret} and ${reviewToken}`,
    });

    expect(result.status).toBe(0);
    const engineRuns = engineCalls().filter((call) => call.envNames && call.argv![0] !== "version");
    expect(engineRuns.length).toBeGreaterThan(3);
    for (const call of engineRuns) {
      expect(call.envNames).not.toContain("GITLAB_TOKEN");
      expect(call.envNames).not.toContain("GITLAB_REVIEW_TOKEN");
      expect(call.envNames).not.toContain("DEPLOY_PASSWORD");
      // what the engine needs still reaches it
      expect(call.envNames).toEqual(expect.arrayContaining(["PATH", "HOME", "AWS_SECRET_ACCESS_KEY", "TF_IN_AUTOMATION"]));
    }
    expect(result.stderr).toContain("GITLAB_TOKEN is unset");
    expect(result.stderr).toContain("AWS_SECRET_ACCESS_KEY=");
    const output = result.stdout + result.stderr;
    for (const secret of [fake.adminToken, reviewToken, cloudSecret, stateishSecret]) expect(output).not.toContain(secret);
  });
});

describe("provision --plan --post", () => {
  const fixture = useFakeGitLab();

  it("keeps one note per cell on the merge request: created, then updated", async () => {
    const gitlab = fixture.fake;
    gitlab.mergeRequests.addMergeRequest("42", 7);
    const token = gitlab.adminToken;
    const root = mkdtempSync(join(tmpdir(), "provision-post-"));
    try {
      const env = {
        PATH: `${pathWithFakeEngines(["terraform"])}:/usr/bin:/bin`,
        HOME: root,
        CI_SERVER_URL: gitlab.url,
        CI_PROJECT_ID: "42",
        CI_MERGE_REQUEST_IID: "7",
        GITLAB_REVIEW_TOKEN: token,
      };
      const args = ["--model", "cell-2", "--models-dir", MODELS_DIR, "--plan", "--skip-onboard", "--post", "--out", join(root, "cdktf.out"), "--json"];
      const first = await runInProcess("provision", args, { cwd: root, env });
      const second = await runInProcess("provision", args, { cwd: root, env });

      expect([first.status, second.status]).toEqual([0, 0]);
      expect([JSON.parse(first.stdout).cells[0].note.action, JSON.parse(second.stdout).cells[0].note.action]).toEqual(["created", "updated"]);
      const notes = gitlab.mergeRequests.notes("42", 7);
      expect(notes).toHaveLength(1);
      expect(notes[0].body).toContain("<!-- runner-fleet-plan:cell-2 -->");
      expect(first.stdout + first.stderr + second.stderr).not.toContain(token);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("fails when the merge request variables are missing, with exit 2 before any engine step", async () => {
    const result = await runInProcess("provision", ["--model", "cell-2", "--plan", "--skip-onboard", "--post"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: tmpdir() },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("CI_MERGE_REQUEST_IID");
  });
});
