"use strict";
/**
 * Releases, when a test file ends, the AsyncLocalStorage instances that the file put to use.
 *
 * jest-circus 30 loads its adapter (build/jestAdapterInit.js) into every test file's context, and each
 * load makes an AsyncLocalStorage of its own (testExecutionContext) and runs every test in it. Node 20
 * keeps each instance that ever ran in one list for the whole process (lib/async_hooks.js, storageList)
 * and, on every promise and every other async resource created, calls _propagate on each instance in
 * that list. Nothing ever disables jest-circus's instances, so a worker's Nth test file pays N calls
 * per promise: in a profile of the suite run in band, 9 s of CPU went to _propagate alone. A file's
 * instances are of no use once it has ended (its tests and hooks have all run), and disable() takes an
 * instance out of the list (and turns the hook off when the list is empty).
 *
 * Only instances that were put to use (run or enterWith) while the file ran are released; the count of
 * releases is kept for test/tools/suite-runtime.test.ts.
 */
const { AsyncLocalStorage } = require("node:async_hooks");

/** Instances run or entered since the current test file began. */
const inUse = new Set();
const counts = { released: 0 };
let tracking = false;

/** Records every AsyncLocalStorage this worker runs or enters, from now on (once per worker). */
function trackAsyncLocalStorages() {
  if (tracking) return;
  tracking = true;
  const { run, enterWith } = AsyncLocalStorage.prototype;
  AsyncLocalStorage.prototype.run = function trackedRun(...args) {
    inUse.add(this);
    return run.apply(this, args);
  };
  AsyncLocalStorage.prototype.enterWith = function trackedEnterWith(...args) {
    inUse.add(this);
    return enterWith.apply(this, args);
  };
}

/** Disables the instances put to use since the last release: a test file has ended. */
function releaseAsyncLocalStorages() {
  for (const storage of inUse) {
    storage.disable();
    counts.released += 1;
  }
  inUse.clear();
}

module.exports = { trackAsyncLocalStorages, releaseAsyncLocalStorages, asyncContextCounts: counts };
