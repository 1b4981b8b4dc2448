/**
 * Which toolkit version last applied a cell, read from wherever its state is (`status --read-state`):
 * a local state file offline (./recorded-version.ts), and a remote state (gcs, s3, GitLab's http)
 * through the engine, with the backend's own credentials. The engine inits a workspace that holds the
 * cell's backend block and nothing else (./backend-block.ts): no providers to install, no stack to
 * synthesize, and `output -json` reads the outputs the last apply wrote. The workspace, its
 * `.terraform` included, is a temporary directory removed afterwards, so nothing the engine caches
 * about the backend outlives the read.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOOLKIT_VERSION_OUTPUT } from "../files/toolkit-version";
import type { RunnerModel } from "../model/schema";
import { OperationalError, UserInputError } from "../process/errors";
import { redactValue } from "../text/redact";
import { backendBlock, describeBackend } from "./backend-block";
import { backendEnvironment } from "./backend-env";
import { EngineDriver, EngineStepError } from "./engine";
import { recordedToolkitVersion, type RecordedVersion } from "./recorded-version";
import type { EngineName } from "./toolchain-check";

export interface StateReadOptions {
  readonly engine: EngineName;
  /** Path of the engine's executable. @default - its name, on PATH */
  readonly executable?: string;
  /** What the engine may see (the backend's credentials among it). */
  readonly env: NodeJS.ProcessEnv;
  /** Resolves a relative local state path, as provision does. */
  readonly workDir: string;
  /** Scrubs the engine's words before they reach a reason (the state's own password is scrubbed here). */
  readonly redact: (line: string) => string;
  /** Variables never passed to the engine (the GitLab tokens the caller holds). */
  readonly withholdEnv?: readonly string[];
  /** How long each engine step may wait on the backend: an unanswering one would hold init for good. */
  readonly stepTimeoutMs: number;
}

export async function readAppliedVersion(model: RunnerModel, options: StateReadOptions): Promise<RecordedVersion> {
  const block = backendBlock(model, options.workDir);
  if (block.type === "local") return recordedToolkitVersion(model, options.workDir);
  const where = `the ${block.type} state ${describeBackend(block)}`;
  let credentials: Record<string, string>;
  try {
    credentials = backendEnvironment(model, options.env);
  } catch (error) {
    // A model whose state needs credentials the environment lacks: the read is skipped, not the report.
    if (!(error instanceof UserInputError)) throw error;
    return { version: null, reason: `${where} not read: ${error.message}` };
  }
  const dir = mkdtempSync(join(tmpdir(), `runner-fleet-state-${model.cell.id}-`));
  try {
    writeFileSync(join(dir, "main.tf.json"), `${JSON.stringify({ terraform: { backend: { [block.type]: block.config } } }, null, 2)}\n`);
    const driver = new EngineDriver({
      engine: options.engine,
      executable: options.executable,
      cwd: dir,
      env: options.env,
      // Its own data directory: a TF_DATA_DIR of the caller's would be pointed at this backend.
      addEnv: { ...credentials, TF_DATA_DIR: join(dir, ".terraform") },
      withholdEnv: options.withholdEnv,
      redact: (line) => redactValue(options.redact(line), credentials.TF_HTTP_PASSWORD),
      stepTimeoutMs: options.stepTimeoutMs,
      color: false,
    });
    await driver.init();
    const outputs = await driver.outputs();
    const value = outputs[TOOLKIT_VERSION_OUTPUT]?.value;
    if (typeof value === "string") return { version: value, source: where };
    if (Object.keys(outputs).length === 0) return { version: null, reason: `${where} holds no outputs: never applied, or not by runner-fleet` };
    return { version: null, reason: `applied by a version before ${TOOLKIT_VERSION_OUTPUT} was recorded (no such output in ${where})` };
  } catch (error) {
    if (!(error instanceof OperationalError)) throw error;
    const why = error instanceof EngineStepError ? engineWords(error) : error.message.split("\n")[0];
    return { version: null, reason: `${where} not read: ${why}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * One line for a failed step: its own reason (a time limit), else the engine's `Error:` line (its summary,
 * inside the box terraform draws around a diagnostic, -no-color or not), else how it ended.
 */
function engineWords(error: EngineStepError): string {
  if (error.reason) return `${error.engine} ${error.step} ${error.reason}`;
  const summary = error.outputTail.map((line) => line.replace(/^[\s\u2502\u2575\u2577]+/, "").trim()).find((line) => line.startsWith("Error: "));
  return `${error.engine} ${error.step} failed${summary ? `: ${summary.slice("Error: ".length)}` : ` (exit ${error.engineExitCode ?? error.signal})`}`;
}
