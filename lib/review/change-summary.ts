/**
 * What a plan (or, for --dry-run, a synthesized stack) would do, counted for
 * people and machines: add, change, replace, destroy (and forget), grouped by
 * shard and by resource type. Values taken from the plan are redacted here, so
 * the summary object is safe to print as JSON.
 */
import { compareLikeLocale } from "../text/locale-order";
import { redactSecrets } from "../text/redact";
import type { PlanAction, PlanChange, PlanJson, PlanResourceChange } from "../terraform/plan-json";
import { resourceAddress, type PathOf, type ShardOf, type SynthesizedStack } from "./stack-files";

export { readResourceShards, readSynthesizedStack, type ShardOf } from "./stack-files";

/** `forget` (Terraform >= 1.7 `removed` blocks) drops a resource from the state without destroying it. */
export const CHANGE_KINDS = ["add", "change", "replace", "destroy", "forget"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];
export type ChangeCounts = Record<ChangeKind, number>;

/** One top-level attribute of a changed resource. Values are shown only when short, known and not sensitive. */
export interface AttributeChange {
  readonly name: string;
  readonly before?: string;
  readonly after?: string;
  readonly sensitive?: boolean;
  /** The new value is known only after apply. */
  readonly unknown?: boolean;
  readonly forcesReplacement?: boolean;
}

export interface ResourceChangeSummary {
  readonly address: string;
  /** Where it comes from in the code ("fleet/shard-x/managers/Template0"), when the stack records it. */
  readonly constructPath?: string;
  readonly type: string;
  /** null: a cell-wide resource. */
  readonly shard: string | null;
  readonly kind: ChangeKind;
  /** The engine's actions; ["create"] for everything in a synthesized stack. */
  readonly actions: readonly PlanAction[];
  /** For "change" and "replace": which attributes change. */
  readonly attributes?: readonly AttributeChange[];
}

export interface TypeChanges {
  readonly type: string;
  readonly counts: ChangeCounts;
}

export interface ShardChanges {
  /** null: cell-wide resources. */
  readonly shard: string | null;
  readonly counts: ChangeCounts;
  readonly byType: readonly TypeChanges[];
}

export interface OutputChangeSummary {
  readonly name: string;
  readonly kind: Exclude<ChangeKind, "replace" | "forget">;
}

export interface ChangeSummary {
  /** "plan": from a saved plan; "synth": from cdk.tf.json, everything counted as created. */
  readonly source: "plan" | "synth";
  readonly hasChanges: boolean;
  readonly counts: ChangeCounts;
  /** Cell-wide resources first, then shards by name (in the model's order once cellChangeSummary has it: inShardOrder). */
  readonly byShard: readonly ShardChanges[];
  readonly byType: readonly TypeChanges[];
  /** Every resource change, ordered by shard, then address. */
  readonly resources: readonly ResourceChangeSummary[];
  readonly outputs: readonly OutputChangeSummary[];
}

/** Summarizes `terraform show -json <planfile>`; no-op and data-source reads are not changes. */
export function summarizePlan(plan: PlanJson, shardOf: ShardOf, pathOf: PathOf = () => undefined): ChangeSummary {
  const resources = (plan.resource_changes ?? []).flatMap((change): ResourceChangeSummary[] => {
    if (change.mode === "data") return [];
    const kind = kindOfActions(change.change.actions);
    if (!kind) return [];
    const constructPath = pathOf(shardAddress(change));
    return [
      {
        address: change.address,
        ...(constructPath ? { constructPath } : {}),
        type: change.type,
        shard: shardOf(shardAddress(change)) ?? null,
        kind,
        actions: change.change.actions,
        ...(kind === "change" || kind === "replace" ? { attributes: attributeChanges(change.change, kind) } : {}),
      },
    ];
  });
  const outputs = Object.entries(plan.output_changes ?? {}).flatMap(([name, change]): OutputChangeSummary[] => {
    const kind = kindOfActions(change.actions);
    return kind === "add" || kind === "change" || kind === "destroy" ? [{ name, kind }] : [];
  });
  return buildSummary("plan", resources, outputs);
}

/** Summarizes a synthesized stack for --dry-run: every resource would be created. */
export function summarizeSynth(stack: SynthesizedStack, shardOf: ShardOf, pathOf: PathOf = () => undefined): ChangeSummary {
  const resources = Object.entries(stack.resource ?? {}).flatMap(([type, blocks]) =>
    Object.entries(blocks).flatMap(([name, block]) => {
      const address = `${type}.${name}`;
      const shard = shardOf(address) ?? null;
      const constructPath = pathOf(address);
      const created = (instanceAddress: string): ResourceChangeSummary => ({
        address: instanceAddress,
        ...(constructPath ? { constructPath } : {}),
        type,
        shard,
        kind: "add",
        actions: ["create"],
      });
      // A literal count creates that many instances; for_each or a computed count is counted once.
      const count = block.count;
      if (typeof count === "number" && Number.isInteger(count) && count >= 0) {
        return Array.from({ length: count }, (_, index) => created(`${address}[${index}]`));
      }
      return [created(address)];
    }),
  );
  const outputs = Object.keys(stack.output ?? {}).map((name): OutputChangeSummary => ({ name, kind: "add" }));
  return buildSummary("synth", resources, outputs);
}

export function kindOfActions(actions: readonly PlanAction[]): ChangeKind | undefined {
  const has = (action: PlanAction) => actions.includes(action);
  if (has("delete") && has("create")) return "replace";
  if (has("create")) return "add";
  if (has("delete")) return "destroy";
  if (has("update")) return "change";
  if (has("forget")) return "forget";
  return undefined; // no-op, read
}

export function emptyCounts(): ChangeCounts {
  return { add: 0, change: 0, replace: 0, destroy: 0, forget: 0 };
}

export function totalOf(counts: ChangeCounts): number {
  return CHANGE_KINDS.reduce((sum, kind) => sum + counts[kind], 0);
}

function shardAddress(change: PlanResourceChange): string {
  // Shards are recorded per resource block; modules do not occur in cdktf stacks, but keep their prefix if they do.
  return change.module_address ? `${change.module_address}.${change.type}.${change.name}` : resourceAddress(change.address);
}

function buildSummary(source: ChangeSummary["source"], unordered: ResourceChangeSummary[], outputs: OutputChangeSummary[]): ChangeSummary {
  const resources = [...unordered].sort((a, b) => compareShards(a.shard, b.shard) || compareLikeLocale(a.address, b.address));
  const shardNames = [...new Set(resources.map((resource) => resource.shard))];
  const byShard = shardNames.map((shard): ShardChanges => {
    const own = resources.filter((resource) => resource.shard === shard);
    return { shard, counts: countKinds(own), byType: groupByType(own) };
  });
  const counts = countKinds(resources);
  return { source, hasChanges: totalOf(counts) > 0 || outputs.length > 0, counts, byShard, byType: groupByType(resources), resources, outputs };
}

/**
 * The summary with its shards in the model's order (cell-wide first, shards no longer in the model after
 * them, by name), the order the capacity, cost and onboard lines of the same run list them in.
 */
export function inShardOrder(summary: ChangeSummary, shardNames: readonly string[]): ChangeSummary {
  const rank = (shard: string | null) => (shard === null ? -1 : shardNames.includes(shard) ? shardNames.indexOf(shard) : shardNames.length);
  const compare = (a: string | null, b: string | null) => rank(a) - rank(b) || compareShards(a, b);
  return {
    ...summary,
    byShard: [...summary.byShard].sort((a, b) => compare(a.shard, b.shard)),
    resources: [...summary.resources].sort((a, b) => compare(a.shard, b.shard)),
  };
}

function compareShards(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return compareLikeLocale(a, b);
}

function countKinds(resources: readonly ResourceChangeSummary[]): ChangeCounts {
  const counts = emptyCounts();
  resources.forEach((resource) => counts[resource.kind]++);
  return counts;
}

function groupByType(resources: readonly ResourceChangeSummary[]): TypeChanges[] {
  const types = [...new Set(resources.map((resource) => resource.type))].sort();
  return types.map((type) => ({ type, counts: countKinds(resources.filter((resource) => resource.type === type)) }));
}

const MAX_SHOWN_VALUE_LENGTH = 60;

function attributeChanges(change: PlanChange, kind: "change" | "replace"): AttributeChange[] {
  const before = asRecord(change.before);
  const after = asRecord(change.after);
  const unknown = asRecord(change.after_unknown);
  const forcing = new Set((change.replace_paths ?? []).map((path) => String(path[0])));
  const names = [...new Set([...Object.keys(before), ...Object.keys(after), ...Object.keys(unknown)])].sort();
  return names.flatMap((name): AttributeChange[] => {
    const isUnknown = isMarked(unknown[name]);
    if (!isUnknown && JSON.stringify(before[name]) === JSON.stringify(after[name])) return [];
    // A replacement recomputes every computed attribute (id, self_link...): only what the configuration changes matters.
    if (isUnknown && kind === "replace" && !forcing.has(name)) return [];
    const sensitive = isMarked(field(change.before_sensitive, name)) || isMarked(field(change.after_sensitive, name));
    const flags = { ...(forcing.has(name) ? { forcesReplacement: true } : {}) };
    if (sensitive) return [{ name, sensitive: true, ...flags }];
    const shownBefore = shownValue(before[name]);
    return [
      {
        name,
        ...(shownBefore !== undefined ? { before: shownBefore } : {}),
        ...(isUnknown ? { unknown: true } : shownValue(after[name]) !== undefined ? { after: shownValue(after[name]) } : {}),
        ...flags,
      },
    ];
  });
}

/** Scalars short enough to read in a table; anything else is reported as changed without its value. */
function shownValue(value: unknown): string | undefined {
  if (value === undefined || (typeof value === "object" && value !== null)) return undefined;
  const text = value === null ? "null" : typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length <= MAX_SHOWN_VALUE_LENGTH ? redactSecrets(text) : undefined;
}

/** Sensitivity/unknown marks are `true` leaves in a tree shaped like the value; any mark below counts. */
function isMarked(mark: unknown): boolean {
  if (mark === true) return true;
  if (Array.isArray(mark)) return mark.some(isMarked);
  if (typeof mark === "object" && mark !== null) return Object.values(mark).some(isMarked);
  return false;
}

function field(tree: unknown, name: string): unknown {
  if (tree === true) return true;
  return asRecord(tree)[name];
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
