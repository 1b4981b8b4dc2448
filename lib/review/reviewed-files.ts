/**
 * The files a review reads from commits, named ahead so that lib/review/committed-files.ts reads them with
 * one git process: each changed cell's model at the base and the head, its committed trace at the head, and
 * each changed trace at both sides with its model at the head. The working tree (no head ref) is read from
 * disk, not asked of git.
 */
import { dirname, join } from "node:path";
import type { ChangedCellsResult } from "./changed-cells";
import type { CommittedPath } from "./committed-files";

/** A cell's committed trace: `<models dir>/traces/<cell>.csv`, beside its model. */
export function cellTraceFile(modelFile: string, cell: string): string {
  return join(dirname(modelFile), "traces", `${cell}.csv`);
}

export function reviewedFiles(changed: ChangedCellsResult, head: string | undefined): CommittedPath[] {
  const atHead = (path: string): CommittedPath[] => (head ? [[head, path]] : []);
  return [
    ...changed.cells.flatMap((cell) => [[changed.baseSha, cell.file] as const, ...atHead(cell.file), ...atHead(cellTraceFile(cell.file, cell.cell))]),
    ...(changed.traces ?? []).flatMap((trace) => [[changed.baseSha, trace.file] as const, ...atHead(trace.file), ...atHead(trace.modelFile)]),
  ];
}
