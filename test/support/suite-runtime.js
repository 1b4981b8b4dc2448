"use strict";
/**
 * jest's module runtime for this suite. It does what jest-runtime does, with two differences that
 * cost a worker less CPU the more test files it runs: it compiles each module once per worker instead
 * of once per test file (below), and it releases the AsyncLocalStorage instances a test file put to
 * use when the file ends (./async-context-release.js).
 *
 * Compiling once.
 *
 * jest runs every test file in a fresh vm context and compiles every module the file loads again,
 * with vm.compileFunction (jest-runtime 30, ModuleExecutor#compile). V8 reuses nothing between those
 * compiles: a compileFunction call never looks in the isolate's compilation cache, and jest's
 * importModuleDynamically callback gives each compile host options of its own anyway. cdktf, the
 * provider bindings, zod, yaml and handlebars are megabytes of source, parsed again for each of the
 * ~180 files: about a sixth of a worker's CPU went to compiling (V8's internalCompileFunction in a
 * profile of test/constructs).
 *
 * This runtime compiles a module as vm.Script, with V8's code cache of the same module kept by the
 * worker: the first file to load a module compiles it, and when that file ends the cache is made from
 * the script after it ran, so it holds the functions the file called too, not just the top level.
 * Later files deserialize instead of compiling. Each file still runs every module afresh in its own
 * context: no module, object or state is shared between test files, only compiled code, which V8 ties
 * to no context. The cache is kept only for the same filename and the same transformed source; V8
 * itself checks its version and flags, and a rejected cache is compiled and made again.
 *
 * The module is wrapped as compileFunction would wrap it, inside a function that binds the globals
 * below, on a line of its own (lineOffset -1), so line and column numbers in stack traces and source
 * maps are unchanged. A module that declares a name of its own (`const Map = ...`) shadows the
 * binding as it shadowed the global.
 */
const vm = require("node:vm");
const JestRuntime = require("jest-runtime").default;
const { asyncContextCounts, releaseAsyncLocalStorages, trackAsyncLocalStorages } = require("./async-context-release");

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

/** filename -> { source, data }: the transformed source a cache was made from, and the cache. */
const codeCaches = new Map();

/** Modules this worker compiled afresh, took from a cache, or compiled again because V8 rejected the cache. */
const stats = { compiled: 0, fromCache: 0, rejected: 0 };

class CodeCacheRuntime extends JestRuntime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    if (!executor || typeof executor.compile !== "function" || !Array.isArray(executor.injectedModuleParameters)) {
      // jest-runtime's internals moved (its version is pinned by package-lock.json): say so rather than run slowly or wrongly.
      throw new Error("test/support/suite-runtime.js: jest-runtime no longer has ModuleExecutor#compile; update or remove the runtime in jest.config.js");
    }
    /** Scripts this file compiled without a usable cache; their caches are made at teardown, after they ran. */
    this.scriptsToCache = [];
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (source, filename) => this.compileWithCodeCache(executor, jestCompile, source, filename);
  }

  compileWithCodeCache(executor, jestCompile, source, filename) {
    const context = executor.environment.getVmContext();
    if (context == null) return null;
    const known = codeCaches.get(filename);
    const cachedData = known !== undefined && known.source === source ? known.data : undefined;
    const parameters = executor.injectedModuleParameters.join(", ");
    let script;
    try {
      script = new vm.Script(`(function (${BOUND_GLOBALS}) { return function (${parameters}) {\n${source}\n}; })(${BOUND_GLOBALS})`, {
        filename,
        lineOffset: -1,
        cachedData,
        importModuleDynamically: (specifier, _script, importAttributes) => executor.dynamicImport(specifier, filename, context, importAttributes),
      });
    } catch {
      // A syntax error, or ES module syntax that jest loads another way: jest's own compile words and classifies it.
      return jestCompile(source, filename);
    }
    if (cachedData === undefined) stats.compiled += 1;
    else if (script.cachedDataRejected) stats.rejected += 1;
    else stats.fromCache += 1;
    if (cachedData === undefined || script.cachedDataRejected) this.scriptsToCache.push({ filename, source, script });
    return script.runInContext(context);
  }

  teardown() {
    for (const { filename, source, script } of this.scriptsToCache) codeCaches.set(filename, { source, data: script.createCachedData() });
    this.scriptsToCache = [];
    super.teardown();
    releaseAsyncLocalStorages();
  }
}

module.exports = CodeCacheRuntime;
// $RUNNER_FLEET_CODE_CACHE_STATS names a file each worker appends its counts to, as one JSON line, when it exits.
const statsFile = process.env.RUNNER_FLEET_CODE_CACHE_STATS;
if (statsFile) process.on("exit", () => require("node:fs").appendFileSync(statsFile, `${JSON.stringify({ ...stats, modules: codeCaches.size, ...asyncContextCounts })}\n`));
