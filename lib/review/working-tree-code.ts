/**
 * The working tree's files as `git ls-tree -r --full-tree` would list them had they been committed: one
 * "<mode> blob <sha>\t<path>" line per file, in git's order, each sha the blob of the file's bytes on disk.
 * A working tree that holds a commit's files lists exactly that commit's lines, so review's compile cache
 * (./synth-ref.ts, ./synth-cache.ts) finds the code a ref compiled to when the working tree has the same
 * code: the usual local review, where only models changed, compiles once instead of twice.
 *
 * What git does not see could still be compiled: an ignored file inside a directory the tsconfig includes.
 * Then, and whenever the listing is in doubt (a merge conflict, a file git does not compare with the disk
 * (assume-unchanged, skip-worktree), a changed symlink, a tsconfig.json that is not plain JSON or extends
 * another), there is no listing and the working tree is compiled.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { git, splitNul } from "./changed-cells";

/** The listing, or undefined when it cannot stand for what the compiler reads (see above). */
export async function workingTreeListing(root: string): Promise<string[] | undefined> {
  const roots = compiledRoots(root);
  if (!roots) return undefined;
  const [staged, changed, ignored] = await Promise.all([
    // -v tags each entry: "H" for a file git compares with the disk (not assume-unchanged or skip-worktree).
    git(["ls-files", "-z", "--stage", "-v"], root),
    git(["ls-files", "-z", "--modified", "--others", "--exclude-standard"], root),
    git(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], root),
  ]);
  if (splitNul(ignored).some((path) => mayBeCompiled(path.replace(/\/$/, ""), roots))) return undefined;

  const entries = new Map<string, string>();
  let shaLength = 40;
  for (const line of splitNul(staged)) {
    const [tag, mode, sha, stage] = line.slice(0, line.indexOf("\t")).split(" ");
    if (tag !== "H" || stage !== "0") return undefined;
    shaLength = sha.length;
    entries.set(line.slice(line.indexOf("\t") + 1), `${mode} ${mode === "160000" ? "commit" : "blob"} ${sha}`);
  }
  for (const path of new Set(splitNul(changed))) {
    const entry = onDisk(root, path, shaLength);
    if (entry === null) return undefined;
    if (entry === undefined) entries.delete(path);
    else entries.set(path, entry);
  }
  // The index's order, which is git's tree order: paths compared byte by byte.
  return [...entries.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map((path) => `${entries.get(path)}\t${path}`);
}

/** The file's entry; undefined when it was deleted, null when it is not a regular file. */
function onDisk(root: string, path: string, shaLength: number): string | undefined | null {
  let stats;
  try {
    stats = lstatSync(join(root, path));
  } catch {
    return undefined;
  }
  if (!stats.isFile()) return null;
  const content = readFileSync(join(root, path));
  const sha = createHash(shaLength === 64 ? "sha256" : "sha1")
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest("hex");
  return `${stats.mode & 0o100 ? "100755" : "100644"} blob ${sha}`;
}

interface CompiledRoots {
  /** The directories and files the tsconfig's `include` and `files` start from ("" for the whole tree). */
  readonly roots: readonly string[];
  readonly outDir: string | undefined;
}

/** Where tsconfig.json makes the compiler look, or undefined when it is not plain JSON or extends another. */
function compiledRoots(root: string): CompiledRoots | undefined {
  let config: { extends?: unknown; include?: unknown; files?: unknown; compilerOptions?: { outDir?: unknown } };
  try {
    config = JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8"));
  } catch {
    return undefined;
  }
  if (config.extends !== undefined) return undefined;
  const patterns = [config.include ?? (config.files === undefined ? ["**/*"] : []), config.files ?? []];
  if (!patterns.every((list) => Array.isArray(list) && list.every((entry) => typeof entry === "string"))) return undefined;
  const outDir = typeof config.compilerOptions?.outDir === "string" ? normalized(config.compilerOptions.outDir) : undefined;
  // A pattern's literal directories, up to its first wildcard.
  const roots = (patterns.flat() as string[]).map((pattern) => {
    const segments = normalized(pattern).split("/");
    const wildcard = segments.findIndex((segment) => /[*?[{]/.test(segment));
    return (wildcard === -1 ? segments : segments.slice(0, wildcard)).join("/");
  });
  return { roots, outDir };
}

/** Whether an ignored path (a file, or a directory git reports whole) holds something the compiler may read. */
function mayBeCompiled(path: string, { roots, outDir }: CompiledRoots): boolean {
  // The compiler's own output, and the packages the tool's lockfile fixes (part of the cache key).
  if (path.split("/").includes("node_modules") || (outDir !== undefined && outDir !== "" && within(path, outDir))) return false;
  return roots.some((root) => within(path, root) || within(root, path));
}

function within(path: string, directory: string): boolean {
  return directory === "" || path === directory || path.startsWith(`${directory}/`);
}

function normalized(path: string): string {
  return path.replace(/^\.\//, "").replace(/\/+$/, "").replace(/^\.$/, "");
}
