const { availableParallelism } = require("node:os");

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  // Each module is compiled once per worker and later test files run the same compiled script (every file
  // still runs its modules afresh), and a file's AsyncLocalStorages are released when it ends
  // (test/support/suite-runtime.js).
  runtime: "<rootDir>/test/support/suite-runtime.js",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // The system tests need root and a container rootfs: `npm run test:system` (jest.system.config.js).
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/system/"],
  transform: {
    "^.+\\.ts$": ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }],
  },
  // The second records each file's CPU time, only for `npm run bench -- --suite` (bench/suite-time.ts).
  // As in the command bundles, cdktf's archiver loads on first use (test/support/archiver-on-first-use.js),
  // cdktf writes its JSON with lib/text/stable-json.ts (test/support/stable-json-for-cdktf.js), and zod's
  // locales are English alone (test/support/zod-english-only.js: zod is the only package that requires a
  // "../locales/index.cjs").
  moduleNameMapper: {
    "^archiver$": "<rootDir>/test/support/archiver-on-first-use.js",
    "^json-stable-stringify$": "<rootDir>/test/support/stable-json-for-cdktf.js",
    "^\\.\\./locales/index\\.cjs$": "<rootDir>/test/support/zod-english-only.js",
  },
  setupFilesAfterEnv: ["<rootDir>/test/setup-jest.js", "<rootDir>/test/support/suite-cpu-recorder.ts"],
  // One temporary directory per run (TMPDIR, removed at the end) and one synth cache for the review
  // suites inside it (test/global-setup.js).
  globalSetup: "<rootDir>/test/global-setup.js",
  globalTeardown: "<rootDir>/test/global-teardown.js",
  // The file that makes the one real AWS plan starts first, to overlap the rest (test/sequencer.js).
  testSequencer: "<rootDir>/test/sequencer.js",
  testTimeout: 30000,
  // Jest's default (cores - 1) runs a 2-core machine in band, one suite at a time. A worker often waits:
  // on child processes (terraform, git, bash, the commands), and on the real clock in the tests of rate
  // limits and retries. One worker more than there are cores fills that time: on a quiet 2-core machine
  // the suite took 119 s with two workers, 100 s with three and 109 s with four.
  maxWorkers: availableParallelism() + 1,
};
