/** Finding model files: every `*.yaml` in the models directory, or the ones named. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { UserInputError } from "../process/errors";

// The models directory and the workspace around it have one owner: lib/files/workspace.ts.
export { DEFAULT_MODELS_DIR, modelsDir } from "../files/workspace";

/** All model files of a directory, sorted, leaving out anything that is not a model (schema.json, templates). */
export function listModelFiles(dir: string): string[] {
  if (!existsSync(dir)) throw new UserInputError(`models directory ${dir} does not exist (set --models-dir or RUNNER_MODELS_DIR)`);
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * A --model argument is a path ("models/cell-1.yaml", "./x.yaml") or a bare name
 * looked up in the models directory ("cell-1", "cell-1.yaml"). A name that matches
 * nothing is still returned as a path so the loader reports it as missing, with the file name.
 */
export function resolveModelArgument(argument: string, dir: string): string {
  if (existsSync(argument) && statSync(argument).isFile()) return argument;
  const isBareName = basename(argument) === argument;
  if (isBareName) {
    for (const candidate of [argument, `${argument}.yaml`, `${argument}.yml`]) {
      const path = join(dir, candidate);
      if (existsSync(path)) return path;
    }
    return join(dir, /\.ya?ml$/.test(argument) ? argument : `${argument}.yaml`);
  }
  return argument;
}
