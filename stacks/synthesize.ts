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
import { CellSynthesis, type CellRequest, type SynthesizedCell } from "./cell-synthesis";
import { renderCheckedJobs } from "./rendered-jobs";
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
  const requests: CellRequest[] = models.map((loaded) => ({ loaded, heldManagerSlots: options.heldManagerSlots?.get(loaded.model.cell.id) }));
  const threadCount = synthThreadCount(models.length);
  const threaded = threadCount > 1 ? new SynthesisThreads(threadCount - 1, outdir, workDir).synthesize(requests, outdir, workDir) : undefined;
  // Serial, or a thread found a broken file or a cell a construct refuses: the serial synthesis throws
  // its error, as it always has. Every cell's files are rendered and checked before any stack is built.
  return threaded ?? new CellSynthesis(renderCheckedJobs(requests), outdir, workDir).write();
}
