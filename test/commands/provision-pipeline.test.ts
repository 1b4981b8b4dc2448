/**
 * provision's pipeline features against fake GitLab and the terraform stand-in:
 * GitLab's Terraform report, the inputs record beside a saved plan and --apply-plan,
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

  describe("the reviewed plan (--apply-plan)", () => {
    // The merge request's plan of cell-1 (--plan into reviewed/), made once: each test copies it in.
    let mergeRequestPlan: { result: CliResult; files: string };
    beforeAll(async () => {
      startAfresh();
      const result = await provision(["--model", "cell-1", "--plan", "--skip-onboard"], { CI_COMMIT_SHA: "a".repeat(40) }, "reviewed");
      const files = mkdtempSync(join(tmpdir(), "provision-pipeline-reviewed-"));
      cpSync(join(root, "reviewed"), files, { recursive: true });
      mergeRequestPlan = { result, files };
    });
    afterAll(() => rmSync(mergeRequestPlan.files, { recursive: true, force: true }));
    const reviewedPlan = () => {
      expect(mergeRequestPlan.result.status).toBe(0);
      cpSync(mergeRequestPlan.files, join(root, "reviewed"), { recursive: true });
    };

    it("keeps an inputs record beside every saved plan", async () => {
      reviewedPlan();
      const inputs = JSON.parse(readFileSync(`${savedPlan("reviewed")}.inputs.json`, "utf8"));
      expect(inputs).toMatchObject({ format: 1, cell: "cell-1", engine: "terraform", engineVersion: "1.11.4", commit: "a".repeat(40) });
      expect(inputs.digest).toMatch(/^[0-9a-f]{64}$/);
    });

    it("applies the reviewed plan itself when nothing it was made from changed, without planning again", async () => {
      reviewedPlan();

      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--apply-plan", savedPlan("reviewed"), "--json"]);
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(result.status).toBe(0);
      expect(steps()).toEqual(["init", "show", "apply"]);
      expect(call("apply").argv!.at(-1)).toBe(savedPlan("reviewed"));
      expect(result.stderr).toContain("applying the reviewed plan");
      // The reviewed plan's summary is shown in the job log before it is applied.
      expect(result.stderr).toMatch(/cell-1/);
      expect(JSON.parse(result.stdout).cells[0]).toMatchObject({ outcome: "applied", reviewedPlan: { applied: true } });
    });

    it("refuses a plan whose inputs changed since (exit 2), and applies nothing", async () => {
      reviewedPlan();
      writeModel("cell-1", "state:\n  backend: local\n", 61);

      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--apply-plan", savedPlan("reviewed")]);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(/refusing to apply .*cell-1\.tfplan to cell cell-1: its inputs changed since it was planned/);
      expect(result.stderr).toContain("--replan-if-stale");
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(steps()).not.toContain("apply");
      expect(steps()).not.toContain("plan");
    });

    it("with --replan-if-stale, plans again, shows that plan, and applies it instead", async () => {
      reviewedPlan();
      writeModel("cell-1", "state:\n  backend: local\n", 61);

      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--apply-plan", savedPlan("reviewed"), "--replan-if-stale", "--json"]);
      expect(result.status).toBe(0);
      expect(steps()).toEqual(["init", "plan", "show", "apply"]);
      expect(call("apply").argv!.at(-1)).toBe(savedPlan("cdktf.out"));
      expect(result.stderr).toContain("not applying the reviewed plan: its inputs changed");
      expect(JSON.parse(result.stdout).cells[0].reviewedPlan).toMatchObject({ applied: false, reason: expect.stringContaining("inputs changed") });
    });

    it("with --replan-if-stale, plans when the merge request's plan could not be fetched", async () => {
      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--apply-plan", join(root, "missing", "cell-1.tfplan"), "--replan-if-stale"]);
      expect(result.status).toBe(0);
      expect(result.stderr).toContain("there is no saved plan at");
      expect(steps()).toEqual(["init", "plan", "show", "apply"]);
    });

    it("with --replan-if-stale, plans again when the engine finds the reviewed plan stale against the state", async () => {
      reviewedPlan();

      const result = await provision(
        ["--model", "cell-1", "--auto-approve", "--skip-onboard", "--apply-plan", savedPlan("reviewed"), "--replan-if-stale", "--json"],
        { FAKE_TF_STALE_PLAN: savedPlan("reviewed") },
      );
      expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
      expect(result.status).toBe(0);
      expect(steps()).toEqual(["init", "show", "apply", "init", "plan", "show", "apply"]);
      expect(engineCalls().filter((entry) => entry.argv![0] === "apply").map((entry) => entry.argv!.at(-1))).toEqual([savedPlan("reviewed"), savedPlan("cdktf.out")]);
      expect(result.stderr).toContain("the state changed since it was planned");
      expect(JSON.parse(result.stdout).cells[0]).toMatchObject({ outcome: "applied", reviewedPlan: { applied: false } });
    });

    it("without --replan-if-stale, a reviewed plan the engine finds stale fails the apply (exit 1)", async () => {
      reviewedPlan();
      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--apply-plan", savedPlan("reviewed")], {
        FAKE_TF_STALE_PLAN: savedPlan("reviewed"),
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("Saved plan is stale");
    });

    it("refuses a plan made for another cell", async () => {
      writeModel("cell-3");
      expect((await provision(["--model", "cell-3", "--plan", "--skip-onboard"], {}, "reviewed")).status).toBe(0);
      const result = await provision(["--model", "cell-1", "--auto-approve", "--skip-onboard", "--apply-plan", join(root, "reviewed", "stacks", "cell-3", "cell-3.tfplan")]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain("the plan was made for cell cell-3");
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
