/**
 * What one synthesis thread is given (stacks/synthesis-threads.ts), and its first step on it: cells
 * whose models the caller loaded, or model files the thread loads and checks itself, as the caller's
 * loadModelFile would have; then each cell's files rendered and checked (stacks/rendered-jobs.ts).
 */
import { loadModelFile, type LoadOptions } from "../lib/model/load";
import type { CellJob, CellRequest } from "./cell-synthesis";
import { renderCheckedJobs } from "./rendered-jobs";

export type ThreadShare = { readonly jobs: readonly CellRequest[] } | { readonly files: readonly string[]; readonly load: LoadOptions };

/** The share's cells, loaded, rendered and checked; throws the first error a model or a file has. */
export function preparedJobs(share: ThreadShare): CellJob[] {
  return renderCheckedJobs("jobs" in share ? share.jobs : share.files.map((file) => ({ loaded: loadModelFile(file, share.load) })));
}
