/**
 * What to tell someone whose --model names no file: the suggestion that works. A name that can mean
 * only one model (cell-1.yml for cell-1.yaml, CELL-1 for cell-1: cell ids are lowercase DNS labels) is
 * resolved by model-files.ts and never reaches here; what does is answered with the --model that works:
 * the model's name when the file is in the models directory (./cell-1.yaml run beside models/), `cd ..`
 * when the run starts inside the models directory, else the closest names and the models there are.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { distance } from "fastest-levenshtein";
import { modelsDir } from "../files/workspace";

const MAX_SUGGESTIONS = 3;
const MODEL_FILE = /\.ya?ml$/i;

/** Model names (file names without .yaml) in a directory, sorted; none when it is not a directory. */
export function modelNamesIn(dir: string): string[] {
  return modelFileNamesIn(dir).map((name) => name.replace(MODEL_FILE, "")).sort();
}

function modelFileNamesIn(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir).filter((name) => MODEL_FILE.test(name));
}

/**
 * The one model file of `dir` that `name` can only mean, or undefined: cell-1, cell-1.yaml, cell-1.yml and
 * CELL-1 all mean cell-1.yaml when that is the only file of that name whatever its extension or case.
 */
export function sameModelFile(dir: string, name: string): string | undefined {
  const matches = modelFilesNamed(dir, name);
  return matches.length === 1 ? join(dir, matches[0]) : undefined;
}

function modelFilesNamed(dir: string, name: string): string[] {
  const stem = name.replace(MODEL_FILE, "").toLowerCase();
  return modelFileNamesIn(dir).filter((file) => file.replace(MODEL_FILE, "").toLowerCase() === stem).sort();
}

/** Names close enough to `wanted` to be a plausible typo, closest first. */
export function closestNames(wanted: string, names: readonly string[]): string[] {
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return names
    .map((name) => ({ name, distance: distance(wanted, name) }))
    .filter((entry) => entry.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, MAX_SUGGESTIONS)
    .map((entry) => entry.name);
}

/** The hint for a model file that does not exist: "did you mean cell-1? models in models: cell-1, cell-2". */
export function missingModelHint(file: string): string {
  const dir = dirname(file);
  const wanted = basename(file);
  const names = modelNamesIn(dir);
  const modelsDirectory = modelsDir();
  // ./cell-1.yaml run beside models/: the file is the models directory's.
  const inModels = resolve(dir) === resolve(modelsDirectory) ? undefined : sameModelFile(modelsDirectory, wanted);
  if (inModels !== undefined) return `there is no ${wanted} in ${dir}; the models directory has it: --model ${basename(inModels).replace(MODEL_FILE, "")} (${inModels})`;
  if (names.length === 0) {
    // A run that starts inside the models directory: ./models is not there, the model is here.
    const here = sameModelFile(".", wanted);
    if (!existsSync(dir) && here !== undefined) return insideModelsDirHint(basename(here));
    return existsSync(dir) ? `there are no models (*.yaml) in ${dir}` : `directory ${dir} does not exist; set --models-dir or RUNNER_MODELS_DIR`;
  }
  const several = modelFilesNamed(dir, wanted);
  if (several.length > 1) return `${several.join(" and ")} both name a model ${several[0].replace(MODEL_FILE, "")}: name one with --model ${join(dir, several[0])}`;
  const suggestions = closestNames(wanted.replace(MODEL_FILE, ""), names);
  const didYouMean = suggestions.length > 0 ? `did you mean ${suggestions.join(" or ")}? ` : "";
  return `${didYouMean}models in ${dir}: ${names.join(", ")}`;
}

/**
 * Run from inside models/: the workspace (state, cdktf.out, the local secret store) is the directory
 * above the models (lib/files/workspace.ts), so the run that works is the one from there.
 */
export function insideModelsDirHint(found: string): string {
  return `${found} is in this directory, which looks like the models directory: run from the directory above it (cd ..), where the state and cdktf.out of the models are kept`;
}
