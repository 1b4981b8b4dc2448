"use strict";
/**
 * jest's own order (last run's failures first, then the longest files, or the largest without timings),
 * except that the file making the run's one real AWS plan (test/real-engine/aws-offline-plan.test.ts)
 * starts first. It spends ~10 s waiting on terraform: started first, that overlaps the rest of the
 * suite; started late (a small file, so last on a run without jest's timings), it was the suite's tail.
 */
const Sequencer = require("@jest/test-sequencer").default;

const STARTED_FIRST = [/[\\/]test[\\/]real-engine[\\/]aws-offline-plan\.test\.ts$/];

const startsFirst = (test) => STARTED_FIRST.some((pattern) => pattern.test(test.path));

class LongWaitFirstSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return [...sorted.filter(startsFirst), ...sorted.filter((test) => !startsFirst(test))];
  }
}

module.exports = LongWaitFirstSequencer;
