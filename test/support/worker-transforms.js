"use strict";
/**
 * A module's transformed code, kept by the worker for the test files that load it after the first.
 *
 * For every module a test file loads, jest-runtime 30 (TransformCache#transform) reads the file,
 * decodes it, and hands it to the ScriptTransformer, which hashes it with the transform's
 * configuration and reads @swc/jest's output back from jest's cache directory. A test file's runtime
 * and transformer are its own, so this is done again for each of a worker's ~60 files, for each of the
 * ~1,000 modules of cdktf, the providers and the project: about 65 ms a file in a profile.
 *
 * Here the first file's result is kept and replayed as jest records it (the runtime's transforms and
 * source maps, which its stack traces and code frames read), as long as the file is the same one: its
 * device, inode, size and modification time (nanoseconds) are checked on every load. A test that
 * writes a module and loads it, then writes it again, gets the new text.
 */
const { statSync } = require("node:fs");

/** filename + transform options -> { identity, file }: the file's stat identity and jest's transformed file. */
const transformed = new Map();
const counts = { transformed: 0, replayed: 0 };

function identityOf(filename) {
  const stat = statSync(filename, { bigint: true, throwIfNoEntry: false });
  return stat === undefined ? undefined : `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}

/** Makes `transformCache` (a test file's TransformCache) replay what an earlier file of this worker transformed. */
function keepTransformsForWorker(transformCache) {
  const { transforms, sourceMaps } = transformCache;
  if (typeof transformCache.transform !== "function" || !(transforms instanceof Map) || !(sourceMaps instanceof Map)) {
    throw new Error("test/support/worker-transforms.js: jest-runtime's TransformCache changed; update or remove it in test/support/suite-runtime.js");
  }
  const transform = transformCache.transform.bind(transformCache);
  transformCache.transform = (filename, options) => {
    // jest's own modules (the test framework's adapter) are read as they are, never transformed.
    if (options?.isInternalModule) return transform(filename, options);
    const key = `${filename}\0${JSON.stringify(options ?? {})}`;
    const identity = identityOf(filename);
    const kept = transformed.get(key);
    if (kept !== undefined && identity !== undefined && kept.identity === identity) {
      transforms.set(filename, kept.file);
      if (kept.file.sourceMapPath) sourceMaps.set(filename, kept.file.sourceMapPath);
      counts.replayed += 1;
      return kept.file.code;
    }
    const code = transform(filename, options);
    const file = transforms.get(filename);
    if (identity !== undefined && file !== undefined && file.code === code) transformed.set(key, { identity, file });
    counts.transformed += 1;
    return code;
  };
}

module.exports = { keepTransformsForWorker, transformCounts: counts };
