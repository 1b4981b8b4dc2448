"use strict";
/**
 * What `archiver` is to the code under test (jest.config.js moduleNameMapper): a stand-in that loads
 * the real package on its first use, as the command bundles have it (build/bundle-commands.js,
 * LOAD_ON_FIRST_USE). cdktf requires archiver (and its ~60 modules) when it loads, but calls it only
 * to zip a TerraformAsset directory, which no stack here has; jest loads every module again for each
 * test file, so every file that synthesizes paid for it. Calls, properties and `new` reach the real
 * archiver (test/stacks/archiver-on-first-use.test.ts).
 */
const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");
const { loadedOnFirstUse } = require("../../lib/process/loaded-on-first-use");

// The copy cdktf resolves (its own, else the top level's), required by its path: through jest, the name
// "archiver" (and its resolution) maps back to this file.
const REAL_ARCHIVER = [join(dirname(require.resolve("cdktf/package.json")), "node_modules", "archiver"), join(__dirname, "..", "..", "node_modules", "archiver")].find(
  (dir) => existsSync(join(dir, "package.json")),
);
if (!REAL_ARCHIVER) throw new Error("archiver, a dependency of cdktf, is not installed: run `npm ci`");

module.exports = loadedOnFirstUse(() => require(REAL_ARCHIVER));
