/** Example models for tests, loaded through the real loader. */
import { join } from "node:path";
import { PROJECT_ROOT } from "../../lib/files/project-root";
import { loadModelFile } from "../../lib/model/load";
import type { RunnerModel } from "../../lib/model/schema";

// From the project root, not this file's directory: the bench runs test/support compiled, from dist/.
export const MODELS_DIR = join(PROJECT_ROOT, "models");

/**
 * Each example is read once per test file: the loader (YAML with positions, then the schema) is the
 * costliest step of many tests, and the file does not change during a run. Every call gets its own
 * copy, so a test that changes its model changes no other test's.
 */
const loadedExamples = new Map<string, RunnerModel>();

export function exampleModel(name: "cell-1" | "cell-2"): RunnerModel {
  let model = loadedExamples.get(name);
  if (model === undefined) {
    model = loadModelFile(join(MODELS_DIR, `${name}.yaml`)).model;
    loadedExamples.set(name, model);
  }
  return structuredClone(model);
}

/** A copy of an example with changes applied, for tests of one property. */
export function modelWith(name: "cell-1" | "cell-2", change: (model: RunnerModel) => void): RunnerModel {
  const model = exampleModel(name);
  change(model);
  return model;
}
