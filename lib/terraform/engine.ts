/**
 * Drives the real `terraform` or `tofu` CLI in one synthesized stack directory:
 * init, plan to a saved plan file, show that plan as JSON, apply exactly that plan.
 *
 * Every step runs non-interactively (`-input=false`, TF_IN_AUTOMATION=1); the
 * engine's output is streamed line by line, redacted, and a failed step throws
 * an EngineStepError that names the step, the engine and the directory.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { OperationalError } from "../process/errors";
import { parsePlanJson, type PlanJson } from "./plan-json";
import { ENGINE_PRODUCTS, MIN_ENGINE_VERSION, type EngineName } from "./toolchain-check";
import { engineEnvironment, GITLAB_CREDENTIAL_NAMES } from "./engine-env";
import { EngineStepError, type EngineStep } from "./engine-step-error";
import { runProcess, type OutputStream, type ProcessResult } from "./run-process";

export { detectEngine } from "./detect-engine";
export { EngineStepError, isStalePlanFailure, type EngineStep } from "./engine-step-error";
export type { OutputStream } from "./run-process";

export interface EngineDriverOptions {
  readonly engine: EngineName;
  /** Path of the executable. @default - the engine's name, looked up on PATH */
  readonly executable?: string;
  /** The stack directory (the one holding cdk.tf.json). */
  readonly cwd: string;
  /**
   * Environment the engine may see, before the allowlist of ./engine-env.ts keeps only
   * what it needs; TF_IN_AUTOMATION=1 is always added. @default process.env
   */
  readonly env?: NodeJS.ProcessEnv;
  /** Variables the engine needs under names of their own (TF_HTTP_USERNAME/PASSWORD of the state backend). */
  readonly addEnv?: Readonly<Record<string, string>>;
  /** Variables never passed to the engine, even when allowed (the GitLab tokens this tool holds). */
  readonly withholdEnv?: readonly string[];
  /** Scrubs each line of the engine's output. @default redactSecrets (GitLab token prefixes only) */
  readonly redact?: (line: string) => string;
  /** Let the engine print colors. @default - only when this process's stdout is a TTY */
  readonly color?: boolean;
  /** Every line the engine prints, redacted. */
  readonly onOutput?: (line: string, stream: OutputStream) => void;
  /** Step progress: "terraform plan in <dir>...", then the outcome with the elapsed time. */
  readonly onProgress?: (message: string) => void;
  /**
   * How long plan and apply wait for a state lock held by another run (`-lock-timeout`), so a
   * plan during an apply waits instead of failing. A duration such as "5m", "90s". @default DEFAULT_LOCK_TIMEOUT
   */
  readonly lockTimeout?: string;
  /** How long one step may run before it is stopped and fails. @default - no limit (plan and apply take what they take) */
  readonly stepTimeoutMs?: number;
}

/** Long enough for a cell's apply to finish, short enough that a stuck lock fails the job. */
export const DEFAULT_LOCK_TIMEOUT = "5m";

/** A duration the engine's -lock-timeout accepts (Go's time.ParseDuration), in the simple forms people write. */
export function isLockTimeout(value: string): boolean {
  return /^(\d+(\.\d+)?(ms|s|m|h))+$/.test(value);
}

export interface InitOptions {
  /** `-backend-config=KEY=VALUE` pairs. Not for credentials: pass those in the environment. */
  readonly backendConfig?: Readonly<Record<string, string>>;
  /** `-reconfigure`: ignore a previously initialized backend. @default false */
  readonly reconfigure?: boolean;
}

export interface PlanOptions {
  /** Where to save the plan, relative to the stack directory or absolute. */
  readonly out: string;
  /** Plan the destruction of everything in the state. @default false */
  readonly destroy?: boolean;
  /** Refresh the state against the cloud first. @default true */
  readonly refresh?: boolean;
}

export interface PlanResult {
  /** Whether the plan changes anything (`-detailed-exitcode` 2). */
  readonly changes: boolean;
  /** Absolute path of the saved plan. */
  readonly planFile: string;
}

export class EngineDriver {
  readonly engine: EngineName;
  readonly executable: string;
  readonly cwd: string;
  readonly color: boolean;
  private readonly env: NodeJS.ProcessEnv;
  private readonly onOutput?: EngineDriverOptions["onOutput"];
  private readonly redact?: EngineDriverOptions["redact"];
  private readonly onProgress?: EngineDriverOptions["onProgress"];
  readonly lockTimeout: string;
  private readonly stepTimeoutMs?: number;

  constructor(options: EngineDriverOptions) {
    this.engine = options.engine;
    this.executable = options.executable ?? options.engine;
    this.cwd = resolve(options.cwd);
    this.color = options.color ?? process.stdout.isTTY === true;
    const env = engineEnvironment(options.env ?? process.env, {
      add: options.addEnv,
      withhold: [...GITLAB_CREDENTIAL_NAMES, ...(options.withholdEnv ?? [])],
    });
    this.env = { ...env, TF_IN_AUTOMATION: "1" };
    this.redact = options.redact;
    this.onOutput = options.onOutput;
    this.onProgress = options.onProgress;
    this.lockTimeout = options.lockTimeout ?? DEFAULT_LOCK_TIMEOUT;
    this.stepTimeoutMs = options.stepTimeoutMs;
  }

  async init(options: InitOptions = {}): Promise<void> {
    const backendConfig = Object.entries(options.backendConfig ?? {}).map(([key, value]) => `-backend-config=${key}=${value}`);
    await this.run("init", [...this.commonFlags(), ...(options.reconfigure ? ["-reconfigure"] : []), ...backendConfig]);
  }

  async plan(options: PlanOptions): Promise<PlanResult> {
    const planFile = resolve(this.cwd, options.out);
    const args = [
      ...this.commonFlags(),
      "-detailed-exitcode",
      `-lock-timeout=${this.lockTimeout}`,
      `-out=${planFile}`,
      ...(options.destroy ? ["-destroy"] : []),
      ...(options.refresh === false ? ["-refresh=false"] : []),
    ];
    // -detailed-exitcode: 0 succeeded without changes, 2 succeeded with changes, anything else failed.
    const result = await this.run("plan", args, { successCodes: [0, 2] });
    return { changes: result.exitCode === 2, planFile };
  }

  /** The saved plan as `terraform show -json` prints it. Its values are never streamed or logged. */
  async showPlanJson(planFile: string): Promise<PlanJson> {
    const result = await this.run("show", [...this.colorFlags(), "-json", resolve(this.cwd, planFile)], { captureStdout: true });
    try {
      return parsePlanJson(result.stdout);
    } catch (error) {
      throw new EngineStepError(
        {
          step: "show",
          engine: this.engine,
          cwd: this.cwd,
          engineExitCode: result.exitCode,
          outputTail: [],
          reason: `printed no usable plan JSON (${error instanceof Error ? error.message : String(error)})`,
        },
        { cause: error },
      );
    }
  }

  /**
   * The state's outputs (`output -json`): {} when the state is empty or holds none (`output` exits 0
   * either way; named, it would fail without saying which). Its values, sensitive ones included, are
   * never streamed or logged.
   */
  async outputs(): Promise<Readonly<Record<string, { readonly value?: unknown }>>> {
    const result = await this.run("output", [...this.colorFlags(), "-json"], { captureStdout: true });
    const outputs = jsonOrUndefined(result.stdout);
    if (outputs === null || typeof outputs !== "object" || Array.isArray(outputs)) {
      throw new EngineStepError({ step: "output", engine: this.engine, cwd: this.cwd, engineExitCode: result.exitCode, outputTail: [], reason: "printed no JSON object of outputs" });
    }
    return outputs as Record<string, { value?: unknown }>;
  }

  /** Applies exactly the saved plan; the engine refuses a plan that is stale against the state. */
  async apply(planFile: string): Promise<void> {
    await this.run("apply", [...this.commonFlags(), `-lock-timeout=${this.lockTimeout}`, resolve(this.cwd, planFile)]);
  }

  private commonFlags(): string[] {
    return ["-input=false", ...this.colorFlags()];
  }

  private colorFlags(): string[] {
    return this.color ? [] : ["-no-color"];
  }

  private async run(
    step: EngineStep,
    args: readonly string[],
    options: { successCodes?: readonly number[]; captureStdout?: boolean } = {},
  ): Promise<ProcessResult> {
    if (!existsSync(this.cwd)) {
      throw new OperationalError(`cannot run ${this.engine} ${step}: the stack directory ${this.cwd} does not exist (synthesize the stack first)`);
    }
    const started = Date.now();
    const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
    this.onProgress?.(`${this.engine} ${step} in ${this.cwd}...`);

    let result: ProcessResult;
    try {
      result = await runProcess({
        executable: this.executable,
        args: [step, ...args],
        cwd: this.cwd,
        env: this.env,
        onLine: this.onOutput,
        redact: this.redact,
        captureStdout: options.captureStdout,
        timeoutMs: this.stepTimeoutMs,
      });
    } catch (error) {
      this.onProgress?.(`${this.engine} ${step} could not start`);
      throw this.startFailure(step, error);
    }

    const successCodes = options.successCodes ?? [0];
    if (result.timedOut || result.exitCode === null || !successCodes.includes(result.exitCode)) {
      this.onProgress?.(`${this.engine} ${step} ${result.timedOut ? "stopped" : "failed"} after ${elapsed()}`);
      throw new EngineStepError({
        ...(result.timedOut ? { reason: `did not finish within ${Math.round(this.stepTimeoutMs! / 1000)}s and was stopped` } : {}),
        step,
        engine: this.engine,
        cwd: this.cwd,
        engineExitCode: result.exitCode,
        signal: result.signal,
        interruptedBy: result.interruptedBy,
        outputTail: result.stderrTail.some((line) => line.trim() !== "") ? result.stderrTail : result.stdoutTail,
      });
    }
    this.onProgress?.(`${this.engine} ${step} done in ${elapsed()}`);
    return result;
  }

  private startFailure(step: EngineStep, error: unknown): OperationalError {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const where = this.executable.includes("/") ? this.executable : `"${this.executable}" on PATH`;
    const product = ENGINE_PRODUCTS[this.engine];
    if (code === "ENOENT") {
      return new OperationalError(
        `cannot run ${this.engine} ${step}: ${where} was not found. Install ${product} >= ${MIN_ENGINE_VERSION}, or choose the other engine.`,
        { cause: error },
      );
    }
    if (code === "EACCES") {
      return new OperationalError(`cannot run ${this.engine} ${step}: ${where} is not executable`, { cause: error });
    }
    return new OperationalError(
      `cannot run ${this.engine} ${step} in ${this.cwd}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
