/**
 * cdktf requires archiver (and its ~60 modules) when it loads, but calls it only to zip a
 * TerraformAsset directory, which no stack here has. The command bundles load it on first use
 * (build/bundle-commands.js, LOAD_ON_FIRST_USE); a synthesis thread runs the compiled modules of
 * dist/stacks/, not a bundle, and would load it in full, on the path to its first cell; so would the
 * compiled modules on this thread (the cdktf app entry, the bench). Here the same stand-in goes into
 * node's module cache, where cdktf's require finds it: imported for that effect, before cdktf loads
 * (stacks/cell-synthesis.ts). Not in a bundle, whose cdktf has its own stand-in.
 */
import Module from "node:module";
import { basename, dirname, join } from "node:path";
import { loadedOnFirstUse } from "../lib/process/loaded-on-first-use";

/** Puts the stand-in where cdktf's `require("archiver")` (lib/private/fs.js) will look. */
export function loadArchiverOnFirstUse(): void {
  // Inside a command bundle (dist/bundle/), where this module is not in stacks/: its cdktf has the
  // bundle's stand-in, and a dry run would pay for the resolving below (~1 ms) for nothing.
  if (basename(__dirname) !== "stacks") return;
  let path: string;
  try {
    path = require.resolve("archiver", { paths: [join(dirname(require.resolve("cdktf")), "private")] });
  } catch {
    // Not installed where cdktf looks: cdktf's own require fails as it would have.
    return;
  }
  if (require.cache[path]) return;
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = loadedOnFirstUse(() => {
    // Out of the cache first, so that require loads the real module (and caches it) in the stand-in's place.
    delete require.cache[path];
    return require(path);
  });
  require.cache[path] = standIn;
}

loadArchiverOnFirstUse();
