/**
 * What a change does to the monthly cost estimate of each cell it plans: the
 * model at the base ref and at the head (or working tree), both priced with this
 * checkout's price table (and each side's own cost.hourly_prices), so the difference is the model
 * change's alone. Where each side's prices came from, with their dates, is said beside the figures.
 */
import { estimateCellCost, pricesUsed } from "../cost/estimate";
import type { ChangedCellsResult } from "./changed-cells";
import { cellSidesOf, type ModelSide, type ReviewReadOptions } from "./model-sides";

export interface MonthlyCost {
  /** null: unknown, as a machine type of that side has no price; never 0 for what is not priced. */
  readonly idle: number | null;
  readonly max: number | null;
  /** For a partly priced side: what its priced machine types cost (a lower bound, said as such). */
  readonly pricedPart?: { readonly idle: number; readonly max: number };
}

export interface CellCostChange {
  readonly cell: string;
  /** null: no model at that side, or one this version cannot read. */
  readonly before: MonthlyCost | null;
  readonly after: MonthlyCost | null;
  /** Machine types the head's estimate has no price for. */
  readonly unpriced: readonly string[];
  /** Where the prices of both sides came from, with their dates ("m7i.large from data/prices.json: ..., as of 2025-01"). */
  readonly prices?: readonly string[];
}

export async function costChanges(changed: ChangedCellsResult, options: ReviewReadOptions): Promise<CellCostChange[]> {
  return (await cellSidesOf(changed, options)).map(({ cell, base, head }) => {
    const before = estimate(base);
    const after = estimate(head);
    const prices = [...new Set([...(before?.prices ?? []), ...(after?.prices ?? [])])];
    return { cell: cell.cell, before: figures(before), after: figures(after), unpriced: after?.unpriced ?? [], prices };
  });
}

/** A side's totals: unknown where anything is unpriced, with the priced part beside them when some of it is priced. */
function figures(side: ReturnType<typeof estimate>): MonthlyCost | null {
  if (side === undefined) return null;
  if (side.unpriced.length === 0) return side.total;
  return { idle: null, max: null, ...(side.priced.max > 0 ? { pricedPart: side.priced } : {}) };
}

function estimate(side: ModelSide) {
  if (!side.loaded) return undefined;
  try {
    const cost = estimateCellCost(side.loaded.model);
    return { total: cost.total, priced: cost.priced, unpriced: cost.unpriced, prices: pricesUsed(cost) };
  } catch {
    // An old model this version rejects has no comparable estimate; the review says so.
    return undefined;
  }
}

/**
 * "$1,200.00 → $1,450.00 a month at idle capacity, $9,000.00 → $12,000.00 at maximum". An unpriced side
 * reads "unknown" (with its priced part, when there is one), so a move to an unpriced region never
 * reads as a saving; undefined when both sides read the same.
 */
export function describeCostChange(change: CellCostChange, money: (amount: number | null) => string): string | undefined {
  const side = (cost: MonthlyCost | null, pick: "idle" | "max") => {
    if (cost === null) return "none";
    if (cost[pick] !== null) return money(cost[pick]);
    return cost.pricedPart ? `unknown (priced part ${money(cost.pricedPart[pick])})` : "unknown";
  };
  const [idleBefore, idleAfter, maxBefore, maxAfter] = [side(change.before, "idle"), side(change.after, "idle"), side(change.before, "max"), side(change.after, "max")];
  if (change.before === null && change.after === null) return undefined;
  if (idleBefore === idleAfter && maxBefore === maxAfter) return undefined;
  // "estimate": the dry run's figure from the policies' idle capacity and the maximum; the simulated cost of a
  // week's jobs, where the review simulates, is a line of its own ("simulated cost").
  const sources = change.prices && change.prices.length > 0 ? ` (prices: ${change.prices.join("; ")})` : "";
  return `monthly cost estimate (the dry run's) ${idleBefore} → ${idleAfter} at idle capacity, ${maxBefore} → ${maxAfter} at maximum${sources}`;
}
