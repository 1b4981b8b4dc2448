"use strict";
/**
 * What `archiver` is to the code under test (jest.config.js moduleNameMapper): a stand-in that loads
 * the real package on its first use, as the command bundles have it (build/bundle-commands.js,
 * LOAD_ON_FIRST_USE). cdktf requires archiver (and its ~60 modules) when it loads, but calls it only
 * to zip a TerraformAsset directory, which no stack here has; jest loads every module again for each
 * test file, so every file that synthesizes paid for it. Calls, properties and `new` reach the real
 * archiver (test/stacks/archiver-on-first-use.test.ts).
 */
const { loadedOnFirstUse } = require("../../lib/process/loaded-on-first-use");
const cdktfDependency = require("./cdktf-dependency");

module.exports = loadedOnFirstUse(() => require(cdktfDependency("archiver")));
