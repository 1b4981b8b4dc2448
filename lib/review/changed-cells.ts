/**
 * Which cells a merge request (or a push) must plan: a changed model plans its
 * own cell, a change to shared code plans every cell, anything else plans none.
 * A deleted model is reported as removed and never planned: destroying a cell's
 * infrastructure must be an explicit act, not a side effect of deleting a file.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { OperationalError, UserInputError } from "../process/errors";
import { DEFAULT_MODELS_DIR } from "../model/model-files";
import { CommittedFiles } from "./committed-files";

/** Paths (relative to the repository root) whose change can alter every cell's stack. */
export const SHARED_CODE_PREFIXES: readonly string[] = ["app/", "lib/", "constructs/", "stacks/", "templates/"];
export const SHARED_CODE_FILES: readonly string[] = ["package.json", "package-lock.json", "tsconfig.json", "cdktf.json"];
/** Under a shared prefix but only about pipelines (the CI/CD component, the child-pipeline and trigger templates): changing them re-plans nothing. */
export const NOT_SHARED_PREFIXES: readonly string[] = ["templates/ci/", "templates/runner-fleet.yml"];

export interface ChangedCellsOptions {
  /** The ref the change is compared with (merge-base semantics: `<base>...<head>`). */
  readonly base: string;
  /** The other side. @default - HEAD plus uncommitted and untracked changes of the checkout */
  readonly head?: string;
  /** A directory inside the git checkout. */
  readonly cwd: string;
  /** Models directory, relative to cwd or absolute. @default - $RUNNER_MODELS_DIR, else ./models */
  readonly modelsDir?: string;
}

export interface ChangedCell {
  readonly cell: string;
  /** The model file, relative to the repository root. */
  readonly file: string;
  /** Why the cell is planned, e.g. "models/cell-1.yaml changed" or "shared code changed (lib/x.ts)". */
  readonly reasons: readonly string[];
}

export interface RemovedCell {
  readonly cell: string;
  readonly file: string;
  readonly reason: string;
}

/** A committed job trace (`<models>/traces/<cell>.csv`, simulate's load) that the change adds or edits. */
export interface ChangedTrace {
  readonly cell: string;
  /** The trace, relative to the repository root. */
  readonly file: string;
  /** The cell's model, relative to the repository root (it may not exist). */
  readonly modelFile: string;
}

export interface ChangedCellsResult {
  readonly base: string;
  readonly baseSha: string;
  /** The head ref, or "working tree". */
  readonly head: string;
  readonly cells: readonly ChangedCell[];
  readonly removed: readonly RemovedCell[];
  /** Changed files that made every cell change. */
  readonly sharedFiles: readonly string[];
  /** Changed files that change no cell (docs, tests, CI, traces). */
  readonly ignoredFiles: readonly string[];
  /** Traces added or edited: they change no stack, but the review simulates the cell on the new load. */
  readonly traces?: readonly ChangedTrace[];
}

/** Runs git with an argument array (never a shell); errors name the git command. */
export function git(args: readonly string[], cwd: string, options: { allowFailure?: boolean } = {}): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile("git", [...args], { cwd, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error && !options.allowFailure) {
        const detail = (stderr || error.message).trim().split("\n").slice(-3).join(" ");
        reject(new OperationalError(`git ${args.join(" ")} failed in ${cwd}: ${detail}`));
        return;
      }
      resolvePromise(error ? "" : stdout);
    });
  });
}

/** The commit a ref names, or a UserInputError naming the ref (a typo, or a shallow clone that lacks it). */
export async function resolveCommit(ref: string, cwd: string): Promise<string> {
  const sha = (await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], cwd, { allowFailure: true })).trim();
  if (!sha) {
    throw new UserInputError(
      `git ref "${ref}" is not a commit in ${cwd} (in CI, a shallow clone may lack it: set GIT_DEPTH: "0" or fetch it)`,
    );
  }
  return sha;
}

export async function repositoryRoot(cwd: string): Promise<string> {
  return (await git(["rev-parse", "--show-toplevel"], cwd)).trim();
}

export async function changedCells(options: ChangedCellsOptions, files: CommittedFiles = new CommittedFiles(resolve(options.cwd))): Promise<ChangedCellsResult> {
  const cwd = resolve(options.cwd);
  const root = await repositoryRoot(cwd);
  const baseSha = await resolveCommit(options.base, cwd);
  const headSha = options.head ? await resolveCommit(options.head, cwd) : undefined;
  const modelsPath = modelsDirInRepository(root, cwd, options.modelsDir);

  const changed = new Set<string>();
  for (const path of splitNul(await git(["diff", "--name-only", "--no-renames", "-z", `${baseSha}...${headSha ?? "HEAD"}`], root))) {
    changed.add(path);
  }
  if (!headSha) {
    // Uncommitted (staged or not) and untracked files count too, so a local run reviews what is on disk.
    for (const path of splitNul(await git(["diff", "--name-only", "--no-renames", "-z", "HEAD"], root))) changed.add(path);
    for (const path of splitNul(await git(["ls-files", "--others", "--exclude-standard", "-z"], root))) changed.add(path);
  }

  const exists = async (path: string): Promise<boolean> => (headSha ? files.exists(headSha, path) : existsSync(join(root, path)));
  const existedAtBase = (path: string) => files.exists(baseSha, path);
  // Whether each changed model and trace is there at either side: asked of git at once.
  const cellFiles = [...changed].filter((path) => traceCellOf(path, modelsPath) || modelCellOf(path, modelsPath));
  await files.prefetch(cellFiles.flatMap((path) => [[baseSha, path] as const, ...(headSha ? [[headSha, path] as const] : [])]));

  const modelReasons = new Map<string, { file: string; reason: string }>();
  const removed: RemovedCell[] = [];
  const sharedFiles: string[] = [];
  const ignoredFiles: string[] = [];
  const traces: ChangedTrace[] = [];
  for (const path of [...changed].sort()) {
    const traceCell = traceCellOf(path, modelsPath);
    if (traceCell && (await exists(path))) traces.push({ cell: traceCell, file: path, modelFile: path.replace(/traces\/[^/]+\.csv$/, `${traceCell}.yaml`) });
    const cell = modelCellOf(path, modelsPath);
    if (cell) {
      const nowExists = await exists(path);
      const before = await existedAtBase(path);
      if (nowExists) modelReasons.set(cell, { file: path, reason: `${path} ${before ? "changed" : "added"}` });
      else if (before) removed.push({ cell, file: path, reason: `${path} deleted` });
      // Added and deleted again without a commit: no change at all.
    } else if (isSharedCode(path)) {
      sharedFiles.push(path);
    } else {
      ignoredFiles.push(path);
    }
  }

  const cells = new Map<string, ChangedCell>();
  if (sharedFiles.length > 0) {
    const sharedReason = `shared code changed (${summarizeFiles(sharedFiles)})`;
    const removedCells = new Set(removed.map((entry) => entry.cell));
    for (const { cell, file } of await listModelsAtHead(root, modelsPath, headSha)) {
      if (!removedCells.has(cell)) cells.set(cell, { cell, file, reasons: [sharedReason] });
    }
  }
  for (const [cell, { file, reason }] of modelReasons) {
    const shared = cells.get(cell);
    cells.set(cell, { cell, file, reasons: [reason, ...(shared?.reasons ?? [])] });
  }

  return {
    base: options.base,
    baseSha,
    head: options.head ?? "working tree",
    cells: [...cells.values()].sort((a, b) => a.cell.localeCompare(b.cell)),
    removed: removed.sort((a, b) => a.cell.localeCompare(b.cell)),
    sharedFiles,
    ignoredFiles,
    traces,
  };
}

/** The cell a path is the committed trace of (`<models>/traces/<cell>.csv`), if it is one. */
export function traceCellOf(path: string, modelsPath: string): string | undefined {
  return /^traces\/([^/]+)\.csv$/.exec(underModelsDir(path, modelsPath) ?? "")?.[1];
}

/** The cell a path is the model of (`<models>/<cell>.yaml`), if it is one. */
export function modelCellOf(path: string, modelsPath: string): string | undefined {
  return /^([^/]+)\.ya?ml$/.exec(underModelsDir(path, modelsPath) ?? "")?.[1];
}

/** A path relative to the models directory, or undefined when it is not under it. */
function underModelsDir(path: string, modelsPath: string): string | undefined {
  const prefix = modelsPath === "" || modelsPath === "." ? "" : `${modelsPath.replace(/\/+$/, "")}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

export function isSharedCode(path: string): boolean {
  if (NOT_SHARED_PREFIXES.some((prefix) => path.startsWith(prefix))) return false;
  return SHARED_CODE_FILES.includes(path) || SHARED_CODE_PREFIXES.some((prefix) => path.startsWith(prefix));
}

function modelsDirInRepository(root: string, cwd: string, explicit?: string): string {
  const dir = explicit ?? process.env.RUNNER_MODELS_DIR ?? DEFAULT_MODELS_DIR;
  const absolute = isAbsolute(dir) ? dir : join(cwd, dir);
  const inRepository = relative(root, absolute).split("\\").join("/");
  if (inRepository.startsWith("..")) throw new UserInputError(`models directory ${dir} is outside the git repository ${root}`);
  return inRepository;
}

async function listModelsAtHead(root: string, modelsPath: string, headSha?: string): Promise<{ cell: string; file: string }[]> {
  const files = headSha
    ? splitNul(await git(["ls-tree", "--name-only", "-z", `${headSha}:${modelsPath || "."}`], root, { allowFailure: true })).map((name) =>
        modelsPath ? `${modelsPath}/${name}` : name,
      )
    : await listWorkingTreeModels(root, modelsPath);
  return files
    .map((file) => ({ cell: modelCellOf(file, modelsPath), file }))
    .filter((entry): entry is { cell: string; file: string } => entry.cell !== undefined)
    .sort((a, b) => a.cell.localeCompare(b.cell));
}

function listWorkingTreeModels(root: string, modelsPath: string): string[] {
  const dir = join(root, modelsPath);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => (modelsPath ? `${modelsPath}/${basename(name)}` : name));
}

export function splitNul(output: string): string[] {
  return output.split("\0").filter((path) => path !== "");
}

function summarizeFiles(files: readonly string[]): string {
  const shown = files.slice(0, 3).join(", ");
  return files.length > 3 ? `${shown} and ${files.length - 3} more` : shown;
}
