/**
 * The warnings `prepare` and `provision --dry-run` print for a model, shown in the review too: a reviewer
 * sees "one NAT gateway for three zones" on the merge request that keeps it, not only in a job log.
 * Read from the head side (the working tree or --head), for the cells the change plans.
 */
import { formatIssue } from "../model/issues";
import { parseModel } from "../model/load";
import type { ChangedCellsResult } from "./changed-cells";
import { committedFilesOf, headModelText, type ReviewReadOptions } from "./cost-change";
import { repositoryRoot } from "./changed-cells";

export interface CellModelWarnings {
  readonly cell: string;
  /** Each as `prepare` prints it: file:line:col, what was expected and what the model holds. */
  readonly warnings: readonly string[];
}

export async function modelWarnings(changed: ChangedCellsResult, options: ReviewReadOptions): Promise<CellModelWarnings[]> {
  const files = committedFilesOf(options);
  const root = await repositoryRoot(options.cwd);
  const out: CellModelWarnings[] = [];
  for (const cell of changed.cells) {
    const text = await headModelText(files, root, cell.file, options.head);
    const warnings = warningsOf(text, cell.file);
    if (warnings.length > 0) out.push({ cell: cell.cell, warnings });
  }
  return out;
}

function warningsOf(text: string, file: string): string[] {
  if (!text) return [];
  try {
    return parseModel(text, file).warnings.map(formatIssue);
  } catch {
    // An invalid model fails the synth of that side, which the review already reports.
    return [];
  }
}
