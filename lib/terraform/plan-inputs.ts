/**
 * What a saved plan was made from, so a later job applies it only when nothing it depends on
 * has changed since (as Atlantis applies the plan of the commit it reviewed).
 *
 * The digest covers the synthesized stack (cdk.tf.json: everything the model and the code
 * produce), the dependency lock file the engine wrote at init (provider versions and hashes)
 * and the engine and its version. It is content-addressed on purpose: the merge commit on the
 * default branch differs from the merge request's commit, yet produces the same stack when the
 * change is the same. The state is not part of it: the engine itself refuses a saved plan whose
 * state changed since ("Saved plan is stale").
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EngineName } from "./toolchain-check";

export const PLAN_INPUTS_FORMAT = 1;

export interface PlanInputs {
  readonly format: typeof PLAN_INPUTS_FORMAT;
  readonly cell: string;
  /** sha256 over the stack, the lock file and the engine. */
  readonly digest: string;
  readonly engine: EngineName;
  readonly engineVersion: string;
  /** The commit the plan was made on, when known (CI_COMMIT_SHA); informative only. */
  readonly commit?: string;
}

/** The inputs file kept beside a saved plan. */
export function planInputsFile(planFile: string): string {
  return `${planFile}.inputs.json`;
}

export function planInputsDigest(stackDir: string, engine: { name: EngineName; version: string }): string {
  const hash = createHash("sha256");
  const part = (label: string, content: string | Buffer) => {
    hash.update(`${label}\0${content.length}\0`);
    hash.update(content);
  };
  part("stack", readFileSync(join(stackDir, "cdk.tf.json")));
  const lockFile = join(stackDir, ".terraform.lock.hcl");
  part("lock", existsSync(lockFile) ? readFileSync(lockFile) : "");
  part("engine", `${engine.name} ${engine.version}`);
  return hash.digest("hex");
}

export function writePlanInputs(planFile: string, inputs: Omit<PlanInputs, "format">): void {
  writeFileSync(planInputsFile(planFile), `${JSON.stringify({ format: PLAN_INPUTS_FORMAT, ...inputs }, null, 2)}\n`);
}

/** The inputs recorded beside a saved plan, or why there are none usable. */
export function readPlanInputs(planFile: string): { inputs: PlanInputs } | { problem: string } {
  if (!existsSync(planFile)) return { problem: `there is no saved plan at ${planFile}` };
  const file = planInputsFile(planFile);
  if (!existsSync(file)) return { problem: `the plan has no inputs record (${file}), so what it was made from is unknown` };
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<PlanInputs>;
    if (value.format !== PLAN_INPUTS_FORMAT || typeof value.digest !== "string" || typeof value.cell !== "string") {
      return { problem: `${file} is not an inputs record of format ${PLAN_INPUTS_FORMAT}` };
    }
    return { inputs: value as PlanInputs };
  } catch (error) {
    return { problem: `${file} is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}
