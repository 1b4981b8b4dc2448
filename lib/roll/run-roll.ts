/**
 * Runs the phases of a roll (lib/roll/roll-plan.ts says why this order): hold every changing
 * manager and apply the rest; then per wave, check its shards have all their managers online,
 * release the wave's slots, apply, and wait until each of those shards has a new manager online.
 * Each phase is its own synthesize + plan + apply, so a failure leaves a state the next run
 * continues from: a full plan then shows only the slots still on the old revision.
 */
import { OperationalError } from "../process/errors";
import type { RunnerModel } from "../model/schema";
import { gracefulStopSeconds } from "../render/graceful-stop";
import { slotKey, type ManagerSlot, type PreviousTemplate, type SlotKey } from "./manager-slots";
import { describeWave, hasTemplateCleanup, phaseCount, type RollPlan } from "./roll-plan";

export interface SeenManager {
  readonly systemId: string;
  readonly contactedAt: string | null;
}

export interface PhasePlan {
  readonly planFile: string;
  /** Whether the plan changes anything. */
  readonly changes: boolean;
  /** The managers this phase's plan replaces. */
  readonly replaces: readonly ManagerSlot[];
}

export interface RollDeps {
  readonly log: (line: string) => void;
  /**
   * Synthesize with these slots held at their running revision and these Google slots' previous
   * templates kept (roll-plan.ts, phase 3), then plan.
   */
  readonly plan: (held: ReadonlySet<SlotKey>, previousTemplates: ReadonlyMap<SlotKey, PreviousTemplate>) => Promise<PhasePlan>;
  readonly apply: (planFile: string) => Promise<void>;
  /** Each shard's runner managers as GitLab sees them. */
  readonly managers: (shards: readonly string[]) => Promise<ReadonlyMap<string, readonly SeenManager[]>>;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly timing?: Partial<RollTiming>;
}

export interface RollTiming {
  /** Between two looks at GitLab. */
  readonly pollMs: number;
  /** A manager counts as running when GitLab heard from it this recently. */
  readonly freshMs: number;
  /** How long a new VM may take to boot, install and come online. */
  readonly bootMs: number;
}

export const DEFAULT_ROLL_TIMING: RollTiming = { pollMs: 15_000, freshMs: 10 * 60_000, bootMs: 20 * 60_000 };

export class RollError extends OperationalError {
  constructor(cell: string, phase: string, reason: string) {
    super(
      `the roll of ${cell} stopped in ${phase}: ${reason}. Nothing else was stopped; run provision again to continue ` +
        "(slots already replaced match the plan, the others are rolled from there).",
    );
    this.name = "RollError";
  }
}

export async function runRoll(model: RunnerModel, roll: RollPlan, deps: RollDeps): Promise<void> {
  const timing = { ...DEFAULT_ROLL_TIMING, ...deps.timing };
  const cell = model.cell.id;
  const log = (line: string) => deps.log(`[${cell}] ${line}`);
  const pending = new Set(roll.changing.map(slotKey));
  const phases = phaseCount(roll);
  // Kept until the last phase: a roll that stopped may have left a VM draining from one of them.
  const keptFromBefore = new Map<SlotKey, PreviousTemplate>(roll.previousTemplatesInState.map((key) => [key, "keep"]));

  const first = `phase 1/${phases} (everything except the replaced managers)`;
  log(`roll ${first}`);
  await planAndApply(deps, new Set(pending), keptFromBefore, [], cell, first);

  for (const [index, wave] of roll.waves.entries()) {
    const phase = `phase ${index + 2}/${phases} (${describeWave(wave)})`;
    const shards = wave.map((slot) => slot.shard);
    log(`roll ${phase}: checking that ${shards.join(", ")} ${shards.length === 1 ? "has" : "have"} every manager online`);
    const before = await waitFor(deps, timing, timing.bootMs, cell, phase, async () => {
      const seen = await deps.managers(shards);
      const short = wave.flatMap((slot) => {
        const count = model.shards.find((shard) => shard.name === slot.shard)!.managers.count;
        const fresh = freshManagers(seen.get(slot.shard) ?? [], deps.now(), timing.freshMs).length;
        return fresh < count ? [`${slot.shard} has ${fresh} of ${count} managers online`] : [];
      });
      return short.length === 0 ? { done: true, value: seen } : { done: false, reason: short.join("; ") };
    });

    for (const slot of wave) pending.delete(slotKey(slot));
    log(`roll ${phase}: replacing; each stopping manager gets SIGQUIT and up to maximum_timeout to finish its jobs`);
    // The wave's slots keep their old template (Google Cloud): their VMs run from it while they drain. The
    // previous wave's are no longer declared, so this apply deletes them: their new managers are online.
    const previous = new Map(keptFromBefore);
    if (roll.keepsPreviousTemplates) for (const slot of wave) previous.set(slotKey(slot), "take");
    await planAndApply(deps, new Set(pending), previous, wave, cell, phase);

    const drainMs = Math.max(...wave.map((slot) => gracefulStopSeconds(model.shards.find((shard) => shard.name === slot.shard)!) * 1000));
    log(`roll ${phase}: waiting for the new managers to come online (up to ${Math.round((drainMs + timing.bootMs) / 60_000)} min: drain and boot)`);
    await waitFor(deps, timing, drainMs + timing.bootMs, cell, phase, async () => {
      const seen = await deps.managers(shards);
      const missing = wave.filter((slot) => {
        const known = new Set((before.get(slot.shard) ?? []).map((manager) => manager.systemId));
        return !freshManagers(seen.get(slot.shard) ?? [], deps.now(), timing.freshMs).some((manager) => !known.has(manager.systemId));
      });
      return missing.length === 0 ? { done: true, value: undefined } : { done: false, reason: `no new manager online yet for ${describeWave(missing)}` };
    });
    log(`roll ${phase}: done, new managers online`);
  }

  if (hasTemplateCleanup(roll)) {
    const last = `phase ${phases}/${phases} (the previous instance templates)`;
    log(`roll ${last}: deleting the templates the replaced VMs ran from`);
    await planAndApply(deps, new Set(), new Map(), [], cell, last);
  }
}

async function planAndApply(
  deps: RollDeps,
  held: ReadonlySet<SlotKey>,
  previousTemplates: ReadonlyMap<SlotKey, PreviousTemplate>,
  expected: readonly ManagerSlot[],
  cell: string,
  phase: string,
): Promise<void> {
  const planned = await deps.plan(held, previousTemplates);
  const replaces = new Set(planned.replaces.map(slotKey));
  const want = new Set(expected.map(slotKey));
  const stray = [...replaces].filter((key) => !want.has(key));
  // A safety net for the holds: a phase never replaces a manager whose turn has not come.
  if (stray.length > 0) throw new RollError(cell, phase, `its plan would also replace ${stray.join(", ")}, which must wait for a later phase; nothing was applied`);
  if (!planned.changes) {
    deps.log(`[${cell}] roll ${phase}: no changes`);
    return;
  }
  try {
    await deps.apply(planned.planFile);
  } catch (error) {
    throw new RollError(cell, phase, `the apply failed (${(error as Error).message})`);
  }
}

type Poll<T> = { done: true; value: T } | { done: false; reason: string };

async function waitFor<T>(deps: RollDeps, timing: RollTiming, timeoutMs: number, cell: string, phase: string, poll: () => Promise<Poll<T>>): Promise<T> {
  const deadline = deps.now() + timeoutMs;
  for (;;) {
    const result = await poll();
    if (result.done) return result.value;
    if (deps.now() >= deadline) throw new RollError(cell, phase, `${result.reason} after ${Math.round(timeoutMs / 60_000)} min`);
    await deps.sleep(timing.pollMs);
  }
}

function freshManagers(managers: readonly SeenManager[], now: number, freshMs: number): SeenManager[] {
  return managers.filter((manager) => manager.contactedAt !== null && now - Date.parse(manager.contactedAt) <= freshMs);
}
