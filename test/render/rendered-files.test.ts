import { parse } from "smol-toml";
import { renderedFilesForCell } from "../../lib/render/rendered-files";
import { renderConfigToml, renderManagerStartupScript, renderWorkerStartupScript } from "../../lib/render/manager-files";
import { exampleModel } from "../support/models";

describe("renderedFilesForCell", () => {
  it.each(["cell-1", "cell-2"] as const)("lists config.toml and startup.sh per manager slot and one worker script per shard (%s)", (name) => {
    const model = exampleModel(name);

    const files = renderedFilesForCell(model);

    const expectedPaths = model.shards.flatMap((shard) => [
      ...Array.from({ length: shard.managers.count }, (_, slot) => [
        `${shard.name}/manager-${slot}/config.toml`,
        `${shard.name}/manager-${slot}/startup.sh`,
      ]).flat(),
      `${shard.name}/worker-startup.sh`,
    ]);
    expect(files.map((file) => file.path)).toEqual(expectedPaths);
  });

  it("holds exactly what the renderers return", () => {
    const model = exampleModel("cell-1");
    const shard = model.shards[1];

    const byPath = new Map(renderedFilesForCell(model).map((file) => [file.path, file.content]));

    expect(byPath.get("large-amd64/manager-1/config.toml")).toBe(renderConfigToml(model, shard, 1));
    expect(byPath.get("large-amd64/manager-1/startup.sh")).toBe(renderManagerStartupScript(model, shard, 1));
    expect(byPath.get("large-amd64/worker-startup.sh")).toBe(renderWorkerStartupScript(model, shard));
    expect(() => parse(byPath.get("large-amd64/manager-0/config.toml") ?? "")).not.toThrow();
  });

  it.each(["cell-1", "cell-2"] as const)("is token-free (%s)", (name) => {
    for (const file of renderedFilesForCell(exampleModel(name))) {
      expect(file.content).not.toMatch(/glrt-[A-Za-z0-9_.-]{8,}/);
    }
  });
});
