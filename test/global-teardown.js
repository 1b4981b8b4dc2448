"use strict";
/** Removes the run's temporary directory that test/global-setup.js made, and everything tests left in it. */
const { rmSync } = require("node:fs");

module.exports = async function globalTeardown() {
  const dir = process.env.RUNNER_FLEET_TEST_RUN_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
};
