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
 *
 * What does not replace it: config.toml, which the managers read at run time from the slot's
 * `.../shard-<shard>/live-config/Config<n>` (a Secret Manager secret version on Google Cloud, an SSM
 * parameter on AWS; lib/render/live-config.ts). A change to it is applied live when every setting that
 * changed is one gitlab-runner reloads, else the runner restarts in place with the same drain
 * (lib/render/config-reload.ts), unless the slot is replaced anyway.
 */
import { configChange, type ReloadClass } from "../render/config-reload";
import { configTomlOfLiveConfig } from "../render/live-config";
import type { EntryChange, StackJson } from "./entry-change";

export interface ShardManagerChanges {
  readonly shard: string;
  /** Managers of the shard after the change (before it, for a removed shard). */
  readonly total: number;
  /** Slots whose VM the change replaces. */
  readonly replaced: readonly number[];
  /** Slots (not replaced) whose running gitlab-runner takes the new config.toml live. */
  readonly live: readonly number[];
  /** Slots (not replaced) whose gitlab-runner restarts in place, with the drain, for the new config.toml. */
  readonly restarted: readonly number[];
  readonly added: readonly number[];
  readonly removed: readonly number[];
  /** Why, in words: "instance template changed (metadata, machine_type)". */
  readonly reasons: readonly string[];
}

interface ManagerPart {
  readonly shard: string;
  readonly slot: number;
  /** What the resource is to the manager, for the reason text. */
  readonly role: "instance template" | "instance group" | "launch template" | "Auto Scaling group" | "config.toml";
}

const MANAGER_PATHS: ReadonlyArray<{ pattern: RegExp; role: ManagerPart["role"] }> = [
  { pattern: /\/shard-([^/]+)\/managers\/Template(\d+)$/, role: "instance template" },
  { pattern: /\/shard-([^/]+)\/managers\/Group(\d+)$/, role: "instance group" },
  { pattern: /\/shard-([^/]+)\/manager-(\d+)\/launch-template$/, role: "launch template" },
  { pattern: /\/shard-([^/]+)\/manager-(\d+)\/Resource$/, role: "Auto Scaling group" },
  { pattern: /\/shard-([^/]+)\/live-config\/Config(\d+)$/, role: "config.toml" },
];

/** Does a change of this top-level attribute replace the manager's VM? */
const REPLACING: Readonly<Record<ManagerPart["role"], (attribute: string) => boolean>> = {
  "instance template": () => true,
  "instance group": (attribute) => ["name", "zone", "base_instance_name", "project", "version"].includes(attribute),
  "launch template": (attribute) => !["tags", "tags_all", "default_version", "update_default_version"].includes(attribute),
  "Auto Scaling group": (attribute) => ["name", "launch_template", "mixed_instances_policy"].includes(attribute),
  // Read at run time: never replaces the VM (handled apart, see configEffect).
  "config.toml": () => false,
};

/** The attribute that holds a slot's stored config.toml: the secret version's data (Google), the parameter's value (AWS). */
const CONFIG_ATTRIBUTES = ["secret_data", "insecure_value"] as const;

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
  // A renamed shard's managers moved (moved blocks): its slots before count under its new name.
  const renamedShards = shardRenames(resources);
  const slotsBefore = new Set([...managerSlots(before)].map((key) => {
    const [shard, slot] = key.split("/");
    return `${renamedShards.get(shard) ?? shard}/${slot}`;
  }));
  const slotsAfter = managerSlots(after);
  const byShard = new Map<string, { replaced: Set<number>; configs: Map<number, ReloadClass>; reasons: Set<string> }>();
  const entry = (shard: string) => {
    const found = byShard.get(shard) ?? { replaced: new Set<number>(), configs: new Map<number, ReloadClass>(), reasons: new Set<string>() };
    byShard.set(shard, found);
    return found;
  };

  for (const change of resources) {
    const part = managerPartOf(change.constructPath);
    if (!part) continue;
    const key = `${part.shard}/${part.slot}`;
    const slotStays = slotsBefore.has(key) && slotsAfter.has(key);
    // A resource that only moves (a renamed shard, moved blocks) changes nothing on the manager.
    if (change.action === "move" && change.attributes.length === 0) continue;
    if (part.role === "config.toml") {
      const effect = configEffect(change.address, before, after);
      if (!slotStays || effect === undefined) continue;
      entry(part.shard).configs.set(part.slot, effect.effect);
      entry(part.shard).reasons.add(effect.reason);
      continue;
    }
    if (change.action === "update" || change.action === "move") {
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
    const configured = (effect: ReloadClass) =>
      [...(found?.configs ?? new Map<number, ReloadClass>())].filter(([slot, value]) => value === effect && !replaced.includes(slot)).map(([slot]) => slot).sort((a, b) => a - b);
    const live = configured("live");
    const restarted = configured("restart");
    if (replaced.length + added.length + removed.length + live.length + restarted.length === 0) return [];
    const total = afterSlots.length > 0 ? afterSlots.length : beforeSlots.length;
    return [{ shard, total, replaced, live, restarted, added, removed, reasons: [...(found?.reasons ?? [])] }];
  });
}

/**
 * In words: what ("replaces 2 of 2 managers of shard spot-amd64", "adds 1 manager to shard x")
 * and why ("launch template changed (user_data)").
 */
export function describeManagerChanges(changes: ShardManagerChanges): { readonly what: string; readonly why: string; readonly stopsRunners: boolean } {
  const parts: string[] = [];
  const managers = (count: number) => `${count} manager${count === 1 ? "" : "s"}`;
  const ofShard = (count: number) => `${count} of ${changes.total} ${changes.total === 1 ? "manager" : "managers"} of shard ${changes.shard}`;
  if (changes.replaced.length > 0) parts.push(`replaces ${ofShard(changes.replaced.length)}`);
  if (changes.restarted.length > 0) parts.push(`restarts the runner in place on ${ofShard(changes.restarted.length)} (drained first, no new VM)`);
  if (changes.live.length > 0) parts.push(`has config.toml applied live to ${ofShard(changes.live.length)} (no restart, no new VM)`);
  if (changes.added.length > 0) parts.push(`adds ${managers(changes.added.length)} to shard ${changes.shard}`);
  if (changes.removed.length > 0) parts.push(`removes ${managers(changes.removed.length)} from shard ${changes.shard}`);
  return { what: parts.join(", "), why: changes.reasons.join("; "), stopsRunners: changes.replaced.length + changes.restarted.length + changes.removed.length > 0 };
}

/** The stored config.toml of the resource at `address` in a stack, if it holds one. */
function storedConfig(stack: StackJson | undefined, address: string): string | undefined {
  const [type, name] = [address.slice(0, address.indexOf(".")), address.slice(address.indexOf(".") + 1)];
  const body = ((stack?.resource ?? {}) as Record<string, Record<string, Record<string, unknown>>>)[type]?.[name];
  const value = CONFIG_ATTRIBUTES.map((attribute) => body?.[attribute]).find((candidate) => typeof candidate === "string");
  return typeof value === "string" ? configTomlOfLiveConfig(value) : undefined;
}

/** What a running manager does with its stored config.toml going from the old stack's to the new one's. */
function configEffect(address: string, before: StackJson | undefined, after: StackJson | undefined): { effect: ReloadClass; reason: string } | undefined {
  const old = storedConfig(before, address);
  const next = storedConfig(after, address);
  if (old === undefined || next === undefined) return undefined;
  const change = configChange(old, next);
  if (change.effect === "none") return undefined;
  const settings = [...new Set(change.settings.map((setting) => setting.path.replace(/\[\d+\]/g, "")))];
  const shown = settings.slice(0, 4).join(", ") + (settings.length > 4 ? `, ... (${settings.length} settings)` : "");
  return change.effect === "live"
    ? { effect: "live", reason: `config.toml changed (${shown}): gitlab-runner reloads these within seconds` }
    : {
        effect: "restart",
        reason: `config.toml changed (${shown}), ${change.settings.filter((setting) => setting.class === "restart").length > 1 ? "some" : "one"} of them read only when gitlab-runner starts`,
      };
}

/** Former shard name → new shard name, from the manager resources the change moves. */
function shardRenames(resources: readonly EntryChange[]): Map<string, string> {
  const renames = new Map<string, string>();
  for (const change of resources) {
    if (change.action !== "move") continue;
    const [was, now] = [managerPartOf(change.movedFrom?.constructPath), managerPartOf(change.constructPath)];
    if (was && now && was.shard !== now.shard) renames.set(was.shard, now.shard);
  }
  return renames;
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
