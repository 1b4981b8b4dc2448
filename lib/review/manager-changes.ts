/**
 * Which runner managers a change replaces, read from the stack diff: a replaced manager
 * drops the jobs it runs and re-registers, so a reviewer must see it in words.
 *
 * A manager is one slot of a shard, found by its construct path:
 * - Google Cloud: `.../shard-<shard>/managers/Template<n>` (google_compute_instance_template)
 *   and `.../managers/Group<n>` (google_compute_instance_group_manager, one VM);
 * - AWS: `.../shard-<shard>/manager-<n>/launch-template` (aws_launch_template) and
 *   `.../manager-<n>/Resource` (aws_autoscaling_group, one instance).
 *
 * What replaces the manager's VM (see REPLACING below):
 * - Google: instance templates cannot be updated, so any change to one creates a new template,
 *   and the manager, once drained, has its group recreate its VM from it (OPPORTUNISTIC policy). A group whose name, zone,
 *   base instance name, project or version changes is itself recreated, or rolls its VM.
 * - AWS: any change to a launch template's launch data makes a new version; the group pins
 *   `latest_version`, and a launch_template change starts an instance refresh, which replaces
 *   the instance. Tags of the template itself and its default version do not. A group whose
 *   name changes is recreated; one whose launch_template or mixed_instances_policy changes
 *   refreshes its instance.
 * - Both: a slot whose resources are deleted and created under another address.
 */
import type { EntryChange, StackJson } from "./entry-change";

export interface ShardManagerChanges {
  readonly shard: string;
  /** Managers of the shard after the change (before it, for a removed shard). */
  readonly total: number;
  /** Slots whose VM the change replaces. */
  readonly replaced: readonly number[];
  readonly added: readonly number[];
  readonly removed: readonly number[];
  /** Why, in words: "instance template changed (metadata, machine_type)". */
  readonly reasons: readonly string[];
}

interface ManagerPart {
  readonly shard: string;
  readonly slot: number;
  /** What the resource is to the manager, for the reason text. */
  readonly role: "instance template" | "instance group" | "launch template" | "Auto Scaling group";
}

const MANAGER_PATHS: ReadonlyArray<{ pattern: RegExp; role: ManagerPart["role"] }> = [
  { pattern: /\/shard-([^/]+)\/managers\/Template(\d+)$/, role: "instance template" },
  { pattern: /\/shard-([^/]+)\/managers\/Group(\d+)$/, role: "instance group" },
  { pattern: /\/shard-([^/]+)\/manager-(\d+)\/launch-template$/, role: "launch template" },
  { pattern: /\/shard-([^/]+)\/manager-(\d+)\/Resource$/, role: "Auto Scaling group" },
];

/** Does a change of this top-level attribute replace the manager's VM? */
const REPLACING: Readonly<Record<ManagerPart["role"], (attribute: string) => boolean>> = {
  "instance template": () => true,
  "instance group": (attribute) => ["name", "zone", "base_instance_name", "project", "version"].includes(attribute),
  "launch template": (attribute) => !["tags", "tags_all", "default_version", "update_default_version"].includes(attribute),
  "Auto Scaling group": (attribute) => ["name", "launch_template", "mixed_instances_policy"].includes(attribute),
};

export function managerPartOf(constructPath: string | undefined): ManagerPart | undefined {
  if (!constructPath) return undefined;
  for (const { pattern, role } of MANAGER_PATHS) {
    const match = pattern.exec(constructPath);
    if (match) return { shard: match[1], slot: Number(match[2]), role };
  }
  return undefined;
}

/** Manager changes per shard; shards whose managers are untouched are left out. */
export function managerChanges(resources: readonly EntryChange[], before: StackJson | undefined, after: StackJson | undefined): ShardManagerChanges[] {
  const slotsBefore = managerSlots(before);
  const slotsAfter = managerSlots(after);
  const byShard = new Map<string, { replaced: Set<number>; reasons: Set<string> }>();
  const entry = (shard: string) => {
    const found = byShard.get(shard) ?? { replaced: new Set<number>(), reasons: new Set<string>() };
    byShard.set(shard, found);
    return found;
  };

  for (const change of resources) {
    const part = managerPartOf(change.constructPath);
    if (!part) continue;
    const key = `${part.shard}/${part.slot}`;
    const slotStays = slotsBefore.has(key) && slotsAfter.has(key);
    if (change.action === "update") {
      const attributes = [...new Set(change.attributes.map((attribute) => topLevel(attribute.path)))];
      const replacing = attributes.filter(REPLACING[part.role]);
      if (replacing.length === 0) continue;
      entry(part.shard).replaced.add(part.slot);
      entry(part.shard).reasons.add(`${part.role} changed (${replacing.join(", ")})`);
    } else if (slotStays) {
      // The slot is there before and after, but this resource of it is new or gone: it moved address.
      entry(part.shard).replaced.add(part.slot);
      entry(part.shard).reasons.add(`${part.role} recreated under a new address`);
    }
  }

  const shards = [...new Set([...[...slotsBefore, ...slotsAfter].map((key) => key.split("/")[0])])].sort();
  return shards.flatMap((shard): ShardManagerChanges[] => {
    const slots = (set: Set<string>) => [...set].filter((key) => key.split("/")[0] === shard).map((key) => Number(key.split("/")[1]));
    const beforeSlots = slots(slotsBefore);
    const afterSlots = slots(slotsAfter);
    const added = afterSlots.filter((slot) => !beforeSlots.includes(slot)).sort((a, b) => a - b);
    const removed = beforeSlots.filter((slot) => !afterSlots.includes(slot)).sort((a, b) => a - b);
    const found = byShard.get(shard);
    const replaced = [...(found?.replaced ?? [])].sort((a, b) => a - b);
    if (replaced.length + added.length + removed.length === 0) return [];
    const total = afterSlots.length > 0 ? afterSlots.length : beforeSlots.length;
    return [{ shard, total, replaced, added, removed, reasons: [...(found?.reasons ?? [])] }];
  });
}

/**
 * In words: what ("replaces 2 of 2 managers of shard spot-amd64", "adds 1 manager to shard x")
 * and why ("launch template changed (user_data)").
 */
export function describeManagerChanges(changes: ShardManagerChanges): { readonly what: string; readonly why: string } {
  const parts: string[] = [];
  const managers = (count: number) => `${count} manager${count === 1 ? "" : "s"}`;
  if (changes.replaced.length > 0) {
    parts.push(`replaces ${changes.replaced.length} of ${changes.total} ${changes.total === 1 ? "manager" : "managers"} of shard ${changes.shard}`);
  }
  if (changes.added.length > 0) parts.push(`adds ${managers(changes.added.length)} to shard ${changes.shard}`);
  if (changes.removed.length > 0) parts.push(`removes ${managers(changes.removed.length)} from shard ${changes.shard}`);
  return { what: parts.join(", "), why: changes.reasons.join("; ") };
}

/** `<shard>/<slot>` of every manager in a stack. */
function managerSlots(stack: StackJson | undefined): Set<string> {
  const slots = new Set<string>();
  const resources = (stack?.resource ?? {}) as Record<string, Record<string, { "//"?: { metadata?: { path?: unknown } } }>>;
  for (const byName of Object.values(resources)) {
    for (const body of Object.values(byName ?? {})) {
      const path = body?.["//"]?.metadata?.path;
      const part = managerPartOf(typeof path === "string" ? path : undefined);
      if (part) slots.add(`${part.shard}/${part.slot}`);
    }
  }
  return slots;
}

/** `metadata["startup-script"]` -> `metadata`; `launch_template[0].version` -> `launch_template`. */
function topLevel(path: string): string {
  return /^[^.[]+/.exec(path)?.[0] ?? path;
}
