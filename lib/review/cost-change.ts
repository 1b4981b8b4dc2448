/**
 * What a change does to the monthly cost estimate of each cell it plans: the
 * model at the base ref and at the head (or working tree), both priced with this
 * checkout's price table, so the difference is the model change's alone.
 */
import { estimateCellCost } from "../cost/estimate";
import type { ChangedCellsResult } from "./changed-cells";
import { cellSidesOf, type ModelSide, type ReviewReadOptions } from "./model-sides";

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
  return (await cellSidesOf(changed, options)).map(({ cell, base, head }) => {
    const before = estimate(base);
    const after = estimate(head);
    // A partly priced side compares by what is priced, so its line is kept (and marked) rather than "unknown".
    const partial = (before?.unpriced.length ?? 0) > 0 || (after?.unpriced.length ?? 0) > 0;
    const figures = (side: typeof before) => (side === undefined ? null : side.unpriced.length > 0 ? side.priced : side.total);
    return { cell: cell.cell, before: figures(before), after: figures(after), unpriced: after?.unpriced ?? [], ...(partial ? { partial } : {}) };
  });
}

function estimate(side: ModelSide) {
  if (!side.loaded) return undefined;
  try {
    const { total, priced, unpriced } = estimateCellCost(side.loaded.model);
    return { total, priced, unpriced };
  } catch {
    // An old model this version rejects has no comparable estimate; the review says so.
    return undefined;
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
