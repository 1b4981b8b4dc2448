/**
 * A temporary directory in memory (/dev/shm, a tmpfs) where the machine has one, else under the
 * system's temporary directory. For tests that make the product write many small files it syncs to
 * disk (the local secret store fsyncs each runner token): on a tmpfs fsync returns at once, on a
 * disk each one waits for the journal, which makes a test of 120 shards wait seconds for nothing
 * it checks.
 */
import { accessSync, constants, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SHARED_MEMORY = "/dev/shm";

function memoryBase(): string {
  try {
    if (!statSync(SHARED_MEMORY).isDirectory()) return tmpdir();
    accessSync(SHARED_MEMORY, constants.W_OK);
    return SHARED_MEMORY;
  } catch {
    return tmpdir();
  }
}

/** A new directory named `<prefix>XXXXXX`; the caller removes it. */
export function memoryScratchDir(prefix: string): string {
  return mkdtempSync(join(memoryBase(), prefix));
}
