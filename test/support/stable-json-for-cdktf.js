"use strict";
/**
 * What `json-stable-stringify` is to the code under test (jest.config.js moduleNameMapper): the writer
 * the command bundles hand cdktf (stableStringifyOr, lib/text/stable-json.ts), so the tests synthesize with the
 * JSON writer the product ships; test/text/stable-json.test.ts compares it with the real package.
 */
const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");
const { stableStringifyOr } = require("../../lib/text/stable-json");

// The copy cdktf resolves (its own, else the top level's), required by its path: through jest, the
// name "json-stable-stringify" maps back to this file.
const REAL = [join(dirname(require.resolve("cdktf/package.json")), "node_modules", "json-stable-stringify"), join(__dirname, "..", "..", "node_modules", "json-stable-stringify")].find(
  (dir) => existsSync(join(dir, "package.json")),
);
if (!REAL) throw new Error("json-stable-stringify, a dependency of cdktf, is not installed: run `npm ci`");

module.exports = stableStringifyOr(() => require(REAL));
