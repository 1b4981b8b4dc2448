/**
 * `rmSync(path, { recursive: true, force: true })` for a tree the toolkit wrote (without the retries for
 * files another program holds open that Windows needs and Node's own removal makes). Node's removal
 * loads fs/promises, the streams, readline and the directory watchers on first use: about 2 ms of a
 * dry run that only clears its rendered files.
 */
import { lstatSync, readdirSync, rmdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

/** Removes `path` and, for a directory, everything in it; symbolic links are removed, not followed. Nothing there is no error. */
export function removeTree(path: string): void {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isDirectory()) removeDirectory(path);
  else unlinkSync(path);
}

function removeDirectory(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // A file system that does not say an entry's type (readdir's DT_UNKNOWN) leaves it to lstat.
    const known = entry.isFile() || entry.isDirectory() || entry.isSymbolicLink();
    if (known ? entry.isDirectory() : lstatSync(path).isDirectory()) removeDirectory(path);
    else unlinkSync(path);
  }
  rmdirSync(dir);
}
