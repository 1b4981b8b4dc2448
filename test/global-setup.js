"use strict";
/**
 * Once per jest run, before any worker starts, three directories that every worker and every process
 * a test starts inherit through the environment:
 *
 * - A temporary directory for the whole run (TMPDIR, which os.tmpdir(), mktemp and terraform read), in
 *   memory where there is room (./support/memory-tmpdir.js):
 *   tests make scratch directories by the thousand (cdktf's Testing.app() makes one per app and never
 *   removes it), and a run must not leave them behind in the machine's /tmp.
 * - A fresh directory inside it for review's synth cache (lib/review/synth-cache.ts). The review suites
 *   copy this checkout and review commits over it: the same trees, synthesized and compiled once per
 *   run instead of once per suite. Its keys are the trees' content, so a suite never reads what another
 *   tree synthesized.
 *
 * - A cache directory inside it (XDG_CACHE_HOME): what the commands keep between runs (the `bash -n`
 *   verdicts, lib/render/bash-verdict-cache.ts) starts empty in every run, as on a newcomer's machine,
 *   and never reaches the user's own ~/.cache.
 *
 * All go with the run's directory in test/global-teardown.js.
 *
 * And one variable goes: NODE_EXTRA_CA_CERTS. Node 20 reads that file and builds its root store as each
 * process starts, whether the process makes a TLS connection or not (nodejs/node#40524); with a machine's whole CA bundle
 * there (144 certificates on the machine the budgets are measured on) a bare `node -e 0` takes 70 ms
 * instead of 20, and the suite starts some 400 node processes (the commands, the fake terraform, npm).
 * No process a test starts reaches a server beyond this machine, and the tests of private CAs set the
 * variable to their own CA (test/gitlab-wire/private-ca-and-proxy.test.ts).
 */
const { mkdirSync, mkdtempSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { memoryTmpBase } = require("./support/memory-tmpdir");

const RUN_PREFIX = "runner-fleet-test-";

module.exports = async function globalSetup() {
  // In memory where there is room (./support/memory-tmpdir.js), named after this jest process.
  const run = mkdtempSync(join(memoryTmpBase(RUN_PREFIX) ?? tmpdir(), `${RUN_PREFIX}${process.pid}-`));
  const synthCache = join(run, "synth-cache");
  mkdirSync(synthCache);
  process.env.TMPDIR = run;
  process.env.XDG_CACHE_HOME = join(run, "cache");
  process.env.RUNNER_FLEET_TEST_RUN_DIR = run;
  process.env.RUNNER_FLEET_SYNTH_CACHE = synthCache;
  delete process.env.NODE_EXTRA_CA_CERTS;
};
