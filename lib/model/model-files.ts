/** Finding model files: every `*.yaml` in the models directory, or the ones named. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UserInputError } from "../process/errors";
import { insideModelsDirHint, modelNamesIn, sameModelFile } from "./missing-model";

// The models directory and the workspace around it have one owner: lib/files/workspace.ts.
export { DEFAULT_MODELS_DIR, modelsDir } from "../files/workspace";

/** All model files of a directory, sorted, leaving out anything that is not a model (schema.json, templates). */
export function listModelFiles(dir: string): string[] {
  if (!existsSync(dir)) {
    // Only a directory that looks like one of models (named models/, or with the schema.json prepare writes there).
    const here = basename(process.cwd()) === "models" || existsSync("schema.json") ? modelNamesIn(".") : [];
    const inside = here.length > 0 ? `; ${insideModelsDirHint(`${here[0]}.yaml`)}` : "";
    throw new UserInputError(`models directory ${dir} does not exist (set --models-dir or RUNNER_MODELS_DIR)${inside}`);
  }
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(dir, name));
}

/**
 * A --model argument is a path ("models/cell-1.yaml", "./x.yaml") or a bare name
 * looked up in the models directory ("cell-1", "cell-1.yaml"). A name, or a path into the models
 * directory, that can mean only one model is that model: cell-1.yml and CELL-1 are cell-1.yaml when
 * no other file has that name (missing-model.ts). A name that matches nothing is still returned as a
 * path so the loader reports it as missing, with the file name and the --model that works.
 */
export function resolveModelArgument(argument: string, dir: string): string {
  if (existsSync(argument) && statSync(argument).isFile()) return argument;
  const name = basename(argument);
  const intoModelsDir = name === argument || resolve(dirname(argument)) === resolve(dir);
  if (!intoModelsDir) return argument;
  for (const candidate of [name, `${name}.yaml`, `${name}.yml`]) {
    const path = join(dir, candidate);
    if (existsSync(path) && statSync(path).isFile()) return path;
  }
  return sameModelFile(dir, name) ?? join(dir, /\.ya?ml$/.test(name) ? name : `${name}.yaml`);
}
