/**
 * A temporary directory in memory (/dev/shm, a tmpfs) where the machine has one with room enough,
 * else under the system's temporary directory. For tests whose set-up writes many files: on a disk
 * each file costs the kernel (and its journal) more than on a tmpfs, and each fsync waits for the
 * disk (the local secret store fsyncs every runner token). Where /dev/shm is small (a container's
 * is 64 MB by default), a test that needs more than it has gets the ordinary temporary directory.
 */
import { accessSync, constants, mkdtempSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SHARED_MEMORY = "/dev/shm";

function memoryBase(neededBytes: number): string {
  try {
    if (!statSync(SHARED_MEMORY).isDirectory()) return tmpdir();
    accessSync(SHARED_MEMORY, constants.W_OK);
    const { bavail, bsize } = statfsSync(SHARED_MEMORY);
    // Twice what the test needs: other test files may be writing there at the same time.
    return bavail * bsize >= 2 * neededBytes ? SHARED_MEMORY : tmpdir();
  } catch {
    return tmpdir();
  }
}

/** A new directory named `<prefix>XXXXXX` for a test that writes up to `neededBytes` into it; the caller removes it. */
export function memoryScratchDir(prefix: string, neededBytes: number): string {
  return mkdtempSync(join(memoryBase(neededBytes), prefix));
}
