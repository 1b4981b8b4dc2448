/** What to tell someone whose --model names no file: the closest model names, and the models there are. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { distance } from "fastest-levenshtein";

const MAX_SUGGESTIONS = 3;

/** Model names (file names without .yaml) in a directory, sorted; none when it is not a directory. */
export function modelNamesIn(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => name.replace(/\.ya?ml$/, ""))
    .sort();
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
  const names = modelNamesIn(dir);
  if (names.length === 0) {
    return existsSync(dir) ? `there are no models (*.yaml) in ${dir}` : `directory ${dir} does not exist; set --models-dir or RUNNER_MODELS_DIR`;
  }
  const suggestions = closestNames(basename(file).replace(/\.ya?ml$/, ""), names);
  const didYouMean = suggestions.length > 0 ? `did you mean ${suggestions.join(" or ")}? ` : "";
  return `${didYouMean}models in ${dir}: ${names.join(", ")}`;
}
