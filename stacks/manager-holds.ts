/**
 * Holds manager slots at the revision they run: a held slot's template ignores every change
 * (`lifecycle.ignore_changes = all`), so applying the stack does not replace that slot's manager.
 * provision's roll applies a change in phases by holding the slots whose turn has not come.
 * A held template that does not exist yet is still created (a new slot stops nothing).
 */
import { TerraformResource } from "cdktf";
import type { IConstruct } from "constructs";
import { managerSlotOfPath, slotKey, type SlotKey } from "../lib/roll/manager-slots";

/** Marks the templates of the held slots; returns the keys it found, so a caller can tell a typo from a hold. */
export function holdManagerSlots(scope: IConstruct, held: ReadonlySet<SlotKey>): SlotKey[] {
  const found: SlotKey[] = [];
  if (held.size === 0) return found;
  for (const construct of scope.node.findAll()) {
    if (!(construct instanceof TerraformResource)) continue;
    const slot = managerSlotOfPath(`/${construct.node.path}`);
    if (!slot || !held.has(slotKey(slot))) continue;
    construct.addOverride("lifecycle.ignore_changes", "all");
    found.push(slotKey(slot));
  }
  return found;
}
