"use strict";
/**
 * Each test file runs with V8's optimizing compiler (TurboFan) on or off as the code it tests runs in the
 * product: off, as every command but `simulate` runs (bin/load-command.js, OPTIMIZED_COMMANDS), and on for
 * the simulator's tests, whose week of jobs is one hot loop.
 *
 * Why it matters more in jest than in a command: every test file runs its modules afresh in a context
 * of its own (test/support/suite-runtime.js shares only compiled bytecode), so each file's closures
 * start with empty feedback, and TurboFan compiled the same hot functions again for every file, on
 * threads beside the worker's. In a run of the whole suite on two cores the workers' own CPU went from
 * 57.4 to 51.2 s with TurboFan off everywhere, while the simulator's files went from 2.7 to 8.3 s:
 * hence the exception.
 *
 * The flag is V8's, for the whole worker, and set again before each file (jest runs one file at a time
 * in a worker). A jest started with a TurboFan flag of its own (`node --turbofan node_modules/.bin/jest`)
 * keeps it for every file.
 */
const { join, sep } = require("node:path");
const { setOptimizingCompiler } = require(join(__dirname, "..", "..", "bin", "load-command.js"));

/** Test folders whose code the product runs with TurboFan: the simulator's (see OPTIMIZED_COMMANDS). */
const OPTIMIZED_TEST_FOLDERS = [`${sep}test${sep}simulate${sep}`];

/** Sets TurboFan on or off for the test file about to run in this worker (as the product's loader does). */
function setCompilerForTestFile(testPath) {
  setOptimizingCompiler(OPTIMIZED_TEST_FOLDERS.some((folder) => testPath.includes(folder)));
}

module.exports = { setCompilerForTestFile };
