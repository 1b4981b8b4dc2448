"use strict";
/**
 * jest's own order (last run's failures first, then the longest files), except that files which only
 * read a result another file makes go last. test/real-engine/held-manager-slots.test.ts reads the one
 * AWS plan of the run (test/support/real-engine/aws-shared-plan.ts), which aws-offline-plan.test.ts
 * makes too: started together, as jest's longest-first order starts them, one worker sat idle for the
 * whole plan (12 s of a 2-core run) waiting on the other's lock. Last, it finds the plan made.
 */
const Sequencer = require("@jest/test-sequencer").default;

const READERS_OF_SHARED_WORK = [/[\\/]test[\\/]real-engine[\\/]held-manager-slots\.test\.ts$/];

const readsSharedWork = (test) => READERS_OF_SHARED_WORK.some((pattern) => pattern.test(test.path));

class SharedWorkLastSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter((test) => !readsSharedWork(test)), ...sorted.filter(readsSharedWork)];
  }
}

module.exports = SharedWorkLastSequencer;
