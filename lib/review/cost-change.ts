/**
 * What a change does to the monthly cost estimate of each cell it plans: the
 * model at the base ref and at the head (or working tree), both priced with this
 * checkout's price table, so the difference is the model change's alone.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { estimateCellCost } from "../cost/estimate";
import { parseModel } from "../model/load";
import type { ChangedCellsResult } from "./changed-cells";
import { repositoryRoot } from "./changed-cells";
import { CommittedFiles } from "./committed-files";

export interface MonthlyCost {
  readonly idle: number | null;
  readonly max: number | null;
}

export interface CellCostChange {
  readonly cell: string;
  /** null: no model at that side, or one this version cannot read. */
  readonly before: MonthlyCost | null;
  readonly after: MonthlyCost | null;
  /** Machine types the head's estimate has no price for. */
  readonly unpriced: readonly string[];
  /** True when a side has unpriced machine types: its figures are the priced part only (a lower bound). */
  readonly partial?: boolean;
}

export async function costChanges(changed: ChangedCellsResult, options: ReviewReadOptions): Promise<CellCostChange[]> {
  const files = committedFilesOf(options);
  const root = await repositoryRoot(options.cwd);
  const out: CellCostChange[] = [];
  for (const cell of changed.cells) {
    const baseText = await files.text(changed.baseSha, cell.file);
    const headText = await headModelText(files, root, cell.file, options.head);
    const before = estimate(baseText, cell.file);
    const after = estimate(headText, cell.file);
    // A partly priced side compares by what is priced, so its line is kept (and marked) rather than "unknown".
    const partial = (before?.unpriced.length ?? 0) > 0 || (after?.unpriced.length ?? 0) > 0;
    const figures = (side: typeof before) => (side === undefined ? null : side.unpriced.length > 0 ? side.priced : side.total);
    out.push({ cell: cell.cell, before: figures(before), after: figures(after), unpriced: after?.unpriced ?? [], ...(partial ? { partial } : {}) });
  }
  return out;
}

/** What the review's readers of models are given: where, the head ref (the working tree without one), and the files the commits hold. */
export interface ReviewReadOptions {
  readonly cwd: string;
  readonly head?: string;
  /** Shared by a review's readers, so each file is read once. @default - a set of the call's own */
  readonly files?: CommittedFiles;
}

export function committedFilesOf(options: ReviewReadOptions): CommittedFiles {
  return options.files ?? new CommittedFiles(options.cwd);
}

/** A model file at the head ref, or in the working tree without one; "" when it is not there. */
export async function headModelText(files: CommittedFiles, root: string, file: string, head?: string): Promise<string> {
  return head ? files.text(head, file) : readOrEmpty(join(root, file));
}

function estimate(text: string, file: string) {
  if (!text) return undefined;
  try {
    const { total, priced, unpriced } = estimateCellCost(parseModel(text, file).model);
    return { total, priced, unpriced };
  } catch {
    // An old model this version rejects has no comparable estimate; the review says so.
    return undefined;
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** "$1,200.00 → $1,450.00 a month at idle capacity, $9,000.00 → $12,000.00 at maximum". */
export function describeCostChange(change: CellCostChange, money: (amount: number | null) => string): string | undefined {
  if (change.before === null && change.after === null) return undefined;
  const same = change.before !== null && change.after !== null && change.before.idle === change.after.idle && change.before.max === change.after.max;
  if (same) return undefined;
  const mark = change.partial ? " (priced part)" : "";
  const side = (cost: MonthlyCost | null, pick: keyof MonthlyCost) => (cost === null ? "none" : `${money(cost[pick])}${cost[pick] === null ? "" : mark}`);
  return `monthly cost estimate ${side(change.before, "idle")} → ${side(change.after, "idle")} at idle capacity, ${side(change.before, "max")} → ${side(change.after, "max")} at maximum`;
}
