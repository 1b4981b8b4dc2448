/**
 * An optional cache for `review`'s work on git refs, in the directory named by
 * $RUNNER_FLEET_SYNTH_CACHE: a ref's synth output, keyed by the ref's tree (its content, not its
 * name), and its compiled code, keyed by its tree without the model files (a commit that changes
 * only models compiles to the same code); in a models repository, the toolkit a lockfile pins, installed
 * (./synth-models-ref.ts). The keys also hold the node version and this
 * checkout's package-lock.json, which fix the compiler and the libraries.
 *
 * Why: reviewing against the same base again (or two refs with the same code) repeats minutes
 * of work. The test suite sets it for one run, so each tree it reviews is synthesized once.
 *
 * Entries are directories, written under a temporary name and renamed into place, so a reader
 * never sees half of one; a lock file (proper-lockfile) per entry makes a second process (or a
 * second ref of the same review) wait for the first one's result instead of doing the same work.
 * A failed synth or compile leaves no entry.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";

export const SYNTH_CACHE_ENV = "RUNNER_FLEET_SYNTH_CACHE";

export function synthCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[SYNTH_CACHE_ENV] || undefined;
}

/** What the compiler and libraries are: the node version and the tool checkout's lockfile. */
export function toolKey(toolRoot: string): string {
  const lockFile = join(toolRoot, "package-lock.json");
  const lock = existsSync(lockFile) ? readFileSync(lockFile) : Buffer.alloc(0);
  return createHash("sha256").update(process.version).update("\0").update(lock).digest("hex");
}

export function cacheKey(kind: string, parts: readonly unknown[]): string {
  return `${kind}-${createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32)}`;
}

/**
 * A held lock is refreshed by proper-lockfile (every half of this); one not refreshed for this long
 * belongs to a process that died. Generous: on a busy machine a refresh can be seconds late.
 */
const STALE_LOCK_MS = 60_000;

/**
 * The cache entry `key`, produced by `produce(directory)` when the cache has none yet. Returns the
 * entry's directory, to be read only.
 */
export async function cachedDirectory(cacheDir: string, key: string, produce: (directory: string) => Promise<void>): Promise<string> {
  const entry = join(cacheDir, key);
  if (existsSync(entry)) return entry;
  mkdirSync(cacheDir, { recursive: true });
  const release = await lockfile.lock(entry, {
    realpath: false,
    lockfilePath: `${entry}.lock`,
    stale: STALE_LOCK_MS,
    // A compile takes seconds, longer on a busy machine: wait for it rather than repeat it.
    retries: { retries: 1000, minTimeout: 50, maxTimeout: 500, factor: 1.2 },
    // Another process took the lock over as stale: at worst both do the work, and the rename below
    // keeps the first result. Not worth failing a review for.
    onCompromised: () => undefined,
  });
  try {
    if (existsSync(entry)) return entry;
    const partial = `${entry}.partial-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      mkdirSync(partial);
      await produce(partial);
      try {
        renameSync(partial, entry);
      } catch (error) {
        // Only when a process that took the lock over as stale renamed the same work first.
        if (!existsSync(entry)) throw error;
      }
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
    return entry;
  } finally {
    await release().catch(() => undefined);
  }
}
