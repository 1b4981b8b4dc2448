/**
 * The warnings `prepare` and `provision --dry-run` print for a model, shown in the review too: a reviewer
 * sees "one NAT gateway for three zones" on the merge request that keeps it, not only in a job log.
 * Read from the head side (the working tree or --head), for the cells the change plans.
 */
import { formatIssue } from "../model/issues";
import type { ChangedCellsResult } from "./changed-cells";
import { cellSidesOf, type ReviewReadOptions } from "./model-sides";

export interface CellModelWarnings {
  readonly cell: string;
  /** Each as `prepare` prints it: file:line:col, what was expected and what the model holds. */
  readonly warnings: readonly string[];
}

export async function modelWarnings(changed: ChangedCellsResult, options: ReviewReadOptions): Promise<CellModelWarnings[]> {
  return (await cellSidesOf(changed, options)).flatMap(({ cell, head }) => {
    const warnings = head.loaded?.warnings.map(formatIssue) ?? [];
    return warnings.length > 0 ? [{ cell: cell.cell, warnings }] : [];
  });
}
