/**
 * provision's pipeline features against fake GitLab and the terraform stand-in:
 * GitLab's Terraform report, the inputs record beside a saved plan and --reviewed-plan,
 * --drift (exit 3), -lock-timeout, and local state refused under CI=true.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeGitLab, type FakeRunnersState } from "../support/fake-gitlab";
import { pathWithFakeEngines, type FakeCall, readFakeCalls } from "../support/fake-terraform-workspace";
import { runInProcess, STACK_TRACE_LINE, type CliResult } from "../support/cli";
import { MODELS_DIR } from "../support/models";

describe("provision (in process) in pipelines", () => {
  // One fake GitLab and one root directory for the file: every test's stack is then the same (the
  // GitLab URL and the root's paths are in it), so the merge request's plan, made once, is the one
  // each test that applies it would have made (see "the reviewed plan"). Each test starts from an
  // empty root holding cell-1's model, and a GitLab with no runner and no request seen.
  let fake: FakeGitLab;
  let noRunners: FakeRunnersState;
  let root: string;
  let modelsDir: string;
  let callLog: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    fake = new FakeGitLab();
    await fake.start();
    noRunners = fake.saveRunners();
    root = mkdtempSync(join(tmpdir(), "provision-pipeline-"));
    modelsDir = join(root, "models");
    callLog = join(root, "terraform-calls.jsonl");
  });
  afterAll(async () => {
    await fake.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** cell-1 pointed at the fake GitLab, with the local secret store and the given state section. */
  const writeModel = (cell: string, state = "state:\n  backend: local\n", concurrent?: number) => {
    let text = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8")
      .replace("https://cell-1.gitlab.example.com", fake.url)
      .replace(/state:\n(  .*\n)+/, state)
      .replace("store: google-secret-manager", `store: local\n  local_dir: ${join(root, "secrets")}`)
      .replace(/\bcell-1\b/g, cell);
    if (concurrent !== undefined) text = text.replace(/concurrent: \d+/, `concurrent: ${concurrent}`);
    writeFileSync(join(modelsDir, `${cell}.yaml`), text);
  };

  const startAfresh = () => {
    fake.restoreRunners(noRunners);
    fake.requests.length = 0;
    rmSync(root, { recursive: true, force: true });
    mkdirSync(modelsDir, { recursive: true });
    writeModel("cell-1");
    // The engine gets an allowlisted environment: the stand-in's settings are passed by name.
    env = { PATH: `${pathWithFakeEngines(["terraform"])}:/usr/bin:/bin`, HOME: root, GITLAB_TOKEN: fake.adminToken, FAKE_TF_LOG: callLog, RUNNER_FLEET_ENGINE_ENV: "FAKE_TF_*" };
  };
  beforeEach(startAfresh);

  const provision = (args: string[], extraEnv: Record<string, string> = {}, out = "cdktf.out") =>
    runInProcess("provision", ["--models-dir", modelsDir, "--out", join(root, out), ...args], { cwd: root, env: { ...env, ...extraEnv } });
  const engineCalls = (): FakeCall[] => readFakeCalls(callLog);
  const steps = () => engineCalls().map((call) => call.argv![0]).filter((step) => step !== "version");
  const call = (step: string) => engineCalls().find((entry) => entry.argv![0] === step)!;
  const savedPlan = (out: string) => join(root, out, "stacks", "cell-1", "cell-1.tfplan");

  describe("--terraform-report", () => {
    it("writes the counts GitLab's widget reads, from the plan the engine printed", async () => {
      const report = join(root, "plan.tfreport.json");
      const result = await provision(["--model", "cell-1", "--plan", "--skip-onboard", "--terraform-report", report]);
      expect(result.status).toBe(0);
      const written = JSON.parse(readFileSync(report, "utf8"));
      expect(Object.keys(written)).toEqual(["create", "update", "delete"]);
      // The fixture the stand-in prints (plan-cell-1.json) has 21 create, 5 update and 3 delete
      // actions (replacements count as both), 7 no-ops and 1 data source read.
      expect(written).toEqual({ create: 21, update: 5, delete: 3 });
    });

    it("reports zeros when the plan changes nothing", async () => {
      const report = join(root, "plan.tfreport.json");
      const result = await provision(["--model", "cell-1", "--plan", "--skip-onboard", "--terraform-report", report], { FAKE_TF_NO_CHANGES: "1" });
      expect(result.status).toBe(0);
      expect(JSON.parse(readFileSync(report, "utf8"))).toEqual({ create: 0, update: 0, delete: 0 });
    });
  });

  describe("the reviewed plan (--reviewed-plan)", () => {
    // The merge request's plan of cell-1 (--plan into reviewed/), made once: each test copies it in.
    // The forged one is made the same way from a plan with one resource more (an IAM binding), as a
    // merge request's job whose code its author changed would make it.
    let mergeRequestPlan: { result: CliResult; files: string };
    let forgedPlan: { result: CliResult; files: string };
    beforeAll(async () => {
      const made = async (extraEnv: Record<string, string>) => {
        startAfresh();
        const result = await provision(["--model", "cell-1", "--plan", "--skip-onboard"], { CI_COMMIT_SHA: "a".repeat(40), ...extraEnv }, "reviewed");
        const files = mkdtempSync(join(tmpdir(), "provision-pipeline-reviewed-"));
        cpSync(join(root, "reviewed"), files, { recursive: true });
        return { result, files };
      };
      // Named, so the stand-in's saved plan shows this fixture whatever FAKE_TF_PLAN_JSON says later.
      const cleanFixture = join(__dirname, "..", "support", "fixtures", "plan-cell-1.json");
      mergeRequestPlan = await made({ FAKE_TF_PLAN_JSON: cleanFixture });
      const fixture = JSON.parse(readFileSync(cleanFixture, "utf8"));
      const binding = {
        address: "google_project_iam_member.takeover",
        mode: "managed",
        type: "google_project_iam_member",
        name: "takeover",
        change: { actions: ["create"], before: null, after: { role: "roles/owner", member: "user:attacker@example.com" }, after_unknown: { id: true }, before_sensitive: false, after_sensitive: {} },
      };
      const forgedFixture = join(mkdtempSync(join(tmpdir(), "provision-pipeline-forged-")), "plan.json");
      writeFileSync(forgedFixture, JSON.stringify({ ...fixture, resource_changes: [...fixture.resource_changes, binding] }));
      forgedPlan = await made({ FAKE_TF_PLAN_JSON: forgedFixture });
      // Shipped with the clean stack's inputs record, digest included (anyone can compute it offline).
      cpSync(`${join(mergeRequestPlan.files, "stacks", "cell-1", "cell-1.tfplan")}.inputs.json`, `${join(forgedPlan.files, "stacks", "cell-1", "cell-1.tfplan")}.inputs.json`);
    });
    afterAll(() => {
      rmSync(mergeRequestPlan.files, { recursive: true, force: true });
      rmSync(forgedPlan.files, { recursive: true, force: true });
    });
    const reviewedPlan = (made = mergeRequestPlan) => {
      expect(made.result.status).toBe(0);
      cpSync(made.files, join(root, "reviewed"), { recursive: true });
    };

    it("keeps an inputs record beside every saved plan", async () => {
      reviewedPlan();
      const inputs = JSON.parse(readFileSync(`${savedPlan("reviewed")}.inputs.json`, "utf8"));
      expect(inputs).toMatchObject({ format: 1, cell: "cell-1", engine: "terraform", engineVersion: "1.11.4", commit: "a".repeat(40) });
      expect(inputs.digest).toMatch(/^[0-9a-f]{64}$/);
    });

    it("plans again and applies its own plan when it makes the reviewed plan's changes; the reviewed file is only read", async () => {
      reviewedPlan();

      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--reviewed-plan", savedPlan("reviewed"), "--json"]);
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(result.status).toBe(0);
      expect(steps()).toEqual(["init", "plan", "show", "show", "apply"]);
      expect(engineCalls().filter((entry) => entry.argv![0] === "show").map((entry) => entry.argv!.at(-1))).toEqual([savedPlan("cdktf.out"), savedPlan("reviewed")]);
      expect(call("apply").argv!.at(-1)).toBe(savedPlan("cdktf.out"));
      expect(result.stderr).toContain("this checkout's plan makes the changes of the reviewed plan");
      expect(JSON.parse(result.stdout).cells[0]).toMatchObject({ outcome: "applied", reviewedPlan: { matched: true } });
    });

    it("fails when the reviewed plan makes other changes, naming them: nothing is onboarded or applied (exit 1)", async () => {
      reviewedPlan(forgedPlan);

      const result = await provision(["--model", "cell-1", "--auto-approve", "--reviewed-plan", savedPlan("reviewed")]);
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("this checkout's plan differs from the reviewed plan");
      expect(result.stderr).toContain("google_project_iam_member.takeover: only in the reviewed plan (create)");
      // The forged record claims the clean digest: the refusal says so, and it changes nothing.
      expect(result.stderr).toContain("Its inputs record claims this checkout's stack");
      expect(steps()).toEqual(["init", "plan", "show", "show"]);
      expect(fake.requests).toEqual([]);
    });

    it("fails when this checkout's plan makes changes the reviewed one does not (the model changed since), naming them", async () => {
      reviewedPlan(forgedPlan);
      const forgedFixture = JSON.parse(readFileSync(join(root, "reviewed", "stacks", "cell-1", "cell-1.tfplan"), "utf8")).fixture;
      // Now the checkout plans the forged fixture, and the reviewed plan is the clean one.
      reviewedPlan();
      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--reviewed-plan", savedPlan("reviewed")], { FAKE_TF_PLAN_JSON: forgedFixture });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("google_project_iam_member.takeover: only in this checkout's plan (create)");
      expect(steps()).not.toContain("apply");
    });

    it("with --allow-unreviewed, applies its own plan when there is no reviewed plan (a direct push, expired artifacts)", async () => {
      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--reviewed-plan", join(root, "missing", "cell-1.tfplan"), "--allow-unreviewed", "--json"]);
      expect(result.status).toBe(0);
      expect(result.stderr).toContain("no reviewed plan to compare with (there is no reviewed plan at");
      expect(steps()).toEqual(["init", "plan", "show", "apply"]);
      expect(JSON.parse(result.stdout).cells[0].reviewedPlan).toMatchObject({ matched: false, reason: expect.stringContaining("no reviewed plan") });
    });

    it("fails without --allow-unreviewed when there is no reviewed plan (exit 2), applying nothing", async () => {
      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--reviewed-plan", join(root, "missing", "cell-1.tfplan")]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain("--allow-unreviewed");
      expect(steps()).not.toContain("apply");
    });

    it("fails when the reviewed plan cannot be read (exit 1), applying nothing", async () => {
      reviewedPlan();
      writeFileSync(savedPlan("reviewed"), "not a plan");
      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--reviewed-plan", savedPlan("reviewed"), "--allow-unreviewed"]);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("could not be read");
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(steps()).not.toContain("apply");
    });
  });

  describe("--drift", () => {
    it("exits 3 and lists the drifted cells (several models), applying and onboarding nothing", async () => {
      writeModel("cell-3");
      const markdown = join(root, "drift.md");
      const result = await provision(["--model", "cell-1", "--model", "cell-3", "--drift", "--markdown", markdown]);
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(result.status).toBe(3);
      expect(result.stdout).toContain("cell-1: DRIFT");
      expect(result.stdout).toContain("drift in 2 of 2 cell(s): cell-1, cell-3");
      expect(steps()).toEqual(["init", "plan", "show", "init", "plan", "show"]);
      expect(call("plan").argv).toContain("-detailed-exitcode");
      expect(call("plan").argv).not.toContain("-refresh=false");
      expect(fake.runners.size).toBe(0);
      expect(readFileSync(markdown, "utf8")).toContain("cell-1");
    });

    it("exits 0 when every cell matches its model", async () => {
      const result = await provision(["--model", "cell-1", "--drift", "--json"], { FAKE_TF_NO_CHANGES: "1" });
      expect(result.status).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ mode: "drift", cells: [{ cell: "cell-1", outcome: "in-sync" }] });
    });

    it("keeps exit 3 with --json, and the JSON says which cell drifted", async () => {
      const result = await provision(["--model", "cell-1", "--drift", "--json"]);
      expect(result.status).toBe(3);
      expect(JSON.parse(result.stdout).cells[0].outcome).toBe("drifted");
    });

    it("is a plan only: refuses --auto-approve (exit 2) before any engine step", async () => {
      const result = await provision(["--model", "cell-1", "--drift", "--auto-approve"]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain("--drift only plans");
      expect(steps()).toEqual([]);
    });

    it("documents exit code 3 in --help", async () => {
      // bin/provision --help itself runs in test/commands/conventions.test.ts.
      expect((await runInProcess("provision", ["--help"])).stdout).toMatch(/3 drift found \(--drift\)/);
    });
  });

  describe("-lock-timeout", () => {
    it("makes plan and apply wait for the state lock, 5m by default", async () => {
      expect((await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard"])).status).toBe(0);
      expect(call("plan").argv).toContain("-lock-timeout=5m");
      expect(call("apply").argv).toContain("-lock-timeout=5m");
    });

    it("takes --lock-timeout, or RUNNER_LOCK_TIMEOUT from the pipeline", async () => {
      expect((await provision(["--model", "cell-1", "--plan", "--skip-onboard", "--lock-timeout", "90s"])).status).toBe(0);
      expect(call("plan").argv).toContain("-lock-timeout=90s");
      rmSync(callLog);
      expect((await provision(["--model", "cell-1", "--plan", "--skip-onboard"], { RUNNER_LOCK_TIMEOUT: "10m" })).status).toBe(0);
      expect(call("plan").argv).toContain("-lock-timeout=10m");
    });

    it("refuses a value the engine would not understand (exit 2), before any engine step", async () => {
      const result = await provision(["--model", "cell-1", "--plan", "--skip-onboard", "--lock-timeout", "five minutes"]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('got "five minutes"');
      expect(steps()).toEqual([]);
    });
  });

  describe("local state under CI=true", () => {
    it("is refused with exit 2, naming the file, line and key, before onboarding or any engine step", async () => {
      const result = await provision(["--model", "cell-1", "--auto-approve"], { CI: "true" });
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/cell-1\.yaml:\d+:\d+: state\.backend: expected a remote state backend when CI=true/);
      expect(result.stderr).toContain("lost with it");
      expect(result.stderr).toContain("--allow-local-state");
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(steps()).toEqual([]);
      expect(fake.runners.size).toBe(0);
    });

    it("is refused when the model keeps the default (local) state too", async () => {
      writeModel("cell-1", "");
      const result = await provision(["--model", "cell-1", "--plan", "--skip-onboard"], { CI: "true" });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('received "local" (the default)');
    });

    it("is accepted with --allow-local-state, and outside CI", async () => {
      expect((await provision(["--model", "cell-1", "--plan", "--skip-onboard", "--allow-local-state"], { CI: "true" })).status).toBe(0);
      expect((await provision(["--model", "cell-1", "--plan", "--skip-onboard"])).status).toBe(0);
    });

    it("does not concern --dry-run, which touches no state", async () => {
      const result = await provision(["--model", "cell-1", "--dry-run"], { CI: "true" }, "dry");
      expect(result.status).toBe(0);
    });
  });
});
