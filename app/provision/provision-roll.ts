/**
 * provision's side of a roll: each phase re-synthesizes the cell with some manager slots held,
 * plans it with the cell's engine driver and applies that plan; GitLab (onboard --status) says
 * which managers are online.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { LoadedModel } from "../../lib/model/load";
import type { PlanJson } from "../../lib/terraform/plan-json";
import type { EngineDriver } from "../../lib/terraform/engine";
import { synthesizeCells } from "../../stacks/synthesize";
import { runOnboard } from "../commands/onboard";
import { addTallies, describeTally, type RequestTally } from "../../lib/gitlab/request-pacer";
import { formatMs } from "../../lib/gitlab/retry";
import { MANAGER_SLOTS_FILE, type PreviousTemplate, type SlotKey } from "../../lib/roll/manager-slots";
import { rollPlanOf, type RollPlan } from "../../lib/roll/roll-plan";
import { runRoll, type RollTiming, type SeenManager } from "../../lib/roll/run-roll";

/** Clock and pacing of a roll; tests replace them. */
export interface RollClock {
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly timing?: Partial<RollTiming>;
}

/** Address -> slot key, from manager-slots.json beside the stack (empty when absent). */
export function readManagerSlots(stackDir: string): (address: string) => SlotKey | undefined {
  const file = join(stackDir, MANAGER_SLOTS_FILE);
  const map: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  return (address) => map[address];
}

/** The roll a cell's plan needs. */
export function rollOfPlan(loaded: LoadedModel, plan: PlanJson, stackDir: string): RollPlan {
  return rollPlanOf(loaded.model, plan, readManagerSlots(stackDir));
}

export interface CellRoll {
  readonly loaded: LoadedModel;
  readonly stackDir: string;
  readonly driver: EngineDriver;
  readonly roll: RollPlan;
  readonly env: NodeJS.ProcessEnv;
  /** The workspace (lib/files/workspace.ts): the synth's relative local state, onboarding's local tokens. */
  readonly workspace: string;
  readonly log: (line: string) => void;
  readonly onSecret: (value: string) => void;
  readonly clock?: RollClock;
}

export async function rollCell(cell: CellRoll): Promise<void> {
  const { loaded, stackDir, driver } = cell;
  const cellId = loaded.model.cell.id;
  const outdir = resolve(stackDir, "..", "..");
  let phase = 0;
  // What asking GitLab about the managers cost over the whole roll, said once when it ends (done or not).
  const lookups: RequestTally[] = [];
  try {
    await roll();
  } finally {
    if (lookups.length > 0) cell.log(`[${cellId}] roll: ${lookups.length} manager lookup(s), ${describeTally(addTallies(lookups), formatMs)}`);
  }

  function roll(): Promise<void> {
    return runRoll(loaded.model, cell.roll, {
      log: cell.log,
      plan: async (held: ReadonlySet<SlotKey>, previousTemplates: ReadonlyMap<SlotKey, PreviousTemplate>) => {
        phase += 1;
        synthesizeCells([loaded], {
          outdir,
          workDir: cell.workspace,
          heldManagerSlots: new Map([[cellId, held]]),
          previousTemplates: new Map([[cellId, previousTemplates]]),
        });
        const planned = await driver.plan({ out: join(stackDir, `${cellId}.roll-${phase}.tfplan`) });
        const plan = await driver.showPlanJson(planned.planFile);
        return { planFile: planned.planFile, changes: planned.changes, replaces: rollOfPlan(loaded, plan, stackDir).changing };
      },
      apply: (planFile) => driver.apply(planFile),
      managers: async (shards) => {
        const result = await runOnboard({ runnerModel: loaded.model, workspace: cell.workspace, status: true, shards: [...shards], env: cell.env, log: () => {}, onSecret: cell.onSecret });
        if (result.requests) lookups.push(result.requests);
        const seen = new Map<string, readonly SeenManager[]>();
        for (const entry of result.status ?? []) seen.set(entry.shard, entry.managers.map((manager) => ({ systemId: manager.systemId, contactedAt: manager.contactedAt })));
        return seen;
      },
      now: cell.clock?.now ?? Date.now,
      sleep: cell.clock?.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms))),
      timing: cell.clock?.timing,
    });
  }
}
