/**
 * The suites that review a copy of this checkout (createRepoFromCheckout) compile the copy's code,
 * which is this checkout's sources: a whole tsc run (5-7 CPU-s) for what `npm test` compiled into
 * dist/ just before. seedCompiledCode() puts this checkout's dist/ into the run's synth cache
 * (lib/review/synth-cache.ts) as the copy's compiled code, under the key a review of the copy looks
 * up (the content of its code), so the review reads it instead of compiling.
 *
 * Only when dist/ is what a compile of these sources gives: every output is at least as new as every
 * source tsconfig.json compiles (and every JSON file the code imports), tsconfig.json included (make's rule; tsc rewrites every output on each
 * build). Otherwise (a source edited since the build, a tsconfig this does not read) nothing is seeded
 * and the review compiles, as it would without the cache.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { cachedDirectory, synthCacheDir } from "../../lib/review/synth-cache";
import { compiledCodeKey, workingTreeCodeKey } from "../../lib/review/synth-ref";
import { CHECKOUT_ROOT, type TempRepo } from "./review-temp-repo";

/** Seeds the cache with `checkout`'s dist/ as the compiled code of `repo`'s HEAD, a copy of it; whether it did. */
export async function seedCompiledCode(repo: TempRepo, checkout: string = CHECKOUT_ROOT): Promise<boolean> {
  return seed(repo, checkout, () => compiledCodeKey(repo.git("rev-parse", "HEAD").trim(), repo.dir));
}

/**
 * The same for `repo`'s working tree as it is now, whose code is a copy of `checkout`'s or of a part of it:
 * only the output of the sources the copy holds is seeded (a copy without test/ compiles no dist/test/).
 */
export async function seedWorkingTreeCode(repo: TempRepo, checkout: string = CHECKOUT_ROOT): Promise<boolean> {
  return seed(repo, checkout, () => workingTreeCodeKey(repo.dir));
}

async function seed(repo: TempRepo, checkout: string, key: () => Promise<string | undefined>): Promise<boolean> {
  const cacheDir = synthCacheDir();
  if (!cacheDir || !builtFromTheseSources(checkout)) return false;
  const entry = await key();
  if (!entry) return false;
  const dist = join(checkout, "dist");
  await cachedDirectory(cacheDir, entry, async (directory) => {
    // What tsc -p writes; the command bundles (esbuild's, not the review's) stay out.
    cpSync(dist, directory, {
      recursive: true,
      filter: (path) => {
        const top = relative(dist, path).split(sep)[0];
        return top === "" || (top !== "bundle" && existsSync(join(repo.dir, top.replace(/\.js(\.map)?$/, ".ts"))));
      },
    });
  });
  return true;
}

/** Whether `checkout`'s dist/ is newer than every source its tsconfig.json compiles, and holds each one's output. */
export function builtFromTheseSources(checkout: string): boolean {
  const config = readTsconfig(checkout);
  if (!config) return false;
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: checkout, encoding: "utf8" }).split("\0");
  let newestSource = statSync(join(checkout, "tsconfig.json")).mtimeMs;
  let oldestOutput = Infinity;
  for (const path of tracked) {
    const source = join(checkout, path);
    // Deleted but still tracked: not copied, not compiled.
    if (!existsSync(source)) continue;
    let output: string;
    if (compiledByTsc(path, config)) {
      output = join(checkout, config.outDir, path.replace(/\.ts$/, ".js"));
      if (!existsSync(output)) return false;
    } else if (path.endsWith(".json") && existsSync(join(checkout, config.outDir, path))) {
      // A JSON file the code imports (resolveJsonModule): tsc copies it beside the code.
      output = join(checkout, config.outDir, path);
    } else continue;
    newestSource = Math.max(newestSource, statSync(source).mtimeMs);
    oldestOutput = Math.min(oldestOutput, statSync(output).mtimeMs);
  }
  return oldestOutput !== Infinity && newestSource <= oldestOutput;
}

interface Tsconfig {
  readonly outDir: string;
  /** `include`'s entries: a file, or a directory whose .ts files all count (`dir/**\/*.ts`). */
  readonly files: readonly string[];
  readonly directories: readonly string[];
  /** `exclude`'s directories. */
  readonly excluded: readonly string[];
}

/** tsconfig.json's outDir, include and exclude, when they are of the forms above (rootDir "."); else undefined. */
function readTsconfig(checkout: string): Tsconfig | undefined {
  let raw: { compilerOptions?: { outDir?: unknown; rootDir?: unknown }; include?: unknown; exclude?: unknown };
  try {
    raw = JSON.parse(readFileSync(join(checkout, "tsconfig.json"), "utf8"));
  } catch {
    return undefined;
  }
  const { outDir, rootDir } = raw.compilerOptions ?? {};
  const include = raw.include;
  const exclude = raw.exclude ?? [];
  if (typeof outDir !== "string" || rootDir !== "." || !Array.isArray(include) || !Array.isArray(exclude)) return undefined;
  const files: string[] = [];
  const directories: string[] = [];
  for (const entry of include) {
    if (typeof entry !== "string") return undefined;
    const directory = /^([\w.-]+(?:\/[\w.-]+)*)\/\*\*\/\*\.ts$/.exec(entry)?.[1];
    if (directory) directories.push(`${directory}/`);
    else if (/^[\w.-]+\.ts$/.test(entry)) files.push(entry);
    else return undefined;
  }
  if (!exclude.every((entry): entry is string => typeof entry === "string" && /^[\w.-]+(?:\/[\w.-]+)*$/.test(entry))) return undefined;
  return { outDir, files, directories, excluded: exclude.map((entry) => `${entry}/`) };
}

function compiledByTsc(path: string, config: Tsconfig): boolean {
  if (!path.endsWith(".ts") || path.endsWith(".d.ts")) return false;
  if (config.excluded.some((directory) => path.startsWith(directory))) return false;
  return config.files.includes(path) || config.directories.some((directory) => path.startsWith(directory));
}
