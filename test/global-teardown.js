"use strict";
/** Removes the synth cache and the temporary directory test/global-setup.js made for this run. */
const { rmSync } = require("node:fs");
const { releaseMemoryTmpdir } = require("./support/memory-tmpdir");

module.exports = async function globalTeardown() {
  const dir = process.env.RUNNER_FLEET_TEST_SYNTH_CACHE_OWNED;
  if (dir) rmSync(dir, { recursive: true, force: true });
  releaseMemoryTmpdir();
};
