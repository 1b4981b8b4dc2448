/**
 * Reads a model file's bytes safely: a model is a small regular file, so anything
 * else (a directory, a device such as /dev/zero, a FIFO, a file over the size limit)
 * is refused before a byte is parsed, and the read itself is bounded even if the file
 * grows underneath us.
 */
import { closeSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { ModelValidationError } from "./issues";
import { missingModelHint } from "./missing-model";

/** Far above any real model (the examples are a few KiB), far below what hurts the parser. */
export const MAX_MODEL_FILE_BYTES = 1024 * 1024;

export function readModelFileBytes(file: string): Buffer {
  const refuse = (expected: string, received: string, hint?: string): never => {
    throw new ModelValidationError(file, [{ severity: "error", file, path: [], line: 1, column: 1, expected, received, hint }]);
  };
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return refuse("an existing model file", "no file", missingModelHint(file));
    return refuse(`a readable file (${code ?? "stat failed"})`, "no file");
  }
  if (!stats.isFile()) return refuse("a regular file", kindOf(stats));
  if (stats.size > MAX_MODEL_FILE_BYTES) return refuse(`a model file of at most ${MAX_MODEL_FILE_BYTES} bytes (1 MiB)`, `${stats.size} bytes`);

  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (cause) {
    return refuse(`a readable file (${(cause as NodeJS.ErrnoException).code ?? "open failed"})`, "no access");
  }
  try {
    // One byte more than allowed tells a file that grew past the limit after stat.
    const buffer = Buffer.alloc(MAX_MODEL_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > MAX_MODEL_FILE_BYTES) return refuse(`a model file of at most ${MAX_MODEL_FILE_BYTES} bytes (1 MiB)`, "more");
    }
    return buffer.subarray(0, length);
  } catch (cause) {
    if (cause instanceof ModelValidationError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    return refuse(code === "EISDIR" ? "a file, not a directory" : `a readable file (${code ?? "read failed"})`, "no file");
  } finally {
    closeSync(fd);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isFIFO()) return "a named pipe";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}
