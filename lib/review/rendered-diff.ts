/**
 * What changes on the machines: a unified text diff of each rendered file a cell's VMs boot
 * with (config.toml, startup scripts), read from `cdktf.out/stacks/<cell>/rendered/`.
 *
 * The synth writes these files token-free (the token is a placeholder read at boot), and every
 * line shown is redacted again on the way out. Files whose change is the same (every manager of a
 * shard gets the same `concurrent`) are shown once, with all their paths.
 */
import { structuredPatch } from "diff";
import { redactSecrets } from "../text/redact";

/** Rendered files of one cell: relative path (`<shard>/manager-0/config.toml`) -> content. */
export type RenderedFiles = ReadonlyMap<string, string>;

export interface RenderedFileChange {
  /** Every file this very change applies to, sorted; a moved file as `old → new`. */
  readonly paths: readonly string[];
  /** "moved": the same content under another path (a renamed shard's files, renamed_from). */
  readonly status: "added" | "removed" | "changed" | "moved";
  /** Unified diff hunks ("@@ -5,7 +5,7 @@", then " ", "-", "+" lines); empty for added and removed files. */
  readonly patch: readonly string[];
  /** Patch lines left out to keep the review readable. */
  readonly omittedLines: number;
}

/** Lines of context around each change, as `diff -u` shows them. */
const CONTEXT_LINES = 3;
/** Patch lines shown per change before the rest is counted. */
const MAX_PATCH_LINES = 150;

export function diffRenderedFiles(before: RenderedFiles = new Map(), after: RenderedFiles = new Map()): RenderedFileChange[] {
  const groups = new Map<string, { status: RenderedFileChange["status"]; patch: string[]; paths: string[] }>();
  const add = (path: string, status: RenderedFileChange["status"], patch: string[]) => {
    const key = `${status}\n${patch.join("\n")}`;
    const group = groups.get(key) ?? { status, patch, paths: [] };
    group.paths.push(path);
    groups.set(key, group);
  };
  // A file gone from one path and found, byte for byte, under another (a shard renamed with renamed_from keeps
  // what its VMs boot with) is a move, not a removal and an addition a reviewer would read as new content.
  const gone = [...before.keys()].filter((path) => !after.has(path));
  const moved = new Map<string, string>();
  for (const path of [...after.keys()].filter((entry) => !before.has(entry)).sort()) {
    const from = gone.find((old) => !moved.has(old) && before.get(old) === after.get(path));
    if (from !== undefined) moved.set(from, path);
  }
  const movedTo = new Set(moved.values());
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(path);
    const next = after.get(path);
    if (moved.has(path)) add(`${path} → ${moved.get(path)}`, "moved", []);
    else if (movedTo.has(path)) continue;
    else if (old === undefined) add(path, "added", []);
    else if (next === undefined) add(path, "removed", []);
    else if (old !== next) add(path, "changed", unifiedHunks(old, next));
  }
  return [...groups.values()].map(({ status, patch, paths }) => ({
    paths,
    status,
    patch: patch.slice(0, MAX_PATCH_LINES),
    omittedLines: Math.max(0, patch.length - MAX_PATCH_LINES),
  }));
}

/** The hunks of a unified diff, without the file header lines. */
export function unifiedHunks(before: string, after: string): string[] {
  const { hunks } = structuredPatch("before", "after", before, after, "", "", { context: CONTEXT_LINES });
  return hunks.flatMap((hunk) => [
    `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ...hunk.lines.map((line) => redactSecrets(line)),
  ]);
}
