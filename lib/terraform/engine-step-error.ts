/**
 * A Terraform/OpenTofu command that failed: which step, which engine, where,
 * how it ended, and the engine's last words (redacted).
 */
import { OperationalError } from "../process/errors";
import type { EngineName } from "./toolchain-check";

export type EngineStep = "init" | "plan" | "show" | "apply" | "output";

export interface EngineStepFailure {
  readonly step: EngineStep;
  readonly engine: EngineName;
  /** The stack directory the engine ran in. */
  readonly cwd: string;
  /** The engine's exit code; null when it ended by a signal. */
  readonly engineExitCode: number | null;
  readonly signal?: NodeJS.Signals | null;
  /** The signal this process received and forwarded to the engine, if any. */
  readonly interruptedBy?: NodeJS.Signals;
  /** Last lines of the engine's stderr (or stdout when stderr was empty), redacted. */
  readonly outputTail: readonly string[];
  /** Set when the engine succeeded but its output was unusable. */
  readonly reason?: string;
}

export class EngineStepError extends OperationalError {
  readonly step: EngineStep;
  readonly engine: EngineName;
  readonly cwd: string;
  readonly engineExitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly interruptedBy?: NodeJS.Signals;
  readonly outputTail: readonly string[];
  /** Set when the step failed for a reason of its own (unusable output, a time limit) rather than an exit code. */
  readonly reason?: string;

  constructor(failure: EngineStepFailure, options?: { cause?: unknown }) {
    super(describeFailure(failure), options);
    this.name = "EngineStepError";
    this.step = failure.step;
    this.engine = failure.engine;
    this.cwd = failure.cwd;
    this.engineExitCode = failure.engineExitCode;
    this.signal = failure.signal ?? null;
    this.interruptedBy = failure.interruptedBy;
    this.outputTail = failure.outputTail;
    this.reason = failure.reason;
  }
}

function describeFailure(failure: EngineStepFailure): string {
  const what = `${failure.engine} ${failure.step}`;
  const how = failure.reason
    ? failure.reason
    : failure.interruptedBy
      ? `was interrupted (${failure.interruptedBy} forwarded to ${failure.engine}; ${endedBy(failure)})`
      : `failed (${endedBy(failure)})`;
  const head = `${what} ${how} in ${failure.cwd}`;
  const tail = failure.outputTail.filter((line, index, lines) => line.trim() !== "" || (index > 0 && lines[index - 1].trim() !== ""));
  return tail.length > 0 ? `${head}:\n${tail.map((line) => `  ${line}`).join("\n")}` : head;
}

function endedBy(failure: EngineStepFailure): string {
  return failure.engineExitCode === null ? `ended by ${failure.signal ?? "a signal"}` : `exit code ${failure.engineExitCode}`;
}

/**
 * The engine refused a saved plan because the state changed after it was made ("Saved plan is
 * stale", Terraform and OpenTofu). It refuses before changing anything, so planning again is safe.
 */
export function isStalePlanFailure(error: unknown): boolean {
  return error instanceof EngineStepError && error.step === "apply" && error.outputTail.some((line) => line.includes("Saved plan is stale"));
}
