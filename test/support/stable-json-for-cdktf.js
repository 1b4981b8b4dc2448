"use strict";
/**
 * What `json-stable-stringify` is to the code under test (jest.config.js moduleNameMapper): the writer
 * the command bundles hand cdktf (stableStringifyOr, lib/text/stable-json.ts), so the tests synthesize with the
 * JSON writer the product ships; test/text/stable-json.test.ts compares it with the real package.
 */
const { stableStringifyOr } = require("../../lib/text/stable-json");
const cdktfDependency = require("./cdktf-dependency");

module.exports = stableStringifyOr(() => require(cdktfDependency("json-stable-stringify")));
