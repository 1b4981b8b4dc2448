/**
 * The models a provision run names (--model, read from --models-dir): each loaded and checked, its
 * file name matching its cell id, no cell named twice. A UserInputError (exit 2) before anything runs.
 */
import { UserInputError } from "../../lib/process/errors";
import { loadModelFile, type LoadedModel } from "../../lib/model/load";
import { modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import { workspaceDir } from "../../lib/files/workspace";

export function loadModels(models: readonly string[], modelsDirOption: string | undefined): LoadedModel[] {
  if (models.length === 0) throw new UserInputError("name the cell to provision with --model (e.g. --model cell-1.yaml)");
  const dir = modelsDir(modelsDirOption);
  const loaded = models.map((argument) => loadModelFile(resolveModelArgument(argument, dir), { requireFileNameMatch: true, workspace: workspaceDir(modelsDirOption) }));
  const ids = loaded.map((item) => item.model.cell.id);
  const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
  if (duplicate) throw new UserInputError(`cell ${duplicate} is named twice`);
  return loaded;
}
