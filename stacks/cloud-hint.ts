/**
 * The cloud a model file names, read from its text without loading it: the synthesis threads
 * (stacks/synthesis-threads.ts) group model files by cloud before any thread loads them, so that a
 * thread given cells of one cloud loads only that cloud's provider classes. Only where a cell is
 * synthesized depends on it: a file it reads wrong (or cannot read) is loaded, checked and
 * synthesized all the same, by a thread that then loads one provider more.
 */
import { readFileSync } from "node:fs";

/** `cloud.provider` as written in block style (`cloud:` at the top level, `provider:` under it), else undefined. */
export function cloudHint(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const cloud = /^cloud:[ \t]*(?:#.*)?\r?\n((?:(?:[ \t]+.*|[ \t]*|#.*)(?:\r?\n|$))*)/m.exec(text);
  return cloud ? /^[ \t]+provider:[ \t]*["']?([A-Za-z0-9_-]+)/m.exec(cloud[1])?.[1] : undefined;
}
