/** Example models for tests, loaded through the real loader. */
import { join } from "node:path";
import { loadModelFile } from "../../lib/model/load";
import type { RunnerModel } from "../../lib/model/schema";

export const MODELS_DIR = join(__dirname, "..", "..", "models");

export function exampleModel(name: "cell-1" | "cell-2"): RunnerModel {
  return loadModelFile(join(MODELS_DIR, `${name}.yaml`)).model;
}

/** A copy of an example with changes applied, for tests of one property. */
export function modelWith(name: "cell-1" | "cell-2", change: (model: RunnerModel) => void): RunnerModel {
  const model = structuredClone(exampleModel(name));
  change(model);
  return model;
}
