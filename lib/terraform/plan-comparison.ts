/**
 * Whether two saved plans make the same changes: the plan a merge request reviewed and the plan
 * an apply job made again from its own checkout (`show -json` of both; Terraform's JSON plan
 * representation, https://developer.hashicorp.com/terraform/internals/json-format#plan-representation).
 *
 * Compared, for every resource change that does something (actions other than no-op) and every
 * output change: the address (with a previous_address after a move, and the deposed key), the
 * actions, the values after (`after`), which of them are unknown until apply (`after_unknown`),
 * which are sensitive (`after_sensitive`) and an import's id. A data source's read is compared by
 * its actions alone: what it reads may change between two plans without any change being made.
 *
 * Not compared, because they differ between two honest plans of the same change:
 * - `timestamp`: when each plan was made;
 * - `prior_state` (its serial, lineage and refreshed values) and `resource_drift`: the state each
 *   plan started from; a change since is caught where it matters, in the actions and values after;
 * - `before` / `before_sensitive`: the same, per resource;
 * - `planned_values`: the values after again, in the shape of a state;
 * - `configuration`, `relevant_attributes`, `variables`, `checks`: how the changes were derived, not
 *   what they are (and the apply job applies its own plan, so its own configuration);
 * - `action_reason`: why an action was chosen, not which;
 * - `format_version`, `terraform_version`, `applyable`, `complete`, `errored`: the engine's bookkeeping.
 */
import { isDeepStrictEqual } from "node:util";
import type { PlanChange, PlanJson, PlanResourceChange } from "./plan-json";

export interface PlanDifference {
  /** The resource address (`terraform_data.extra`), or `output.<name>`. */
  readonly address: string;
  /** What differs, in words: `only in the reviewed plan (create)`, `values after differ at tags.env`. */
  readonly what: string;
}

/** At most this many attribute paths are named per resource: enough to see what changed. */
const MAX_PATHS = 5;

/** The differences between the reviewed plan and this checkout's; none when both make the same changes. */
export function comparePlans(reviewed: PlanJson, own: PlanJson): PlanDifference[] {
  const differences: PlanDifference[] = [];
  const reviewedChanges = effectiveChanges(reviewed);
  const ownChanges = effectiveChanges(own);
  for (const key of [...new Set([...reviewedChanges.keys(), ...ownChanges.keys()])].sort()) {
    const before = reviewedChanges.get(key);
    const after = ownChanges.get(key);
    if (!after) differences.push({ address: key, what: `only in the reviewed plan (${describeActions(before!)})` });
    else if (!before) differences.push({ address: key, what: `only in this checkout's plan (${describeActions(after)})` });
    else differences.push(...changeDifferences(key, before, after));
  }
  const outputs = (plan: PlanJson) =>
    new Map(Object.entries(plan.output_changes ?? {}).filter(([, change]) => change.actions.some((action) => action !== "no-op")));
  const reviewedOutputs = outputs(reviewed);
  const ownOutputs = outputs(own);
  for (const name of [...new Set([...reviewedOutputs.keys(), ...ownOutputs.keys()])].sort()) {
    const address = `output.${name}`;
    const before = reviewedOutputs.get(name);
    const after = ownOutputs.get(name);
    if (!after) differences.push({ address, what: `only in the reviewed plan (${before!.actions.join(", ")})` });
    else if (!before) differences.push({ address, what: `only in this checkout's plan (${after.actions.join(", ")})` });
    else differences.push(...valueDifferences(address, before, after));
  }
  return differences;
}

/** One line per difference, for a refusal or a log. */
export function describePlanDifferences(differences: readonly PlanDifference[]): string {
  return differences.map((difference) => `  ${difference.address}: ${difference.what}`).join("\n");
}

interface Keyed {
  readonly resource: PlanResourceChange;
}

/** The changes that do something, by address (and deposed key). */
function effectiveChanges(plan: PlanJson): Map<string, Keyed> {
  const changes = new Map<string, Keyed>();
  for (const resource of plan.resource_changes ?? []) {
    if (resource.change.actions.every((action) => action === "no-op")) continue;
    changes.set(resource.deposed ? `${resource.address} (deposed ${resource.deposed})` : resource.address, { resource });
  }
  return changes;
}

function describeActions({ resource }: Keyed): string {
  return resource.change.actions.join(", ");
}

function changeDifferences(address: string, reviewed: Keyed, own: Keyed): PlanDifference[] {
  const a = reviewed.resource;
  const b = own.resource;
  if (!isDeepStrictEqual(a.change.actions, b.change.actions)) {
    return [{ address, what: `actions differ: the reviewed plan ${a.change.actions.join(", ")}, this checkout's ${b.change.actions.join(", ")}` }];
  }
  const differences: PlanDifference[] = [];
  if ((a.previous_address ?? null) !== (b.previous_address ?? null)) {
    differences.push({ address, what: `moved from ${a.previous_address ?? "nowhere"} in the reviewed plan, from ${b.previous_address ?? "nowhere"} in this checkout's` });
  }
  if (!isDeepStrictEqual(a.change.importing ?? null, b.change.importing ?? null)) {
    differences.push({ address, what: `imports differ: the reviewed plan ${JSON.stringify(a.change.importing ?? null)}, this checkout's ${JSON.stringify(b.change.importing ?? null)}` });
  }
  // A read's result may change between two plans without anything being changed in the cloud.
  if (a.mode === "data") return differences;
  return [...differences, ...valueDifferences(address, a.change, b.change)];
}

/** The attribute paths whose values after, unknown-ness or sensitivity differ. */
function valueDifferences(address: string, reviewed: PlanChange, own: PlanChange): PlanDifference[] {
  const paths = new Set<string>();
  for (const key of ["after", "after_unknown", "after_sensitive"] as const) {
    for (const path of differingPaths(reviewed[key] ?? null, own[key] ?? null)) paths.add(path);
  }
  if (paths.size === 0) return [];
  const sorted = [...paths].sort();
  const named = sorted.slice(0, MAX_PATHS).join(", ");
  const more = sorted.length > MAX_PATHS ? ` and ${sorted.length - MAX_PATHS} more` : "";
  // Values are not printed: a sensitive one would reach the job log.
  return [{ address, what: `values after differ at ${named}${more}` }];
}

/** Paths (`tags.env`, `ingress[0].cidr`) where two JSON values differ; "(whole value)" at the top. */
function differingPaths(a: unknown, b: unknown, path = ""): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  const bothObjects = isPlainObject(a) && isPlainObject(b);
  const bothArrays = Array.isArray(a) && Array.isArray(b) && a.length === b.length;
  if (bothArrays) return a.flatMap((item, index) => differingPaths(item, (b as unknown[])[index], `${path}[${index}]`));
  if (bothObjects) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((key) => differingPaths(a[key], b[key], path ? `${path}.${key}` : key));
  }
  return [path || "(whole value)"];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
