"use strict";
/**
 * Shared by bin/*: runs a command from its bundle (dist/bundle/<command>.js, built by `npm ci` or
 * `npm run build`), or explains how to build it.
 *
 * Start-up is most of what a person waits for in a dry run, and compiling the bundle is a good part
 * of it. So the bundle runs through vm.Script with V8's code cache: the functions a run compiled are
 * kept beside the bundle (<bundle>.v8-cache) and reused by the next run. V8 checks the cache against
 * the source, its own version and flags, and rejects it on any difference; a rejected or missing
 * cache is written again at exit. (Node 22's module.enableCompileCache() does the same, but caches
 * what a module compiled while loading, not what the run went on to compile; and Node 20 has none.)
 *
 * With NODE_OPTIONS=--enable-source-maps the bundle is required plainly instead, so stack traces
 * point into the TypeScript sources through its source map.
 */
const { isAscii } = require("node:buffer");
const { existsSync, readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { dirname, join } = require("node:path");
const vm = require("node:vm");

/** `options.name`: the name the command's help and errors give it (`runner-fleet provision`). @default command */
module.exports = function loadCommand(command, factory, options = {}) {
  const bundle = join(__dirname, "..", "dist", "bundle", `${command}.js`);
  if (!existsSync(bundle)) {
    process.stderr.write(`error: ${bundle} is missing; run \`npm ci\` (or \`npm run build\`) first\n`);
    process.exit(1);
  }
  const exports = process.sourceMapsEnabled ? require(bundle) : runWithCodeCache(bundle);
  const program = exports[factory]();
  if (options.name !== undefined) program.name(options.name);
  exports.main(program);
};

/** Runs a CommonJS file as require would, compiled with (and leaving behind) a V8 code cache. */
function runWithCodeCache(file) {
  const cacheFile = `${file}.v8-cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(readSource(file)), { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) process.once("exit", () => writeCodeCache(script, cacheFile));
  const module = new Module(file, require.main);
  module.filename = file;
  module.paths = Module._nodeModulePaths(dirname(file));
  module.loaded = true;
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file));
  return module.exports;
}

/** A bundle is ASCII but for a character or two; ASCII read as latin1 is the same text, decoded several times faster. */
function readSource(file) {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.utf8Slice(0, bytes.length);
}

/** At exit, so the cache holds every function this run compiled. A cache that cannot be written is only slower. */
function writeCodeCache(script, cacheFile) {
  const partial = `${cacheFile}.${process.pid}`;
  try {
    writeFileSync(partial, script.createCachedData());
    // Renamed into place: a command running at the same moment reads the old cache or the new one, never half.
    renameSync(partial, cacheFile);
  } catch {
    rmSync(partial, { force: true });
  }
}
