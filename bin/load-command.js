"use strict";
/**
 * Shared by bin/*: runs a command from its bundle (dist/bundle/<command>.js, built by `npm run build`, which
 * `npm pack` runs too), or explains how to build it.
 *
 * Start-up is most of what a person waits for in a dry run, and compiling the bundle is a good part
 * of it. So the bundle runs through vm.Script with V8's code cache: the functions a run compiled are
 * kept beside the bundle (<bundle>.v8-cache) and reused by the next run. V8 checks the cache against
 * its own version and flags and the source's length, not its text: a bundle rebuilt to the same
 * length would run the old build's functions. So the cache also names the bundle file it was made
 * from (device, inode, size, modification and change times, taken from the open file before it is
 * read): any write to the bundle moves its change time, which no copy or install can set back, and a
 * cache naming another file is not used. A rejected, foreign or missing cache is written again at
 * exit. (Node 22's module.enableCompileCache() keys by content, but caches what a module compiled
 * while loading, not what the run went on to compile; and Node 20 has none.)
 *
 * With NODE_OPTIONS=--enable-source-maps the bundle is required plainly instead, so stack traces
 * point into the TypeScript sources through its source map.
 */
const { isAscii } = require("node:buffer");
const { closeSync, existsSync, fstatSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { dirname, join } = require("node:path");
const { setFlagsFromString } = require("node:v8");
const vm = require("node:vm");

/** `options.name`: the name the command's help and errors give it (`runner-fleet provision`). @default command */
module.exports = function loadCommand(command, factory, options = {}) {
  const bundle = join(__dirname, "..", "dist", "bundle", `${command}.js`);
  if (!existsSync(bundle)) {
    process.stderr.write(`error: ${bundle} is missing; run \`npm run build\` first (after \`npm ci\`; \`npm run setup\` does both)\n`);
    process.exit(1);
  }
  if (!OPTIMIZED_COMMANDS.has(command)) setOptimizingCompiler(false);
  const exports = loadBundle(bundle);
  const program = exports[factory]();
  if (options.name !== undefined) program.name(options.name);
  exports.main(program);
};

/**
 * The commands whose runs are long enough to pay for V8's optimizing compiler (TurboFan): simulate
 * replays a week of jobs through one hot loop (0.7 CPU-s with it, 3.4 without).
 *
 * Every other command is over in a fraction of a second, or waits on the network or an engine, and
 * TurboFan's compiles (on threads beside the main one, and the exit waits for the last of them) cost
 * it more than the optimized code saves: without them a one-cell dry run took 236 instead of 303 ms
 * of CPU and 216 instead of 249 ms of wall time. That still holds for many cells, threads and all: 16
 * cells 0.97 instead of 1.21 CPU-s, 100 cells 2.85 instead of 3.26 (the main thread's share 8% more,
 * the compiler threads' 1.0 CPU-s less). The flag is set before the bundle is compiled: V8 checks a code
 * cache against the flags it was made under, and the cache is made at exit, so the flags must be the
 * same from the compile to the exit. A node started with a TurboFan flag of its own keeps it.
 */
const OPTIMIZED_COMMANDS = new Set(["simulate"]);

/**
 * Turns TurboFan on or off for the rest of this process, its threads included, unless node was started
 * with a TurboFan flag of its own, which then holds. Off before any bundle is compiled: by loadCommand,
 * and by loadSynthesisBundle for the other entries that synthesize (the cdktf app, the bench), so that the
 * synthesis bundle's code cache is made and used under the same flags whichever of them runs it. The
 * test suite sets it per test file (test/support/compiler-per-test-file.js).
 */
function setOptimizingCompiler(optimized) {
  if (!process.execArgv.some((arg) => /^--(no[-_]?)?(opt|turbofan)(=|$)/.test(arg))) setFlagsFromString(optimized ? "--turbofan" : "--no-turbofan");
}
module.exports.setOptimizingCompiler = setOptimizingCompiler;

/** The synthesis threads' bundle (build/bundle-commands.js), which bin/synthesis-thread.js runs in each thread. */
const SYNTHESIS_BUNDLE = join(__dirname, "..", "dist", "bundle", "synthesis.js");
module.exports.SYNTHESIS_BUNDLE = SYNTHESIS_BUNDLE;

/**
 * For the entries that synthesize outside a command (the cdktf app, the bench): TurboFan off, as the
 * commands and threads run (setOptimizingCompiler), then the synthesis bundle's exports, or
 * undefined where the build made no bundle (a checkout compiled with tsc alone: the caller runs the
 * compiled modules, under the same flags).
 */
function loadSynthesisBundle() {
  setOptimizingCompiler(false);
  return existsSync(SYNTHESIS_BUNDLE) ? loadBundle(SYNTHESIS_BUNDLE) : undefined;
}
module.exports.loadSynthesisBundle = loadSynthesisBundle;

/** A bundle's exports, run as described above. The command bundles load their shared parts with it (dist/bundle/gitlab-client.js). */
function loadBundle(file) {
  return process.sourceMapsEnabled ? require(file) : runWithCodeCache(file);
}
module.exports.loadBundle = loadBundle;

/** Set while a bundle's text is run for the function it holds (see build/bundle-commands.js). */
const BUNDLE_LOADER = Symbol.for("runner-fleet.bundle-loader");

/** Runs a CommonJS file as require would, compiled with (and leaving behind) a V8 code cache. */
function runWithCodeCache(file) {
  const cacheFile = `${file}.v8-cache`;
  const { identity, source } = readBundle(file);
  const cachedData = cacheFor(cacheFile, identity);
  // The bundle's text is the function Node's wrapper would make of a module (build/bundle-commands.js),
  // its value while this mark is set; required plainly, it runs itself.
  const script = new vm.Script(source, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected) {
    if (pendingCodeCaches.length === 0) process.once("exit", writeCodeCachesNow);
    pendingCodeCaches.push(() => writeCodeCache(script, cacheFile, identity));
  }
  const module = new Module(file, require.main);
  module.filename = file;
  module.paths = Module._nodeModulePaths(dirname(file));
  module.loaded = true;
  let moduleFunction;
  globalThis[BUNDLE_LOADER] = true;
  try {
    moduleFunction = script.runInThisContext();
  } finally {
    delete globalThis[BUNDLE_LOADER];
  }
  moduleFunction.call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file));
  return module.exports;
}

/**
 * The bundle's text and the identity of the file it was read from, stat'ed on the open file before
 * reading: a bundle replaced or rewritten meanwhile leaves an identity older than the text, so the
 * cache made from that text is never taken for a later file.
 */
function readBundle(file) {
  const fd = openSync(file, "r");
  try {
    const stat = fstatSync(fd, { bigint: true });
    const line = `runner-fleet bundle ${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    // Padded to a multiple of 8 bytes: V8 uses cached data in place only when it starts on an 8-byte
    // boundary, and copies it (megabytes) otherwise.
    const identity = `${line.padEnd(Math.ceil((line.length + 1) / 8) * 8 - 1, " ")}\n`;
    return { identity, source: decode(readFileSync(fd)) };
  } finally {
    closeSync(fd);
  }
}

/** A bundle is ASCII but for a character or two; ASCII read as latin1 is the same text, decoded several times faster. */
function decode(bytes) {
  return isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.utf8Slice(0, bytes.length);
}

/** The V8 data of the cache when it was made from the bundle file `identity` names, else undefined. */
function cacheFor(cacheFile, identity) {
  let bytes;
  try {
    bytes = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const header = Buffer.from(identity, "latin1");
  return bytes.length > header.length && bytes.subarray(0, header.length).equals(header) ? bytes.subarray(header.length) : undefined;
}

/** The code caches this process (or thread) has still to write: at exit, or when its work is done (below). */
const pendingCodeCaches = [];

/**
 * Writes the pending code caches now. A synthesis thread calls it (through the global below) once it has
 * written its last stack, before it answers: the thread that started it then terminates it, and a
 * terminated thread runs no 'exit' handler, so its bundle's cache was never written and every later run
 * compiled dist/bundle/synthesis.js again on each thread.
 */
function writeCodeCachesNow() {
  for (const write of pendingCodeCaches.splice(0)) write();
}
/** Where a bundle finds writeCodeCachesNow: the bundles do not require this file. */
globalThis[Symbol.for("runner-fleet.write-code-caches")] = writeCodeCachesNow;

/** At exit, so the cache holds every function this run compiled. A cache that cannot be written is only slower. */
function writeCodeCache(script, cacheFile, identity) {
  // Its own name in each thread (the synthesis threads of one process may write the same cache at once),
  // without loading worker_threads for a threadId.
  const partial = `${cacheFile}.${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
  try {
    writeFileSync(partial, Buffer.concat([Buffer.from(identity, "latin1"), script.createCachedData()]));
    // Renamed into place: a command running at the same moment reads the old cache or the new one, never half.
    renameSync(partial, cacheFile);
  } catch {
    rmSync(partial, { force: true });
  }
}
