/**
 * Which toolkit version last applied a cell: the stack's `runner_fleet_version` output, as the state
 * holds it (Terraform writes outputs to the state at apply). Read here without the engine, so only
 * from a local state file; a remote state (gcs, s3, http) needs the backend's credentials and an
 * `init`, which `status --read-state` does (./state-version.ts): without it, this says so.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { TOOLKIT_VERSION_OUTPUT } from "../files/toolkit-version";
import { stateWithDefaults } from "../model/derived-defaults";
import type { RunnerModel } from "../model/schema";

export type RecordedVersion =
  | { readonly version: string; readonly source: string }
  | { readonly version: null; readonly reason: string };

/** `workDir` resolves a relative local state path, as provision does. @default process.cwd() */
export function recordedToolkitVersion(model: RunnerModel, workDir: string = process.cwd()): RecordedVersion {
  const state = stateWithDefaults(model);
  if (state.backend !== "local") {
    return { version: null, reason: `in the ${state.backend} state, which \`status --read-state\` reads with the engine and the backend's credentials` };
  }
  const file = resolve(workDir, state.path);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: null, reason: `never applied from here (no ${state.path})` };
    return { version: null, reason: `${state.path} could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  let value: unknown;
  try {
    value = (JSON.parse(text) as { outputs?: Record<string, { value?: unknown }> }).outputs?.[TOOLKIT_VERSION_OUTPUT]?.value;
  } catch {
    return { version: null, reason: `${state.path} is not a Terraform state (not JSON)` };
  }
  return typeof value === "string"
    ? { version: value, source: state.path }
    : { version: null, reason: `applied by a version before ${TOOLKIT_VERSION_OUTPUT} was recorded (no such output in ${state.path})` };
}
