/** removeTree removes what rmSync(path, { recursive: true, force: true }) removes, and nothing else. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeTree } from "../../lib/files/remove-tree";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "remove-tree-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A tree like a cell's rendered files, with links out of it to a file and a directory that must survive. */
function renderedTree(): { tree: string; outside: string } {
  const tree = join(root, "rendered");
  const outside = join(root, "outside");
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(join(outside, "file"), "keep");
  writeFileSync(join(outside, "dir", "inner"), "keep");
  for (const shard of ["small-amd64", "large-amd64"]) {
    for (const manager of ["manager-0", "manager-1"]) {
      mkdirSync(join(tree, shard, manager), { recursive: true });
      writeFileSync(join(tree, shard, manager, "config.toml"), "concurrent = 1\n");
    }
    writeFileSync(join(tree, shard, "worker-startup.sh"), "#!/bin/bash\n");
  }
  mkdirSync(join(tree, "empty"));
  symlinkSync(join(outside, "file"), join(tree, "small-amd64", "link-to-file"));
  symlinkSync(join(outside, "dir"), join(tree, "large-amd64", "link-to-dir"));
  return { tree, outside };
}

test("removes a directory and everything under it, links without following them", () => {
  const { tree, outside } = renderedTree();
  removeTree(tree);
  expect(existsSync(tree)).toBe(false);
  expect(readdirSync(outside).sort()).toEqual(["dir", "file"]);
  expect(readdirSync(join(outside, "dir"))).toEqual(["inner"]);
});

test("removes a file, and a link to a directory without what it points to", () => {
  const { tree, outside } = renderedTree();
  removeTree(join(tree, "small-amd64", "worker-startup.sh"));
  expect(existsSync(join(tree, "small-amd64", "worker-startup.sh"))).toBe(false);
  removeTree(join(tree, "large-amd64", "link-to-dir"));
  expect(existsSync(join(tree, "large-amd64", "link-to-dir"))).toBe(false);
  expect(readdirSync(join(outside, "dir"))).toEqual(["inner"]);
});

test("a path that is not there is no error, as with rmSync's force", () => {
  expect(() => removeTree(join(root, "absent"))).not.toThrow();
  expect(() => rmSync(join(root, "absent"), { recursive: true, force: true })).not.toThrow();
});
