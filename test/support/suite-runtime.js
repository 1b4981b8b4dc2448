"use strict";
/**
 * jest's module runtime for this suite. It does what jest-runtime does, with differences that cost a
 * worker less CPU the more test files it runs: it transforms each module once per worker
 * (./worker-transforms.js) and compiles it once per worker (below) instead of once per test file, and
 * it releases the AsyncLocalStorage instances a test file put to use when the file ends
 * (./async-context-release.js). It also sets V8's optimizing compiler for each file as the product runs
 * the code the file tests (./compiler-per-test-file.js).
 *
 * Compiling once.
 *
 * jest runs every test file in a fresh vm context and compiles every module the file loads again,
 * with vm.compileFunction (jest-runtime 30, ModuleExecutor#compile). V8 reuses nothing between those
 * compiles: a compileFunction call never looks in the isolate's compilation cache, and jest's
 * importModuleDynamically callback gives each compile host options of its own anyway. cdktf, the
 * provider bindings, zod, yaml and handlebars are megabytes of source, parsed again for each of the
 * ~180 files: about a sixth of a worker's CPU went to compiling (V8's internalCompileFunction in a
 * profile of test/constructs). A V8 code cache per module still cost each file ~60 ms to deserialize.
 *
 * This runtime compiles a module once per worker as a vm.Script, which V8 keeps apart from any
 * context, and runs that same script in each later file's context. The functions V8 compiled for
 * one file (lazily, as they were first called) are there for the next. Each file still runs every
 * module afresh in its own context: no module, object or state is shared between test files, only
 * compiled code. A script is kept for the same filename and the same wrapped source only.
 *
 * The module is wrapped as compileFunction would wrap it, inside a function that binds the globals
 * below, on a line of its own (lineOffset -1), so line and column numbers in stack traces and source
 * maps are unchanged. A module that declares a name of its own (`const Map = ...`) shadows the
 * binding as it shadowed the global.
 */
const vm = require("node:vm");
const JestRuntime = require("jest-runtime").default;
const { asyncContextCounts, releaseAsyncLocalStorages, trackAsyncLocalStorages } = require("./async-context-release");
const { keepTransformsForWorker, transformCounts } = require("./worker-transforms");
const { setCompilerForTestFile } = require("./compiler-per-test-file");

trackAsyncLocalStorages();

/**
 * Globals a module reads through a binding of its own, taken from its file's context when the module
 * runs. A global read in a vm context goes through Node's interceptor on the context's global object
 * (jest's GlobalProxy), about 150 ns against under 10 for a local: in a loop of Math.floor,
 * Array.isArray and Object.keys a test file ran 35 times slower than the same loop in plain node.
 * Only what no test replaces is bound: the language's own objects and functions, and Buffer and the
 * typed arrays jest hands in. Date, timers, queueMicrotask and performance (which fake timers
 * replace), process and console stay live global reads.
 */
const BOUND_GLOBALS = [
  "globalThis",
  "Object",
  "Array",
  "Math",
  "JSON",
  "Number",
  "String",
  "Boolean",
  "Symbol",
  "BigInt",
  "Map",
  "Set",
  "WeakMap",
  "WeakSet",
  "Reflect",
  "Proxy",
  "Promise",
  "Error",
  "TypeError",
  "RangeError",
  "SyntaxError",
  "RegExp",
  "Intl",
  "Infinity",
  "NaN",
  "parseInt",
  "parseFloat",
  "isNaN",
  "isFinite",
  "encodeURIComponent",
  "decodeURIComponent",
  "Buffer",
  "ArrayBuffer",
  "Uint8Array",
].join(", ");

/** filename -> { source, parameters, script }: a module's source, jest's module parameters, and the script compiled from them, kept by the worker. */
const scripts = new Map();

/** Modules this worker compiled, and the times a later test file ran one of those scripts again. */
const stats = { compiled: 0, reused: 0 };

/**
 * The test file running in this worker now (jest runs one at a time in a worker): a kept script's
 * dynamic import() belongs to whichever file runs it, not to the file that compiled it.
 */
let current;

class SuiteRuntime extends JestRuntime {
  constructor(...args) {
    super(...args);
    // A runtime is made for each test file, before the file's modules load (args: jest-runtime's, the 7th is testPath).
    setCompilerForTestFile(args[6]);
    const executor = this.executor;
    if (!executor || typeof executor.compile !== "function" || !Array.isArray(executor.injectedModuleParameters) || typeof executor.dynamicImport !== "function") {
      // jest-runtime's internals moved (its version is pinned by package-lock.json): say so rather than run slowly or wrongly.
      throw new Error("test/support/suite-runtime.js: jest-runtime no longer has ModuleExecutor#compile; update or remove the runtime in jest.config.js");
    }
    keepTransformsForWorker(this.transformCache);
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (source, filename) => this.compileOncePerWorker(executor, jestCompile, source, filename);
  }

  compileOncePerWorker(executor, jestCompile, source, filename) {
    const context = executor.environment.getVmContext();
    if (context == null) return null;
    current = { executor, context };
    const parameters = executor.injectedModuleParameters.join(", ");
    let kept = scripts.get(filename);
    // The same text as the kept script's: compared as source and parameters, not as the wrapped text, which
    // would be a new multi-megabyte string to build and compare for every module of every file.
    if (kept !== undefined && kept.source === source && kept.parameters === parameters) {
      stats.reused += 1;
    } else {
      let script;
      try {
        script = new vm.Script(`(function (${BOUND_GLOBALS}) { return function (${parameters}) {\n${source}\n}; })(${BOUND_GLOBALS})`, {
          filename,
          lineOffset: -1,
          importModuleDynamically: (specifier, _script, importAttributes) => current.executor.dynamicImport(specifier, filename, current.context, importAttributes),
        });
      } catch {
        // A syntax error, or ES module syntax that jest loads another way: jest's own compile words and classifies it.
        return jestCompile(source, filename);
      }
      kept = { source, parameters, script };
      scripts.set(filename, kept);
      stats.compiled += 1;
    }
    return kept.script.runInContext(context);
  }

  teardown() {
    super.teardown();
    current = undefined;
    releaseAsyncLocalStorages();
  }
}

module.exports = SuiteRuntime;
// $RUNNER_FLEET_SUITE_RUNTIME_STATS names a file each worker appends its counts to, as one JSON line, when it exits.
const statsFile = process.env.RUNNER_FLEET_SUITE_RUNTIME_STATS;
if (statsFile) process.on("exit", () => require("node:fs").appendFileSync(statsFile, `${JSON.stringify({ ...stats, modules: scripts.size, ...asyncContextCounts, ...transformCounts })}\n`));
