/**
 * Which Terraform resource is the template of which manager slot, from the construct path cdktf
 * records on each resource. A slot's template is what replaces its manager when it changes:
 * on AWS the launch template (a new version starts the group's instance refresh), on Google
 * Cloud the instance template (a new template makes the group recreate the VM).
 */

/** `shard/slot`, the key of a manager slot within a cell. */
export type SlotKey = string;

export interface ManagerSlot {
  readonly shard: string;
  readonly slot: number;
}

/** AWS: .../shard-<s>/manager-<i>/launch-template; Google Cloud: .../shard-<s>/managers/Template<i>. */
const TEMPLATE_PATH = /\/shard-([a-z0-9-]+)\/(?:manager-(\d+)\/launch-template|managers\/Template(\d+))$/;

export function slotKey(slot: ManagerSlot): SlotKey {
  return `${slot.shard}/${slot.slot}`;
}

/** The slot whose manager template lives at this construct path, if any. */
export function managerSlotOfPath(path: string): ManagerSlot | undefined {
  const match = TEMPLATE_PATH.exec(path);
  if (!match) return undefined;
  return { shard: match[1], slot: Number(match[2] ?? match[3]) };
}

/** File beside cdk.tf.json: resource address -> slot key of every manager template. */
export const MANAGER_SLOTS_FILE = "manager-slots.json";

/**
 * A Google slot's previous template, kept while the slot's VM still runs from it, has its current
 * template's address with this suffix (constructs/google/runner-manager-group.ts, keepPreviousTemplate).
 */
export const PREVIOUS_TEMPLATE_SUFFIX = "_previous";

/** The slot whose previous template has this address, from the addresses of the current templates. */
export function slotOfPreviousTemplate(address: string, slotOf: (address: string) => SlotKey | undefined): SlotKey | undefined {
  return address.endsWith(PREVIOUS_TEMPLATE_SUFFIX) ? slotOf(address.slice(0, -PREVIOUS_TEMPLATE_SUFFIX.length)) : undefined;
}

/** How a Google slot's previous template is kept in a phase: taken from the current address, or kept where it is. */
export type PreviousTemplate = "take" | "keep";
