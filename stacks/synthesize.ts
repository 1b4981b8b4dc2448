/**
 * Synthesizes cells in-process (no cdktf CLI needed), one Terraform stack per cell with, beside
 * each, the files reviewers and the summaries read (stacks/cell-synthesis.ts). Many cells are split
 * between threads (stacks/synthesis-threads.ts); the output is the same.
 *
 * cdktf, the constructs and the renderers load on first use (~0.3 s): a caller that synthesizes model
 * files gives the worker threads their shares before this thread loads any of them.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureOutputDirectory } from "../lib/files/output-directory";
import { defaultSynthOutDir, workspaceDir } from "../lib/files/workspace";
import type * as LoadModule from "../lib/model/load";
import type { LoadedModel, LoadOptions } from "../lib/model/load";
import type { PreviousTemplate } from "../lib/roll/manager-slots";
import type * as CellSynthesisModule from "./cell-synthesis";
import type { CellRequest, SynthesizedCell } from "./cell-synthesis";
import { cloudHint } from "./cloud-hint";
import type * as RenderedJobsModule from "./rendered-jobs";
import { SynthesisThreads, synthThreadCount } from "./synthesis-threads";
import type { ThreadShare } from "./thread-share";

export type { SynthesizedCell } from "./cell-synthesis";

export interface SynthesizeOptions {
  /** Output directory. @default $CDKTF_OUTDIR (set by the cdktf CLI), else cdktf.out in `workDir` */
  readonly outdir?: string;
  /** Resolves relative local state paths. @default the workspace (lib/files/workspace.ts) */
  readonly workDir?: string;
  /** Per cell, the manager slots (`shard/slot`) to hold at the revision they run. @default none */
  readonly heldManagerSlots?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per cell, the Google manager slots whose previous template is kept beside the current one. @default none */
  readonly previousTemplates?: ReadonlyMap<string, ReadonlyMap<string, PreviousTemplate>>;
}

export interface ModelFilesSynthesizeOptions extends Omit<SynthesizeOptions, "heldManagerSlots" | "previousTemplates"> {
  /** How each model file is loaded (loadModelFile's options). @default none */
  readonly load?: LoadOptions;
}

export function synthesizeCells(models: readonly LoadedModel[], options: SynthesizeOptions = {}): SynthesizedCell[] {
  const { outdir, workDir } = outputOf(options);
  const requests: CellRequest[] = models.map((loaded) => ({
    loaded,
    heldManagerSlots: options.heldManagerSlots?.get(loaded.model.cell.id),
    previousTemplates: options.previousTemplates?.get(loaded.model.cell.id),
  }));
  const threaded = inThreads(requests, outdir, workDir, { cloudOf: (request) => request.loaded.model.cloud.provider, shareOf: (jobs) => ({ jobs }) });
  return threaded ?? synthesizeSerially(requests, outdir, workDir);
}

/**
 * What `synthesizeCells(files.map((file) => loadModelFile(file, options.load)), options)` returns,
 * writes and throws (the first invalid model's error, in file order, with nothing written), with each
 * synthesis thread loading and checking its own share of the models.
 */
export function synthesizeModelFiles(files: readonly string[], options: ModelFilesSynthesizeOptions = {}): SynthesizedCell[] {
  const { outdir, workDir } = outputOf(options);
  // Resolved here, as loadModelFile would: a worker's copy of the environment is not this thread's.
  const load: LoadOptions = { ...options.load, workspace: options.load?.workspace ?? workspaceDir() };
  const threaded = inThreads(files, outdir, workDir, { cloudOf: cloudHint, shareOf: (share) => ({ files: share, load }) });
  if (threaded) return threaded;
  const { loadModelFile } = require("../lib/model/load") as typeof LoadModule;
  // Every model is loaded (and the first invalid one throws) before the output directory is made.
  return synthesizeSerially(
    files.map((file) => ({ loaded: loadModelFile(file, load) })),
    outdir,
    workDir,
  );
}

/**
 * `items` synthesized on as many threads as they are worth (synthThreadCount); undefined when one thread
 * is (the caller synthesizes serially) or when a thread found an error (serially, it throws it again).
 */
function inThreads<T>(
  items: readonly T[],
  outdir: string,
  workDir: string,
  how: { readonly cloudOf: (item: T) => string | undefined; readonly shareOf: (items: T[]) => ThreadShare },
): SynthesizedCell[] | undefined {
  const threadCount = synthThreadCount(items.length);
  if (threadCount <= 1) return undefined;
  return new SynthesisThreads(threadCount - 1, outdir, workDir).synthesize(items, { ...how, beforeConstruct: () => makeOutputDirectory(outdir) }, outdir, workDir);
}

function outputOf(options: SynthesizeOptions): { outdir: string; workDir: string } {
  const workDir = options.workDir ?? workspaceDir();
  return { workDir, outdir: options.outdir ?? process.env.CDKTF_OUTDIR ?? defaultSynthOutDir(workDir) };
}

function makeOutputDirectory(outdir: string): void {
  ensureOutputDirectory(outdir, "the synthesis output directory");
  // Made here, not by each thread's App at once (a directory two threads create together fails one of them).
  mkdirSync(join(outdir, "stacks"), { recursive: true });
}

/** On this thread: the output directory, then every cell's files rendered and checked, then every stack built, then written. */
function synthesizeSerially(requests: readonly CellRequest[], outdir: string, workDir: string): SynthesizedCell[] {
  makeOutputDirectory(outdir);
  const { CellSynthesis } = require("./cell-synthesis") as typeof CellSynthesisModule;
  const { renderCheckedJobs } = require("./rendered-jobs") as typeof RenderedJobsModule;
  return new CellSynthesis(renderCheckedJobs(requests), outdir, workDir).write();
}
