/**
 * cdktf requires archiver (and its ~60 modules) when it loads, but calls it only to zip a
 * TerraformAsset directory, which no stack here has. The command bundles load it on first use
 * (build/bundle-commands.js, LOAD_ON_FIRST_USE); the compiled modules (a synthesis thread, the cdktf
 * app entry, the bench) would load it in full, on the path to their first cell. Here the same
 * stand-in goes into node's module cache, where cdktf's require finds it: imported for that effect,
 * before cdktf loads (stacks/cell-synthesis.ts).
 */
import { loadedOnFirstUse } from "../lib/process/loaded-on-first-use";
import { putInCdktfModuleCache } from "./cdktf-module-cache";

/** Puts the stand-in where cdktf's `require("archiver")` (lib/private/fs.js) will look. */
export function loadArchiverOnFirstUse(): void {
  putInCdktfModuleCache("archiver", "private", (real) => loadedOnFirstUse(real));
}

loadArchiverOnFirstUse();
