/**
 * Every file a cell's VMs boot with, rendered once per synth: the synth step checks them, writes them
 * under cdktf.out/stacks/<stack>/rendered/ so a merge request shows what changes on the machines, and
 * hands the same content to the stack's launch and instance templates. Token-free by construction (the
 * token is a placeholder).
 */
import { deployedModel } from "../model/deployed-model";
import type { RunnerModel } from "../model/schema";
import { renderConfigToml, renderManagerStartupScript, renderWorkerStartupScript } from "./manager-files";

export interface RenderedFile {
  /** Relative path: `<shard>/manager-<slot>/config.toml`, `<shard>/manager-<slot>/startup.sh`, `<shard>/worker-startup.sh`. */
  readonly path: string;
  readonly content: string;
  /** The template it is rendered from, relative to templates/. */
  readonly template: string;
}

/** The files of one shard's VMs. */
export interface RenderedShardFiles {
  readonly shard: string;
  /** Per manager slot, in slot order. */
  readonly managers: readonly { readonly configToml: RenderedFile; readonly startupScript: RenderedFile }[];
  readonly workerStartupScript: RenderedFile;
}

/** Per shard of the model, in model order. */
export function renderCellFiles(model: RunnerModel): RenderedShardFiles[] {
  // A renamed shard's VMs boot with the files of the name its resources carry (lib/model/deployed-model.ts): a rename changes no VM.
  const deployed = deployedModel(model);
  return deployed.shards.map((shard, index) => {
    const name = model.shards[index].name;
    return {
      shard: name,
      managers: Array.from({ length: shard.managers.count }, (_, slot) => ({
        configToml: { path: `${name}/manager-${slot}/config.toml`, content: renderConfigToml(deployed, shard, slot), template: "config.toml.hbs" },
        startupScript: {
          path: `${name}/manager-${slot}/startup.sh`,
          content: renderManagerStartupScript(deployed, shard, slot),
          template: "startup/payload.sh.hbs",
        },
      })),
      workerStartupScript: { path: `${name}/worker-startup.sh`, content: renderWorkerStartupScript(deployed, shard), template: "startup/payload.sh.hbs" },
    };
  });
}

/** The shards' files as one list, in the order they are written. */
export function renderedFileList(shards: readonly RenderedShardFiles[]): RenderedFile[] {
  return shards.flatMap((shard) => [
    ...shard.managers.flatMap((manager) => [manager.configToml, manager.startupScript]),
    shard.workerStartupScript,
  ]);
}

export function renderedFilesForCell(model: RunnerModel): RenderedFile[] {
  return renderedFileList(renderCellFiles(model));
}
