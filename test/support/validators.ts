/**
 * Where the tests find the external validators they run (shellcheck, systemd-analyze, promtool): the
 * wrappers that `npm run setup` writes into .tools/bin (tools/setup/validators.sh) first, then the PATH.
 * A missing validator is a failure with one line naming the set-up command, never a skip: a test that
 * cannot check must not pass.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export type Validator = "shellcheck" | "systemd-analyze" | "promtool";

const ROOT = join(__dirname, "..", "..");
export const SETUP_COMMAND = "npm run setup";

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The validator's path under `root`/.tools/bin, else on `path`; undefined when neither has it. */
export function findValidator(name: Validator, root: string, path: string | undefined): string | undefined {
  const directories = [join(root, ".tools", "bin"), ...(path ?? "").split(delimiter).filter((directory) => directory !== "")];
  return directories.map((directory) => join(directory, name)).find(isExecutable);
}

export function missingValidatorMessage(name: Validator): string {
  return `${name} not found in .tools/bin or on PATH: run \`${SETUP_COMMAND}\``;
}

/** The validator's path, or an error whose whole text is the one-line set-up hint. */
export function requireValidator(name: Validator, root: string, path: string | undefined): string {
  const found = findValidator(name, root, path);
  if (found !== undefined) return found;
  const error = new Error(missingValidatorMessage(name));
  error.stack = `Error: ${error.message}`; // the hint alone: a stack into this helper says nothing more
  throw error;
}

const found = new Map<Validator, string>();

/** The validator to run, from this clone's .tools/bin or the PATH; fails the calling test when missing. */
export function validatorPath(name: Validator): string {
  const path = found.get(name) ?? requireValidator(name, ROOT, process.env.PATH);
  found.set(name, path);
  return path;
}
