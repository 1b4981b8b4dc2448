/**
 * Synthesizes cells in-process (no cdktf CLI needed), one Terraform stack per cell with, beside
 * each, the files reviewers and the summaries read (stacks/cell-synthesis.ts). Many cells are split
 * between threads (stacks/synthesis-threads.ts); the output is the same.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureOutputDirectory } from "../lib/files/output-directory";
import { defaultSynthOutDir, workspaceDir } from "../lib/files/workspace";
import type { LoadedModel } from "../lib/model/load";
import { checkRenderedCells } from "../lib/render/check-rendered";
import { renderCellFiles, renderedFileList } from "../lib/render/rendered-files";
import { CellSynthesis, type CellJob, type SynthesizedCell } from "./cell-synthesis";
import { SynthesisThreads, synthThreadCount } from "./synthesis-threads";

export { managerSlots, resourceShards, type SynthesizedCell } from "./cell-synthesis";

export interface SynthesizeOptions {
  /** Output directory. @default $CDKTF_OUTDIR (set by the cdktf CLI), else cdktf.out in `workDir` */
  readonly outdir?: string;
  /** Resolves relative local state paths. @default the workspace (lib/files/workspace.ts) */
  readonly workDir?: string;
  /** Per cell, the manager slots (`shard/slot`) to hold at the revision they run. @default none */
  readonly heldManagerSlots?: ReadonlyMap<string, ReadonlySet<string>>;
}

export function synthesizeCells(models: readonly LoadedModel[], options: SynthesizeOptions = {}): SynthesizedCell[] {
  const workDir = options.workDir ?? workspaceDir();
  const outdir = options.outdir ?? process.env.CDKTF_OUTDIR ?? defaultSynthOutDir(workDir);
  ensureOutputDirectory(outdir, "the synthesis output directory");
  // Made here, not by each thread's App at once (a directory two threads create together fails one of them).
  mkdirSync(join(outdir, "stacks"), { recursive: true });
  const threadCount = synthThreadCount(models.length);
  // Started first: the workers load cdktf and the providers while this thread renders and checks.
  const threads = threadCount > 1 ? new SynthesisThreads(threadCount - 1, outdir, workDir) : undefined;

  let jobs: CellJob[];
  try {
    // Parsed first: a broken template stops here, naming the file, before any stack is written.
    // Rendered once: the check, the files written for review and the stack's templates get the same content.
    jobs = models.map((loaded) => ({
      loaded,
      rendered: renderCellFiles(loaded.model),
      heldManagerSlots: options.heldManagerSlots?.get(loaded.model.cell.id),
    }));
    checkRenderedCells(jobs.map((job) => ({ cell: job.loaded.model.cell.id, files: renderedFileList(job.rendered) })));
  } catch (error) {
    threads?.stop();
    throw error;
  }
  // A cell a construct refuses: the serial synthesis throws its error, as it always has.
  return threads?.synthesize(jobs, outdir, workDir) ?? new CellSynthesis(jobs, outdir, workDir).write();
}
