/**
 * The roll of a change that replaces runner managers.
 *
 * WHAT MUST HOLD (issue 11): a change that replaces managers (runner version, machine type, image,
 * rendered config) never has all managers of a shard stopping at once, gives every stopping manager
 * SIGQUIT and up to maximum_timeout, and never leaves two managers driving one worker group.
 *
 * DESIGN: an ordered roll, one slot of each shard per wave. Slot i's manager drives worker group i
 * alone; its replacement keeps that one-to-one mapping because the old manager is gone before the new
 * one starts (AWS: the group terminates first, min_healthy_percentage 0, and the termination hook
 * holds the instance until gitlab-runner drained; Google Cloud: RECREATE without surge). A second
 * manager on the same worker group is never allowed, not even briefly: with state storage off
 * (our config), a starting gitlab-runner removes every instance it finds in its group, including
 * ones another manager is running jobs on (GitLab Runner docs, "The [runners.autoscaler.state_storage]
 * section": "If GitLab Runner starts when state storage is disabled (default), the existing fleeting
 * instances are removed immediately"; gitlab-runner MR 5061 added state storage "so that
 * pre-existing instances are not automatically removed on Runner start"; fleeting/taskscaler
 * issue 6: taskscaler "gives the caller the chance to delete pre-existing instances").
 * Blue/green per slot would need a second worker group per slot; the ordered roll keeps one.
 *
 * PHASES (provision): 1. everything but the changing manager templates (they are held);
 * 2. one wave per slot index: release that slot of every shard, apply, wait until each of those
 * shards has a new manager online in GitLab. Before a wave, every shard in it must have all its
 * managers online, so a shard never loses a second manager. Resuming needs no roll file: a full
 * plan shows which slots still run the old revision, and the roll continues with those.
 * 3. Google Cloud only: the previous templates go. A wave keeps each released slot's old template
 * (the Compute API refuses to delete a template a VM still runs from, `resourceInUseByAnotherResource`;
 * hashicorp/terraform#21865, hashicorp/terraform-provider-google#6277), and the draining VM runs from it
 * until the group recreates it; once the wave's new managers are online, the next phase no longer
 * declares it, so its apply deletes it. The last wave's go in a phase of their own.
 */
import type { RunnerModel } from "../model/schema";
import type { PlanJson } from "../terraform/plan-json";
import type { ManagerSlot, SlotKey } from "./manager-slots";
import { slotKey, slotOfPreviousTemplate } from "./manager-slots";

export interface RollPlan {
  /** Slots whose manager the change replaces, in wave order. */
  readonly changing: readonly ManagerSlot[];
  /** Wave i: slot i (of the changing ones) of every shard that has one. */
  readonly waves: readonly (readonly ManagerSlot[])[];
  /** Shards with one manager: it is down while it drains and boots, whatever the order. */
  readonly singleManagerShards: readonly string[];
  /**
   * Google Cloud: the waves keep each released slot's previous template until its new manager is online,
   * and a last phase deletes the last ones. False on AWS (a launch template's new version deletes nothing).
   */
  readonly keepsPreviousTemplates: boolean;
  /** Previous templates the state still has (a roll stopped before deleting them): kept until the last phase. */
  readonly previousTemplatesInState: readonly SlotKey[];
}

/** Actions that replace or change an existing template, and so the manager that runs it. */
function replacesManager(actions: readonly string[]): boolean {
  return actions.includes("update") || actions.includes("delete");
}

/**
 * The roll a plan needs: the existing manager slots whose template the plan changes.
 * `slotOf` maps a resource address to its slot key (manager-slots.json).
 */
export function rollPlanOf(model: RunnerModel, plan: PlanJson, slotOf: (address: string) => SlotKey | undefined): RollPlan {
  const changingKeys = new Set<SlotKey>();
  const previousInState = new Set<SlotKey>();
  for (const change of plan.resource_changes ?? []) {
    if (change.mode !== "managed" || !replacesManager(change.change.actions)) continue;
    const previous = slotOfPreviousTemplate(change.address, slotOf);
    if (previous) {
      previousInState.add(previous);
      continue;
    }
    const key = slotOf(change.address) ?? slotOf(change.address.replace(/\[[^\]]*\]$/, ""));
    if (key) changingKeys.add(key);
  }
  const byShard = model.shards.map((shard) => ({
    shard,
    slots: Array.from({ length: shard.managers.count }, (_, slot) => slot).filter((slot) => changingKeys.has(slotKey({ shard: shard.name, slot }))),
  }));
  const waveCount = Math.max(0, ...byShard.map((entry) => entry.slots.length));
  const waves = Array.from({ length: waveCount }, (_, wave) =>
    byShard.filter((entry) => wave < entry.slots.length).map((entry) => ({ shard: entry.shard.name, slot: entry.slots[wave] })),
  );
  return {
    changing: waves.flat(),
    waves,
    singleManagerShards: byShard.filter((entry) => entry.slots.length > 0 && entry.shard.managers.count === 1).map((entry) => entry.shard.name),
    keepsPreviousTemplates: model.cloud.provider === "google",
    previousTemplatesInState: [...previousInState].sort(),
  };
}

export function needsRoll(roll: RollPlan): boolean {
  return roll.changing.length > 0;
}

/** Whether the roll ends with a phase that deletes the previous templates the waves kept. */
export function hasTemplateCleanup(roll: RollPlan): boolean {
  return roll.keepsPreviousTemplates && (roll.waves.length > 0 || roll.previousTemplatesInState.length > 0);
}

/** The number of phases the roll applies. */
export function phaseCount(roll: RollPlan): number {
  return roll.waves.length + 1 + (hasTemplateCleanup(roll) ? 1 : 0);
}

/**
 * The roll in one sentence, for the review, from the slots each shard replaces (before any plan):
 * "provision rolls them: wave 1 small-amd64 slot 0, large-amd64 slot 0; wave 2 ...".
 */
export function describeRollForReview(replaced: ReadonlyArray<{ readonly shard: string; readonly replaced: readonly number[]; readonly total: number }>): string | undefined {
  const shards = replaced.filter((entry) => entry.replaced.length > 0);
  if (shards.length === 0) return undefined;
  const waveCount = Math.max(...shards.map((entry) => entry.replaced.length));
  const waves = Array.from({ length: waveCount }, (_, wave) =>
    `wave ${wave + 1}: ${describeWave(shards.filter((entry) => wave < entry.replaced.length).map((entry) => ({ shard: entry.shard, slot: entry.replaced[wave] })))}`,
  );
  const single = shards.filter((entry) => entry.total === 1).map((entry) => entry.shard);
  return (
    `provision rolls the replaced managers one slot per shard at a time (${waves.join("; ")}): each stopping manager gets SIGQUIT and up to maximum_timeout, ` +
    "and the next wave waits until the new managers are online" +
    (single.length > 0 ? `; ${single.join(", ")} ${single.length === 1 ? "has" : "have"} one manager, which takes no jobs while it drains and boots` : "")
  );
}

/** "small-amd64 slot 0, large-amd64 slot 0" */
export function describeWave(wave: readonly ManagerSlot[]): string {
  return wave.map((slot) => `${slot.shard} slot ${slot.slot}`).join(", ");
}

/** The roll as lines for the plan summary, named before anything is applied. */
export function describeRoll(roll: RollPlan): string[] {
  if (!needsRoll(roll)) return [];
  const lines = [
    `roll: this change replaces ${roll.changing.length} runner manager${roll.changing.length === 1 ? "" : "s"}; provision applies it in ${phaseCount(roll)} phases:`,
    "  phase 1: everything except the replaced managers",
    ...roll.waves.map((wave, index) => `  phase ${index + 2}: replace ${describeWave(wave)} (drain with SIGQUIT, then wait until the new manager is online)`),
    ...(hasTemplateCleanup(roll) ? [`  phase ${phaseCount(roll)}: delete the previous instance templates, which the replaced VMs ran from until they were recreated`] : []),
  ];
  for (const shard of roll.singleManagerShards) {
    lines.push(`  warning: shard ${shard} has one manager; it takes no jobs while it drains and boots (set managers.count to 2 or more)`);
  }
  return lines;
}
