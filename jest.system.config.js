const base = require("./jest.config");

/**
 * System tests (`npm run test:system`): the manager's boot in real systemd, in containers booted
 * with systemd-nspawn. They need root and the rootfs of tools/setup/system-rootfs.sh, so they are
 * not part of `npm test`.
 */
/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ["<rootDir>/test/system"],
  testPathIgnorePatterns: [],
  // Not root, no systemd-nspawn or no rootfs: the run fails once with one line (support/system-prerequisites.ts).
  globalSetup: "<rootDir>/test/system/support/global-setup.ts",
  globalTeardown: undefined,
  // Waits on real timers (the drain and token-refresh timers fire on their own schedule).
  testTimeout: 150000,
  // Each suite boots its own container; they wait on systemd more than on the CPU.
  maxWorkers: 3,
};
