/**
 * Holds manager slots at the revision they run: a held slot's template ignores every change
 * (`lifecycle.ignore_changes = all`), so applying the stack does not replace that slot's manager.
 * provision's roll applies a change in phases by holding the slots whose turn has not come.
 * A held template that does not exist yet is still created (a new slot stops nothing).
 */
import { TerraformResource } from "cdktf";
import type { IConstruct } from "constructs";
import { managerSlotOfPath, slotKey, type PreviousTemplate, type SlotKey } from "../lib/roll/manager-slots";

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

/** A construct that can declare a slot's previous template again (the Google RunnerManagerGroup). */
interface KeepsPreviousTemplates {
  keepPreviousTemplate(index: number, how: { readonly take: boolean }): unknown;
}

function keepsPreviousTemplates(construct: IConstruct | undefined): construct is IConstruct & KeepsPreviousTemplates {
  return construct !== undefined && typeof (construct as Partial<KeepsPreviousTemplates>).keepPreviousTemplate === "function";
}

/**
 * Declares the previous template of these Google slots beside the current one (provision's roll, so that
 * a wave does not delete the template a draining VM still runs from). AWS slots are left alone: a
 * launch template's new version leaves the running instance's version in place. Returns the keys found.
 */
export function keepPreviousTemplates(scope: IConstruct, previous: ReadonlyMap<SlotKey, PreviousTemplate>): SlotKey[] {
  const found: SlotKey[] = [];
  if (previous.size === 0) return found;
  for (const construct of scope.node.findAll()) {
    if (!(construct instanceof TerraformResource)) continue;
    const slot = managerSlotOfPath(`/${construct.node.path}`);
    const how = slot && previous.get(slotKey(slot));
    if (!slot || !how || !keepsPreviousTemplates(construct.node.scope)) continue;
    construct.node.scope.keepPreviousTemplate(slot.slot, { take: how === "take" });
    found.push(slotKey(slot));
  }
  return found;
}
