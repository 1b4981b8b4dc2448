/**
 * Each cell's boot files, rendered once and checked (config.toml parsed, scripts through `bash -n`)
 * before any of the cells' stacks is built: a broken template stops the synthesis naming the file.
 * The same content then goes to the stack's templates and beside the stack for review. Each synthesis
 * thread renders and checks its own share of the cells (stacks/synthesis-threads.ts).
 */
import { checkRenderedCells } from "../lib/render/check-rendered";
import { renderCellFiles, renderedFileList } from "../lib/render/rendered-files";
import type { CellJob, CellRequest } from "./cell-synthesis";

/** `requests` with their files rendered; throws the RenderedFileError of the first cell with a broken file. */
export function renderCheckedJobs(requests: readonly CellRequest[]): CellJob[] {
  const jobs = requests.map((request) => ({ ...request, rendered: renderCellFiles(request.loaded.model) }));
  // One check for all: the scripts of every cell go to one bash process.
  checkRenderedCells(jobs.map((job) => ({ cell: job.loaded.model.cell.id, files: renderedFileList(job.rendered) })));
  return jobs;
}
