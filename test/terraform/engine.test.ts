import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OperationalError } from "../../lib/process/errors";
import { backendEnvironment } from "../../lib/terraform/backend-env";
import { EngineDriver, EngineStepError, type EngineStep } from "../../lib/terraform/engine";
import { FAKE_ENGINE_SETTINGS_PASS, FAKE_TERRAFORM, PLAN_FIXTURE, fakeEngineWorkspace, pathWithFakeEngines, type FakeEngineWorkspace } from "../support/fake-terraform-workspace";
import { modelWith } from "../support/models";

/** A runner-token-shaped string, made up at run time. */
const fakeToken = () => `glrt-${randomBytes(16).toString("hex")}`;

function driverFor(workspace: FakeEngineWorkspace, extra: Record<string, string> = {}, hooks: Partial<ConstructorParameters<typeof EngineDriver>[0]> = {}) {
  return new EngineDriver({ engine: "terraform", executable: FAKE_TERRAFORM, cwd: workspace.stackDir, env: workspace.env(extra), color: false, ...hooks });
}

describe("EngineDriver steps against the fake engine", () => {
  it("runs init non-interactively, without colors, in the stack directory", async () => {
    const workspace = fakeEngineWorkspace();
    await driverFor(workspace).init();

    const [call] = workspace.calls();
    expect(call.argv).toEqual(["init", "-input=false", "-no-color"]);
    expect(call.cwd).toBe(workspace.stackDir);
    expect(call.env?.TF_IN_AUTOMATION).toBe("1");
  });

  it("passes -reconfigure and each backend setting to init", async () => {
    const workspace = fakeEngineWorkspace();
    await driverFor(workspace).init({ reconfigure: true, backendConfig: { bucket: "acme-terraform-state", prefix: "runner-fleet/cell-1" } });

    expect(workspace.calls()[0].argv).toEqual([
      "init",
      "-input=false",
      "-no-color",
      "-reconfigure",
      "-backend-config=bucket=acme-terraform-state",
      "-backend-config=prefix=runner-fleet/cell-1",
    ]);
  });

  it("leaves colors on when asked to", async () => {
    const workspace = fakeEngineWorkspace();
    await driverFor(workspace, {}, { color: true }).init();

    expect(workspace.calls()[0].argv).toEqual(["init", "-input=false"]);
  });

  it("plans to a saved plan file in the stack directory and reports changes (exit code 2)", async () => {
    const workspace = fakeEngineWorkspace();
    const driver = driverFor(workspace);
    await driver.init();

    const result = await driver.plan({ out: "cell-1.tfplan" });

    const planFile = join(workspace.stackDir, "cell-1.tfplan");
    expect(result).toEqual({ changes: true, planFile });
    expect(existsSync(planFile)).toBe(true);
    expect(workspace.calls()[1].argv).toEqual(["plan", "-input=false", "-no-color", "-detailed-exitcode", "-lock-timeout=5m", `-out=${planFile}`]);
  });

  it("plans a destroy without refresh when asked", async () => {
    const workspace = fakeEngineWorkspace();
    const driver = driverFor(workspace);
    await driver.init();
    const planFile = join(workspace.root, "destroy.tfplan");

    await driver.plan({ out: planFile, destroy: true, refresh: false });

    expect(workspace.calls()[1].argv).toEqual(["plan", "-input=false", "-no-color", "-detailed-exitcode", "-lock-timeout=5m", `-out=${planFile}`, "-destroy", "-refresh=false"]);
  });

  it("reports no changes when the plan exits 0", async () => {
    const workspace = fakeEngineWorkspace();
    const driver = driverFor(workspace, { FAKE_TF_NO_CHANGES: "1" });
    await driver.init();

    const result = await driver.plan({ out: "cell-1.tfplan" });

    expect(result.changes).toBe(false);
  });

  it("reads the saved plan as JSON without streaming it", async () => {
    const workspace = fakeEngineWorkspace();
    const lines: string[] = [];
    const driver = driverFor(workspace, {}, { onOutput: (line) => lines.push(line) });
    await driver.init();
    const { planFile } = await driver.plan({ out: "cell-1.tfplan" });
    const streamedBefore = lines.length;

    const plan = await driver.showPlanJson(planFile);

    const fixture = JSON.parse(readFileSync(PLAN_FIXTURE, "utf8"));
    expect(workspace.calls()[2].argv).toEqual(["show", "-no-color", "-json", planFile]);
    expect(plan.format_version).toBe(fixture.format_version);
    expect(plan.resource_changes?.map((change) => change.address)).toEqual(fixture.resource_changes.map((change: { address: string }) => change.address));
    expect(lines.length).toBe(streamedBefore);
  });

  it("applies exactly the saved plan", async () => {
    const workspace = fakeEngineWorkspace();
    const driver = driverFor(workspace);
    await driver.init();
    const { planFile } = await driver.plan({ out: "cell-1.tfplan" });

    await driver.apply(planFile);

    expect(workspace.calls().map((call) => call.argv)).toEqual([
      ["init", "-input=false", "-no-color"],
      ["plan", "-input=false", "-no-color", "-detailed-exitcode", "-lock-timeout=5m", `-out=${planFile}`],
      ["apply", "-input=false", "-no-color", "-lock-timeout=5m", planFile],
    ]);
  });

  it("streams the engine's lines and reports progress with the elapsed time", async () => {
    const workspace = fakeEngineWorkspace();
    const output: Array<[string, string]> = [];
    const progress: string[] = [];
    const driver = driverFor(workspace, {}, { onOutput: (line, stream) => output.push([line, stream]), onProgress: (message) => progress.push(message) });

    await driver.init();

    expect(output).toContainEqual(["Initializing the backend...", "stdout"]);
    expect(output).toContainEqual(["Terraform has been successfully initialized!", "stdout"]);
    expect(output.findIndex(([line]) => line === "Initializing the backend...")).toBeLessThan(
      output.findIndex(([line]) => line === "Terraform has been successfully initialized!"),
    );
    expect(progress).toEqual([`terraform init in ${workspace.stackDir}...`, expect.stringMatching(/^terraform init done in \d+\.\ds$/)]);
  });

  it("redacts tokens in streamed lines", async () => {
    const workspace = fakeEngineWorkspace();
    const token = fakeToken();
    const lines: string[] = [];
    await driverFor(workspace, { FAKE_TF_ECHO: `runner token ${token}` }, { onOutput: (line) => lines.push(line) }).init();

    expect(lines.some((line) => line.startsWith("runner token glrt-"))).toBe(true);
    expect(lines.join("\n")).not.toContain(token);
  });

  it("passes GitLab-managed state credentials in the environment, never in arguments", async () => {
    const workspace = fakeEngineWorkspace();
    const password = fakeToken();
    const username = `state-user-${randomBytes(4).toString("hex")}`;
    const model = modelWith("cell-1", (m) => {
      m.state = { backend: "http", project_id: 42, username_env: "STATE_USER", password_env: "STATE_TOKEN" };
    });
    const credentials = backendEnvironment(model, { STATE_USER: username, STATE_TOKEN: password });
    const driver = driverFor(workspace, credentials);

    await driver.init();
    const { planFile } = await driver.plan({ out: "cell-1.tfplan" });
    await driver.apply(planFile);

    const calls = workspace.calls();
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call.env).toMatchObject({ TF_HTTP_USERNAME: username, TF_HTTP_PASSWORD: password });
      expect(JSON.stringify(call.argv)).not.toContain(password);
      expect(JSON.stringify(call.argv)).not.toContain(username);
    }
  });
});

describe("EngineDriver failures", () => {
  /** Runs the steps up to and including `step`, the way provision does. */
  async function runThrough(driver: EngineDriver, step: EngineStep): Promise<void> {
    await driver.init();
    if (step === "init") return;
    const { planFile } = await driver.plan({ out: "cell-1.tfplan" });
    if (step === "plan") return;
    await driver.showPlanJson(planFile);
    if (step === "show") return;
    await driver.apply(planFile);
  }

  it.each<EngineStep>(["init", "plan", "show", "apply"])("fails when %s fails, naming the step, engine, exit code, directory and the engine's error", async (step) => {
    const workspace = fakeEngineWorkspace();
    const progress: string[] = [];
    const driver = driverFor(workspace, { FAKE_TF_FAIL: step }, { onProgress: (message) => progress.push(message) });

    const error = await runThrough(driver, step).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(EngineStepError);
    expect(error).toBeInstanceOf(OperationalError);
    const failure = error as EngineStepError;
    expect(failure).toMatchObject({ step, engine: "terraform", engineExitCode: 1, cwd: workspace.stackDir, exitCode: 1 });
    expect(failure.message).toContain(`terraform ${step} failed (exit code 1) in ${workspace.stackDir}`);
    expect(failure.message).toContain(`Error: ${step} failed (FAKE_TF_FAIL)`);
    expect(progress.at(-1)).toMatch(new RegExp(`^terraform ${step} failed after \\d+\\.\\ds$`));
  });

  it("fails when plan exits 1 despite -detailed-exitcode", async () => {
    const workspace = fakeEngineWorkspace();
    // No init first: the engine refuses to plan, as the real one does.
    const error = await driverFor(workspace).plan({ out: "cell-1.tfplan" }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EngineStepError);
    expect((error as EngineStepError).message).toContain("Backend initialization required");
  });

  it("fails without leaking a token the engine printed on stderr", async () => {
    const workspace = fakeEngineWorkspace();
    const token = fakeToken();

    const error = await driverFor(workspace, { FAKE_TF_FAIL: "init", FAKE_TF_ECHO: `token=${token}` }).init().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EngineStepError);
    expect((error as EngineStepError).message).toContain("token=glrt-");
    expect((error as EngineStepError).message).not.toContain(token);
  });

  it("keeps only the last 20 lines of the engine's error output", async () => {
    const workspace = fakeEngineWorkspace();
    const error = (await driverFor(workspace, { FAKE_TF_FAIL: "init", FAKE_TF_STDERR_LINES: "40" })
      .init()
      .catch((caught: unknown) => caught)) as EngineStepError;

    expect(error.outputTail).toHaveLength(20);
    expect(error.outputTail).toContain("Error: init failed (FAKE_TF_FAIL)");
    expect(error.outputTail).toContain("progress line 40");
    expect(error.outputTail).not.toContain("progress line 25");
    expect(error.message).not.toContain("progress line 25");
  });

  it("fails when show prints something that is not a plan", async () => {
    const workspace = fakeEngineWorkspace();
    const notAPlan = join(workspace.root, "not-a-plan.json");
    writeFileSync(notAPlan, JSON.stringify({ format_version: "0.1" }));
    const driver = driverFor(workspace, { FAKE_TF_PLAN_JSON: notAPlan });
    await driver.init();
    const { planFile } = await driver.plan({ out: "cell-1.tfplan" });

    const error = await driver.showPlanJson(planFile).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EngineStepError);
    expect((error as EngineStepError).step).toBe("show");
    expect((error as EngineStepError).message).toContain('expected format_version 1.x, got "0.1"');
  });

  it("fails when the executable does not exist", async () => {
    const workspace = fakeEngineWorkspace();
    const missing = join(workspace.root, "no-such-terraform");
    const driver = new EngineDriver({ engine: "terraform", executable: missing, cwd: workspace.stackDir, env: workspace.env() });

    const error = await driver.init().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OperationalError);
    expect(error).not.toBeInstanceOf(EngineStepError);
    expect((error as Error).message).toBe(`cannot run terraform init: ${missing} was not found. Install Terraform >= 1.5.0, or choose the other engine.`);
  });

  it("fails when the engine is not on PATH", async () => {
    const workspace = fakeEngineWorkspace();
    const driver = new EngineDriver({ engine: "tofu", cwd: workspace.stackDir, env: { PATH: pathWithFakeEngines([]) } });

    const error = await driver.init().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OperationalError);
    expect((error as Error).message).toBe('cannot run tofu init: "tofu" on PATH was not found. Install OpenTofu >= 1.5.0, or choose the other engine.');
  });

  it("runs the engine found on PATH when no executable is given", async () => {
    const workspace = fakeEngineWorkspace();
    const driver = new EngineDriver({ engine: "tofu", cwd: workspace.stackDir, env: { PATH: pathWithFakeEngines(["tofu"]), FAKE_TF_LOG: workspace.logFile, ...FAKE_ENGINE_SETTINGS_PASS } });

    await driver.init();

    expect(workspace.calls()[0].argv?.[0]).toBe("init");
  });

  it("fails when the stack directory does not exist", async () => {
    const workspace = fakeEngineWorkspace();
    const cwd = join(workspace.root, "cdktf.out", "stacks", "cell-9");

    const error = await driverFor(workspace, {}, { cwd }).init().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OperationalError);
    expect((error as Error).message).toContain(`the stack directory ${cwd} does not exist`);
    expect(workspace.calls()).toEqual([]);
  });
});

describe("EngineDriver cancellation", () => {
  it("forwards SIGINT to the engine, waits for it to stop, and reports the interruption", async () => {
    const workspace = fakeEngineWorkspace();
    const listenersBefore = process.listeners("SIGINT");
    let engineWaiting!: () => void;
    const waiting = new Promise<void>((resolve) => (engineWaiting = resolve));
    const driver = driverFor(workspace, { FAKE_TF_HANG: "init" }, { onOutput: (line) => line.includes("waits for a signal") && engineWaiting() });

    const running = driver.init().catch((caught: unknown) => caught);
    await waiting;
    // Call only the driver's own handler: emitting SIGINT would reach the test runner's handlers too.
    const added = process.listeners("SIGINT").filter((listener) => !listenersBefore.includes(listener));
    expect(added).toHaveLength(1);
    added[0]("SIGINT");
    const error = await running;

    expect(workspace.calls()).toContainEqual({ signal: "SIGINT" });
    expect(error).toBeInstanceOf(EngineStepError);
    expect(error).toMatchObject({ step: "init", interruptedBy: "SIGINT", engineExitCode: 1 });
    expect((error as Error).message).toContain("terraform init was interrupted (SIGINT forwarded to terraform; exit code 1)");
    expect(process.listeners("SIGINT")).toEqual(listenersBefore);
  });
});
