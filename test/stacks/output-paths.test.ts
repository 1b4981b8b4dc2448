/**
 * Output paths: --out onto a file is a user error with a clear message, and a re-synth
 * leaves no rendered files of shards that no longer exist.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserInputError } from "../../lib/process/errors";
import { loadModelFile, type LoadedModel } from "../../lib/model/load";
import { synthesizeCells } from "../../stacks/synthesize";
import { runBin, STACK_TRACE_LINE } from "../support/cli";
import { MODELS_DIR } from "../support/models";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "output-paths-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("provision --out", () => {
  it.each([
    ["onto a file", (file: string) => file, "is a file, not a directory"],
    ["under a file", (file: string) => join(file, "out"), "a part of its path is a file"],
  ])("%s exits 2 with a clear message and no stack trace", (_case, out, says) => {
    const file = join(dir, "not-a-directory");
    writeFileSync(file, "keep me\n");

    const result = runBin("provision", ["--model", "cell-1", "--dry-run", "--out", out(file)]);

    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`the synthesis output directory ${out(file)} `);
    expect(result.stderr).toContain(says);
    expect(result.stderr).toContain("choose another --out");
    expect(result.stderr).not.toMatch(STACK_TRACE_LINE);
    expect(result.stderr).not.toContain("internal error");
  });

  it("is refused by synthesizeCells itself as a user error", () => {
    const file = join(dir, "file");
    writeFileSync(file, "");
    expect(() => synthesizeCells([loadModelFile(join(MODELS_DIR, "cell-1.yaml"))], { outdir: file, workDir: dir })).toThrow(UserInputError);
  });
});

describe("re-synth", () => {
  it("removes rendered/<shard>/ of a shard that was renamed", () => {
    const outdir = join(dir, "cdktf.out");
    const original = loadModelFile(join(MODELS_DIR, "cell-1.yaml"));
    synthesizeCells([original], { outdir, workDir: dir });
    const renderedDir = join(outdir, "stacks", "cell-1", "rendered");
    expect(readdirSync(renderedDir).sort()).toEqual(original.model.shards.map((shard) => shard.name).sort());

    const renamed: LoadedModel = {
      ...original,
      model: { ...original.model, shards: original.model.shards.map((shard, index) => (index === 0 ? { ...shard, name: "renamed-amd64" } : shard)) },
    };
    synthesizeCells([renamed], { outdir, workDir: dir });

    expect(readdirSync(renderedDir).sort()).toEqual(renamed.model.shards.map((shard) => shard.name).sort());
    expect(existsSync(join(renderedDir, original.model.shards[0].name))).toBe(false);
  });
});
