"use strict";
/**
 * Once per jest run, before any worker starts: a fresh directory for review's synth cache
 * (lib/review/synth-cache.ts), shared by every worker through the environment they inherit. The
 * review suites copy this checkout and review commits over it: the same trees, synthesized and
 * compiled once per run instead of once per suite. Its keys are the trees' content, so a suite
 * never reads what another tree synthesized. Removed by test/global-teardown.js.
 */
const { mkdtempSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { useMemoryTmpdir } = require("./support/memory-tmpdir");

module.exports = async function globalSetup() {
  // Temporary files in memory where there is room (./support/memory-tmpdir.js); the cache below too.
  useMemoryTmpdir();
  const dir = mkdtempSync(join(tmpdir(), "runner-fleet-test-synth-cache-"));
  process.env.RUNNER_FLEET_SYNTH_CACHE = dir;
  process.env.RUNNER_FLEET_TEST_SYNTH_CACHE_OWNED = dir;
};
