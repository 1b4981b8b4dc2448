/**
 * Every file a cell's VMs boot with, for reviewers: the synth step writes them
 * under cdktf.out/stacks/<stack>/rendered/ so a merge request shows what changes
 * on the machines. Token-free by construction (the token is a placeholder).
 */
import type { RunnerModel } from "../model/schema";
import { renderConfigToml, renderManagerStartupScript, renderWorkerStartupScript } from "./manager-files";

export interface RenderedFile {
  /** Relative path: `<shard>/manager-<slot>/config.toml`, `<shard>/manager-<slot>/startup.sh`, `<shard>/worker-startup.sh`. */
  readonly path: string;
  readonly content: string;
}

export function renderedFilesForCell(model: RunnerModel): RenderedFile[] {
  return model.shards.flatMap((shard) => {
    const managerFiles = Array.from({ length: shard.managers.count }, (_, slot) => [
      { path: `${shard.name}/manager-${slot}/config.toml`, content: renderConfigToml(model, shard, slot) },
      { path: `${shard.name}/manager-${slot}/startup.sh`, content: renderManagerStartupScript(model, shard, slot) },
    ]).flat();
    return [...managerFiles, { path: `${shard.name}/worker-startup.sh`, content: renderWorkerStartupScript(model, shard) }];
  });
}
