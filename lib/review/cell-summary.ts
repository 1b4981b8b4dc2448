/**
 * The review of one cell: what the plan (or synth) changes and what the fleet
 * can run. Its JSON form is what `--json` prints.
 */
import type { RunnerModel } from "../model/schema";
import type { EngineName } from "../terraform/toolchain-check";
import { capacityOf, type CellCapacity } from "./capacity";
import { inShardOrder, type ChangeSummary } from "./change-summary";

export interface CellChangeSummary {
  readonly cell: string;
  /** The engine that planned; absent for a dry run. */
  readonly engine?: { readonly name: EngineName; readonly version?: string };
  /** Absolute path of the saved plan; absent for a dry run. */
  readonly planFile?: string;
  readonly changes: ChangeSummary;
  readonly capacity: CellCapacity;
}

export function cellChangeSummary(
  model: RunnerModel,
  changes: ChangeSummary,
  planned: { readonly engine?: CellChangeSummary["engine"]; readonly planFile?: string } = {},
): CellChangeSummary {
  return {
    cell: model.cell.id,
    ...(planned.engine ? { engine: planned.engine } : {}),
    ...(planned.planFile ? { planFile: planned.planFile } : {}),
    changes: inShardOrder(changes, model.shards.map((shard) => shard.name)),
    capacity: capacityOf(model),
  };
}
