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
  /** The template it is rendered from, relative to templates/. */
  readonly template: string;
}

export function renderedFilesForCell(model: RunnerModel): RenderedFile[] {
  return model.shards.flatMap((shard) => {
    const managerFiles = Array.from({ length: shard.managers.count }, (_, slot) => [
      { path: `${shard.name}/manager-${slot}/config.toml`, content: renderConfigToml(model, shard, slot), template: "config.toml.hbs" },
      { path: `${shard.name}/manager-${slot}/startup.sh`, content: renderManagerStartupScript(model, shard, slot), template: "startup/manager.sh.hbs" },
    ]).flat();
    const worker = { path: `${shard.name}/worker-startup.sh`, content: renderWorkerStartupScript(model, shard), template: "startup/worker.sh.hbs" };
    return [...managerFiles, worker];
  });
}
