/**
 * Synthesizes the stacks of a git ref without touching the working tree: the
 * ref is checked out into a temporary detached worktree, compiled with this
 * checkout's TypeScript and node_modules, and its own synth entry (`cdktf.json`'s `app`)
 * runs there. Each ref is thus synthesized by its own code and templates.
 *
 * In a models repository (its package-lock.json pins runner-fleet) the ref's code is the toolkit version
 * it pins: ./synth-models-ref.ts.
 *
 * Synth contract: the app (`node dist/app/cdktf-app.js`) reads $RUNNER_MODELS_DIR (and
 * optionally $RUNNER_MODELS, comma-separated) and writes
 * `$CDKTF_OUTDIR/stacks/<cell>/cdk.tf.json`, and optionally the files the cell's
 * VMs boot with under `stacks/<cell>/rendered/`; it exits 2 on an invalid model.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { cleanupOnInterrupt, killOnInterrupt } from "../process/interrupt";
import { OperationalError, UserInputError } from "../process/errors";
import { DEFAULT_MODELS_DIR } from "../model/model-files";
import { redactSecrets } from "../text/redact";
import { git, repositoryRoot, resolveCommit, splitNul } from "./changed-cells";
import type { RenderedFiles } from "./rendered-diff";
import { compileThreadArgs } from "./compile-threads";
import { cacheKey, cachedDirectory, synthCacheDir, toolKey } from "./synth-cache";
import type { StackJson } from "./entry-change";
import { pinnedToolkitOf, synthModelsCheckout } from "./synth-models-ref";
import { workingTreeListing } from "./working-tree-code";

/** What a synth wrote, per cell: the stack, and the rendered files its VMs boot with. */
export interface SynthOutput {
  readonly stacks: Map<string, StackJson>;
  readonly rendered: Map<string, RenderedFiles>;
}

/** Nothing synthesized: no cell has a model on that side. */
export function emptySynthOutput(): SynthOutput {
  return { stacks: new Map(), rendered: new Map() };
}

export interface SynthOptions {
  /** A directory inside the checkout whose node_modules and TypeScript compile the code. */
  readonly cwd: string;
  /** Only these cells (model names); the ones a ref has no model for are left out. @default - every model */
  readonly cells?: readonly string[];
  /** Models directory relative to the repository root. @default - $RUNNER_MODELS_DIR, else models */
  readonly modelsDir?: string;
  /** Per step. @default 600000 (10 minutes) */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * Synthesizes `ref` in a throwaway worktree; the worktree is removed whatever happens. With
 * $RUNNER_FLEET_SYNTH_CACHE set, a tree synthesized before is read from the cache (lib/review/synth-cache.ts).
 */
export async function synthRef(ref: string, options: SynthOptions): Promise<SynthOutput> {
  const cwd = resolve(options.cwd);
  const root = await repositoryRoot(cwd);
  const sha = await resolveCommit(ref, cwd);
  const label = `ref "${ref}" (${sha.slice(0, 8)})`;
  const cacheDir = synthCacheDir();
  if (!cacheDir) return synthInWorktree(sha, root, label, options);
  const modelsDir = modelsDirInCheckout(root, root, options);
  const tool = toolKey(root);
  const tree = (await git(["rev-parse", `${sha}^{tree}`], root)).trim();
  const compileCache = { dir: cacheDir, key: await compiledCodeKey(sha, root, modelsDir) };
  const entry = await cachedDirectory(cacheDir, cacheKey("synth", [tree, modelsDir, options.cells ?? null, tool]), async (outdir) => {
    await synthInWorktree(sha, root, label, { ...options, compileCache }, outdir);
  });
  return readSynthOutput(entry, label);
}

async function synthInWorktree(sha: string, root: string, label: string, options: CheckoutSynthOptions, outdir?: string): Promise<SynthOutput> {
  const scratch = mkdtempSync(join(tmpdir(), "runner-fleet-synth-"));
  // git names a worktree's admin directory after the checkout's base name: a unique one keeps two
  // refs synthesized at once (base and head) from racing for ".git/worktrees/src".
  const checkout = join(scratch, basename(scratch));
  let worktreeAdded = false;
  // Ctrl-C skips the finally below: remove the checkout and let git forget the worktree.
  const release = cleanupOnInterrupt(() => {
    rmSync(scratch, { recursive: true, force: true });
    execFileSync("git", ["worktree", "prune"], { cwd: root, stdio: "ignore" });
  });
  try {
    await step(label, "checkout", () => oneWorktreeChangeAtATime(() => git(["worktree", "add", "--detach", checkout, sha], root)));
    worktreeAdded = true;
    return await synthCheckout(checkout, root, outdir ?? join(scratch, "out"), label, options);
  } finally {
    await oneWorktreeChangeAtATime(async () => {
      if (worktreeAdded) await git(["worktree", "remove", "--force", checkout], root, { allowFailure: true });
      rmSync(scratch, { recursive: true, force: true });
      await git(["worktree", "prune"], root, { allowFailure: true });
    });
    release();
  }
}

/**
 * The synth cache's key of the compiled code of commit `sha` in the repository at `root`, `modelsDir`
 * (relative to `root`) being the models directory: its code's content and the tools that compile it.
 */
export async function compiledCodeKey(sha: string, root: string, modelsDir: string = DEFAULT_MODELS_DIR): Promise<string> {
  return codeKey(splitNul(await git(["ls-tree", "-r", "-z", "--full-tree", sha], root)), root, modelsDir);
}

/**
 * The same key for the working tree at `root` as it is on disk (the key of a commit with the same code), or
 * undefined when its files cannot be listed as the compiler would read them (./working-tree-code.ts).
 */
export async function workingTreeCodeKey(root: string, modelsDir: string = DEFAULT_MODELS_DIR): Promise<string | undefined> {
  const listing = await workingTreeListing(root);
  return listing && codeKey(listing, root, modelsDir);
}

/**
 * The key of the files (`git ls-tree` lines, which name each file's content) that compiled code depends
 * on: all but the models, so a commit that changes only models compiles to the code of its parent.
 */
function codeKey(listing: readonly string[], root: string, modelsDir: string): string {
  const prefix = modelsDir === "" ? "" : `${modelsDir.split(sep).join("/")}/`;
  const code = listing.filter((line) => {
    const path = line.slice(line.indexOf("\t") + 1);
    return !(path.startsWith(prefix) && /\.ya?ml$/.test(path));
  });
  return cacheKey("compiled", [code.join("\n"), toolKey(root)]);
}

/**
 * git reads every worktree's admin files while it adds one, and prune deletes those of
 * removed worktrees: base and head synthesized at once must not add, remove or prune
 * concurrently ("failed to read .git/worktrees/<name>/commondir").
 */
let worktreeChanges: Promise<unknown> = Promise.resolve();
function oneWorktreeChangeAtATime<T>(change: () => Promise<T>): Promise<T> {
  const next = worktreeChanges.then(change, change);
  worktreeChanges = next.catch(() => undefined);
  return next;
}

/**
 * Synthesizes the current checkout as it is on disk (compiled first, so dist/ is never stale). With
 * $RUNNER_FLEET_SYNTH_CACHE set, code compiled before (by a ref with the same code, or an earlier run) is
 * written into dist/ as the compiler would write it, instead of compiling.
 */
export async function synthWorkingTree(cwd: string, options: Omit<SynthOptions, "cwd"> & { compile?: boolean } = {}): Promise<SynthOutput> {
  const root = await repositoryRoot(resolve(cwd));
  const cacheDir = synthCacheDir();
  const key = cacheDir && (await workingTreeCodeKey(root, modelsDirInCheckout(root, root, { ...options, cwd: root })));
  const compileCache = cacheDir && key ? { dir: cacheDir, key } : undefined;
  const scratch = mkdtempSync(join(tmpdir(), "runner-fleet-synth-"));
  const release = cleanupOnInterrupt(() => rmSync(scratch, { recursive: true, force: true }));
  try {
    return await synthCheckout(root, root, join(scratch, "out"), "the working tree", { ...options, cwd: root, compileCache });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    release();
  }
}

interface CheckoutSynthOptions extends SynthOptions {
  /** @default true */
  readonly compile?: boolean;
  /** Where the compiled code of this checkout is kept, or found (lib/review/synth-cache.ts). @default - compiled here */
  readonly compileCache?: { readonly dir: string; readonly key: string };
}

/** The models directory as a path inside the checkout. */
function modelsDirInCheckout(checkout: string, toolRoot: string, options: SynthOptions): string {
  const modelsDir = options.modelsDir ?? process.env.RUNNER_MODELS_DIR ?? DEFAULT_MODELS_DIR;
  return isAbsolute(modelsDir) ? relative(toolRoot, modelsDir) : relative(checkout, join(checkout, modelsDir));
}

async function synthCheckout(checkout: string, toolRoot: string, outdir: string, label: string, options: CheckoutSynthOptions): Promise<SynthOutput> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A models repository: no toolkit source to compile; the toolkit version the ref pins synthesizes it.
  if (pinnedToolkitOf(checkout) !== undefined) {
    const modelsPath = join(checkout, modelsDirInCheckout(checkout, toolRoot, options));
    const cells = options.cells?.filter((cell) => hasModel(modelsPath, cell));
    if ((cells && cells.length === 0) || (!cells && !existsSync(modelsPath))) return emptySynthOutput();
    await synthModelsCheckout(checkout, outdir, label, { modelsPath, cells, timeoutMs: timeout });
    return readSynthOutput(outdir, label);
  }
  const toolModules = join(toolRoot, "node_modules");
  const tsc = join(toolModules, ".bin", "tsc");
  if (!existsSync(tsc)) throw new OperationalError(`cannot synthesize ${label}: ${tsc} is missing; run \`npm ci\` first`);
  if (checkout !== toolRoot && !existsSync(join(checkout, "node_modules"))) symlinkSync(toolModules, join(checkout, "node_modules"), "dir");

  const modelsPath = join(checkout, modelsDirInCheckout(checkout, toolRoot, options));
  const cells = options.cells ? options.cells.filter((cell) => hasModel(modelsPath, cell)) : undefined;
  if (cells && cells.length === 0) return emptySynthOutput();
  if (!cells && !existsSync(modelsPath)) return emptySynthOutput();

  if (options.compile !== false) {
    await step(label, "compile", () => compileCheckout(tsc, checkout, timeout, options.compileCache));
  }
  const main = appEntry(checkout);
  if (!existsSync(main)) throw new OperationalError(`cannot synthesize ${label}: ${relative(checkout, main)} was not built`);
  const env: NodeJS.ProcessEnv = { ...process.env, CDKTF_OUTDIR: outdir, RUNNER_MODELS_DIR: modelsPath };
  if (cells) env.RUNNER_MODELS = cells.join(",");
  else delete env.RUNNER_MODELS;
  await step(label, "synth", () => run(process.execPath, [main], { cwd: checkout, timeout, env }));
  return readSynthOutput(outdir, label);
}

/**
 * Compiles the checkout with this checkout's TypeScript (its type checking sized for a review's two
 * compiles at once: ./compile-threads.ts), or writes the same code's compiled output from the cache.
 * Only an output directory of `dist` (the project's layout) is cached. A cache entry holds the files the
 * compiler emitted, no more: a working tree's dist/ may hold older files, which the compiler leaves too.
 */
async function compileCheckout(tsc: string, checkout: string, timeout: number, cache: CheckoutSynthOptions["compileCache"]): Promise<void> {
  const compile = (...extra: string[]) => run(tsc, ["-p", checkout, ...compileThreadArgs(), ...extra], { cwd: checkout, timeout });
  const outDir = join(checkout, "dist");
  if (!cache || compilerOutDir(checkout) !== "dist") {
    await compile();
    return;
  }
  let compiled = false;
  const entry = await cachedDirectory(cache.dir, cache.key, async (directory) => {
    const emitted = (await compile("--listEmittedFiles")).split("\n").flatMap((line) => /^TSFILE: (.+)$/.exec(line)?.[1] ?? []);
    compiled = true;
    for (const file of emitted) {
      const path = relative(outDir, file);
      if (path.startsWith("..")) continue;
      mkdirSync(dirname(join(directory, path)), { recursive: true });
      cpSync(file, join(directory, path));
    }
  });
  if (!compiled) cpSync(entry, outDir, { recursive: true, force: true });
}

/** tsconfig.json's compilerOptions.outDir, when the file is plain JSON and the compiler writes nothing elsewhere. */
function compilerOutDir(checkout: string): string | undefined {
  try {
    const config = JSON.parse(readFileSync(join(checkout, "tsconfig.json"), "utf8")) as { compilerOptions?: { outDir?: unknown; outFile?: unknown; declarationDir?: unknown } };
    const options = config.compilerOptions;
    if (options?.outFile !== undefined || options?.declarationDir !== undefined) return undefined;
    return typeof options?.outDir === "string" ? options.outDir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The checkout's own synth entry, from its `cdktf.json` (`"app": "node <file>"`), so a
 * ref from before a layout change still synthesizes with its own layout. Checkouts
 * without one use the entry this contract started with.
 */
function appEntry(checkout: string): string {
  const config = join(checkout, "cdktf.json");
  if (existsSync(config)) {
    const app = (JSON.parse(readFileSync(config, "utf8")) as { app?: unknown }).app;
    const entry = typeof app === "string" ? /^node\s+(\S+)$/.exec(app.trim())?.[1] : undefined;
    if (entry) return join(checkout, entry);
  }
  return join(checkout, "dist", "stacks", "main.js");
}

/**
 * Reads what synth wrote for every cell: `<outdir>/stacks/<cell>/cdk.tf.json` and the files under
 * `<outdir>/stacks/<cell>/rendered/` (relative path -> content).
 */
function readSynthOutput(outdir: string, label: string): SynthOutput {
  const output = emptySynthOutput();
  const stacksDir = join(outdir, "stacks");
  if (!existsSync(stacksDir)) return output;
  for (const cell of readdirSync(stacksDir).sort()) {
    const stackFile = join(stacksDir, cell, "cdk.tf.json");
    if (existsSync(stackFile)) output.stacks.set(cell, readStackJson(stackFile, label));
    const renderedDir = join(stacksDir, cell, "rendered");
    if (existsSync(renderedDir)) output.rendered.set(cell, readFilesUnder(renderedDir));
  }
  return output;
}

function readStackJson(file: string, label: string): StackJson {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as StackJson;
  } catch (error) {
    throw new OperationalError(`synth of ${label} wrote an unreadable ${file}: ${(error as Error).message}`);
  }
}

/** Every regular file under `root`, by its path relative to `root`, in sorted order. */
function readFilesUnder(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stats = lstatSync(path);
      if (stats.isDirectory()) walk(path, `${prefix}${name}/`);
      else if (stats.isFile()) files.set(`${prefix}${name}`, readFileSync(path, "utf8"));
    }
  };
  walk(root, "");
  return files;
}

function hasModel(modelsPath: string, cell: string): boolean {
  return existsSync(join(modelsPath, `${cell}.yaml`)) || existsSync(join(modelsPath, `${cell}.yml`));
}

class StepFailure extends Error {
  constructor(
    readonly exitCode: number | undefined,
    readonly output: string,
  ) {
    super(output);
  }
}

/** Runs one step; a failure names the ref and the step, and an exit 2 of the synth stays a user error. */
async function step<T>(label: string, name: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof UserInputError) throw error;
    const detail = error instanceof StepFailure ? error.output : error instanceof Error ? error.message : String(error);
    const message = redactSecrets(`synth of ${label} failed at step "${name}": ${detail}`);
    if (error instanceof StepFailure && error.exitCode === 2 && name === "synth") throw new UserInputError(message);
    throw new OperationalError(message);
  }
}

function run(file: string, args: readonly string[], options: { cwd: string; timeout: number; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = execFile(file, [...args], { ...options, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      if (!error) {
        resolvePromise(stdout);
        return;
      }
      const code = typeof error.code === "number" ? error.code : undefined;
      // The compiler's errors, not the list of files it emitted anyway (--listEmittedFiles).
      const lines = `${stderr}\n${stdout}`.trim().split("\n").filter((line) => !line.startsWith("TSFILE: "));
      const tail = lines.slice(-15).join("\n");
      const reason = error.killed ? `timed out after ${options.timeout} ms` : code !== undefined ? `exit ${code}` : error.message;
      reject(new StepFailure(code, `${reason}${tail ? `\n${tail}` : ""}`));
    });
    // A compile or synth still writing into the scratch directory would outlive an interrupt.
    killOnInterrupt(child);
  });
}
