/**
 * Compares two sets of synthesized cdktf stacks (one `cdk.tf.json` per cell)
 * without any cloud access: which cells, resources, outputs and providers a
 * change adds, removes or modifies, down to the attribute paths.
 *
 * What a reviewer sees never contains a secret or a script body: long,
 * multi-line or base64 strings (user data, startup scripts) are shown as a
 * short hash and a length, and every shown value goes through token redaction.
 */
import { createHash } from "node:crypto";
import { redactSecrets } from "../text/redact";
import { managerChanges, type ShardManagerChanges } from "./manager-changes";
import type { AttributeChange, EntryAction, EntryChange, StackJson } from "./entry-change";
import { diffRenderedFiles, type RenderedFileChange, type RenderedFiles } from "./rendered-diff";

/** Synthesized stacks by cell id. */
export type StackSet = ReadonlyMap<string, StackJson>;
/** Rendered files (config.toml, startup scripts) by cell id. */
export type RenderedSet = ReadonlyMap<string, RenderedFiles>;

export type CellStatus = "added" | "removed" | "changed" | "unchanged";

export interface CellDiff {
  readonly cell: string;
  readonly status: CellStatus;
  /** Resources that differ, sorted by address. */
  readonly resources: readonly EntryChange[];
  readonly unchangedResources: number;
  /** Data sources that differ: read, not managed, so not counted as resources. */
  readonly dataSources: readonly EntryChange[];
  /** Text diff of the files the cell's VMs boot with (config.toml, startup scripts). */
  readonly renderedFiles: readonly RenderedFileChange[];
  /** Managers the change replaces, adds or removes, per shard. */
  readonly managers: readonly ShardManagerChanges[];
  readonly outputs: readonly EntryChange[];
  readonly providers: readonly EntryChange[];
  /** The `terraform` block (minus the local backend path), variables, locals, modules. */
  readonly settings: readonly EntryChange[];
}

export interface StackDiff {
  readonly cells: readonly CellDiff[];
  readonly summary: {
    readonly added: readonly string[];
    readonly removed: readonly string[];
    readonly changed: readonly string[];
    readonly unchanged: readonly string[];
  };
}

/** cdktf's metadata key: construct paths and ids, which move when code is refactored without changing infrastructure. */
const METADATA_KEY = "//";
/** Strings at least this long are summarized by hash, never shown. */
const MAX_SHOWN_STRING = 80;
/** Attribute names whose values are scripts or payloads, summarized whatever their length. */
const OPAQUE_KEY = /^(?:.*[-_])?(?:user[-_]?data(?:[-_]base64)?|startup[-_]?script|script|content(?:[-_]base64)?|cloud[-_]?init|template[-_]body)$/i;
const BASE64_LIKE = /^[A-Za-z0-9+/]{32,}={0,2}$/;
/** A whole value that is one Terraform reference (`${aws_launch_template.x_ABC123.id}`): an address, never a secret or a script. */
const TERRAFORM_REFERENCE = /^\$\{[A-Za-z_][\w-]*(?:\.[\w-]+|\[[^\]\s]*\])+\}$/;

/** A step into a value: an object key, a list index, or the entry of a list of `{ key, ... }` blocks (AWS tag blocks) with that key. */
type PathPart = string | number | { readonly key: string };

export function diffStacks(before: StackSet, after: StackSet, rendered?: { before: RenderedSet; after: RenderedSet }): StackDiff {
  const cells = [...new Set([...before.keys(), ...after.keys()])].sort();
  const diffs = cells.map((cell) =>
    diffCell(cell, before.get(cell), after.get(cell), { before: rendered?.before.get(cell), after: rendered?.after.get(cell) }),
  );
  const withStatus = (status: CellStatus) => diffs.filter((diff) => diff.status === status).map((diff) => diff.cell);
  return {
    cells: diffs,
    summary: { added: withStatus("added"), removed: withStatus("removed"), changed: withStatus("changed"), unchanged: withStatus("unchanged") },
  };
}

export function diffCell(
  cell: string,
  before: StackJson | undefined,
  after: StackJson | undefined,
  rendered: { before?: RenderedFiles; after?: RenderedFiles } = {},
): CellDiff {
  const old = normalizeStack(before ?? {});
  const next = normalizeStack(after ?? {});
  const moves = movesOf(old, next);
  const dataMoves = dataSourcesMovedWith(moves, resourceEntries(old.resource), resourceEntries(next.resource), old.data, next.data);
  const followed = [...moves, ...dataMoves];
  const resources = diffResources(resourceEntries(old.resource), resourceEntries(next.resource), moves, followed);
  const dataSources = diffResources(resourceEntries(old.data, "data."), resourceEntries(next.data, "data."), dataMoves, followed);
  const outputs = diffEntries(namedEntries(old.output, "output"), namedEntries(next.output, "output"));
  const providers = diffEntries(providerEntries(old.provider), providerEntries(next.provider));
  const settings = diffEntries(settingEntries(old), settingEntries(next));
  const unchangedResources = countUnchanged(resourceEntries(old.resource), resourceEntries(next.resource));
  const renderedFiles = diffRenderedFiles(rendered.before, rendered.after);
  const managers = managerChanges(resources, before, after);
  const anyChange = resources.length + dataSources.length + outputs.length + providers.length + settings.length + renderedFiles.length > 0;
  const status: CellStatus = !before ? "added" : !after ? "removed" : anyChange ? "changed" : "unchanged";
  return { cell, status, resources, unchangedResources, dataSources, renderedFiles, managers, outputs, providers, settings };
}

interface Entry {
  readonly value: unknown;
  readonly constructPath?: string;
}

/** Drops what differs between two checkouts of the same code: the local backend's absolute state path. */
function normalizeStack(stack: StackJson): Record<string, unknown> {
  const copy = structuredClone(stack) as Record<string, any>;
  const local = copy.terraform?.backend?.local;
  if (local && typeof local === "object") delete local.path;
  return copy;
}

/** Entries of a `resource` (or, with prefix "data.", a `data`) block by address. */
function resourceEntries(block: unknown, prefix = ""): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  for (const [type, byId] of objectEntries(block)) {
    for (const [id, value] of objectEntries(byId)) {
      entries.set(`${prefix}${type}.${id}`, { value, constructPath: constructPathOf(value) });
    }
  }
  return entries;
}

function namedEntries(block: unknown, prefix: string): Map<string, Entry> {
  return new Map(objectEntries(block).map(([name, value]) => [`${prefix}.${name}`, { value }]));
}

/** cdktf writes `provider: { google: [ {...}, {alias: "x", ...} ] }`. */
function providerEntries(block: unknown): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  for (const [name, configs] of objectEntries(block)) {
    const list = Array.isArray(configs) ? configs : [configs];
    list.forEach((config, index) => {
      const alias = isObject(config) && typeof config.alias === "string" ? config.alias : undefined;
      const address = alias ? `provider.${name}.${alias}` : list.length > 1 && index > 0 ? `provider.${name}[${index}]` : `provider.${name}`;
      entries.set(address, { value: config });
    });
  }
  return entries;
}

function settingEntries(stack: Record<string, unknown>): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  for (const [key, value] of Object.entries(stack)) {
    // Moved blocks are shown on the resources they move (diffResources).
    if (["resource", "data", "output", "provider", "moved", METADATA_KEY].includes(key)) continue;
    if (key === "terraform") entries.set("terraform", { value });
    else if (isObject(value)) for (const [name, child] of Object.entries(value)) entries.set(`${key}.${name}`, { value: child });
    else entries.set(key, { value });
  }
  return entries;
}

/** A moved block of the head's stack that moves a resource of the base's: `from` is in the base only, `to` in the head only. */
export interface ResourceMove {
  readonly from: string;
  readonly to: string;
}

function movesOf(before: Record<string, unknown>, after: Record<string, unknown>): ResourceMove[] {
  const [old, next] = [resourceEntries(before.resource), resourceEntries(after.resource)];
  const blocks = Array.isArray(after.moved) ? (after.moved as unknown[]) : [];
  return blocks.flatMap((block): ResourceMove[] => {
    if (!isObject(block) || typeof block.from !== "string" || typeof block.to !== "string") return [];
    const { from, to } = block;
    return old.has(from) && !next.has(from) && next.has(to) && !old.has(to) ? [{ from, to }] : [];
  });
}

/**
 * Resources as diffEntries compares them, but a moved resource (terraform's moved block: its state
 * follows it, nothing is destroyed) is compared with what it was at its former address: one "move"
 * entry, with the attributes that change besides the address. References to moved resources are read
 * at their new address on both sides, so a reference that only follows a move is no change.
 */
function diffResources(before: Map<string, Entry>, after: Map<string, Entry>, moves: readonly ResourceMove[], followed: readonly ResourceMove[]): EntryChange[] {
  if (followed.length === 0) return diffEntries(before, after);
  const follow = (value: unknown): unknown => {
    let text = JSON.stringify(value);
    // An address ends where an identifier character does not follow: ".id", "[0]", a closing quote or brace.
    for (const { from, to } of followed) text = text.replace(new RegExp(`${escapeRegExp(from)}(?![\\w-])`, "g"), to);
    return JSON.parse(text);
  };
  const movedTo = new Map(moves.map((move) => [move.to, move.from]));
  const renamed = new Map<string, Entry>();
  for (const [address, entry] of before) {
    if (moves.some((move) => move.from === address)) continue;
    renamed.set(address, { ...entry, value: follow(entry.value) });
  }
  for (const { from, to } of moves) renamed.set(to, { ...before.get(from)!, value: follow(before.get(from)!.value) });
  const changes = diffEntries(renamed, after).map((change): EntryChange => {
    const from = movedTo.get(change.address);
    return from === undefined ? change : { ...change, action: "move", movedFrom: movedFromOf(before, from) };
  });
  // A moved resource that changes nothing else is a change all the same: its address moves.
  const listed = new Set(changes.map((change) => change.address));
  for (const { from, to } of moves) {
    if (listed.has(to)) continue;
    const constructPath = after.get(to)?.constructPath;
    changes.push({ address: to, action: "move", attributes: [], ...(constructPath ? { constructPath } : {}), movedFrom: movedFromOf(before, from) });
  }
  return changes.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Data sources in the scopes the moves rename (a renamed shard's `shard-<name>`): terraform keeps none in
 * its state and reads each again, so one whose arguments are the same reads the same values at its new
 * address. Paired by construct path, with the moved scope's former path, so that a reference to one reads
 * as unchanged and the data source itself as moved.
 */
function dataSourcesMovedWith(moves: readonly ResourceMove[], before: Map<string, Entry>, after: Map<string, Entry>, oldData: unknown, newData: unknown): ResourceMove[] {
  const scopes = new Map<string, string>();
  for (const { from, to } of moves) {
    const [was, now] = [before.get(from)?.constructPath, after.get(to)?.constructPath];
    if (!was || !now) continue;
    const [a, b] = [was.split("/"), now.split("/")];
    while (a.length > 1 && b.length > 1 && a[a.length - 1] === b[b.length - 1]) {
      a.pop();
      b.pop();
    }
    scopes.set(`${b.join("/")}/`, `${a.join("/")}/`);
  }
  if (scopes.size === 0) return [];
  const [old, next] = [resourceEntries(oldData, "data."), resourceEntries(newData, "data.")];
  const byPath = new Map([...old].flatMap(([address, entry]) => (entry.constructPath ? [[entry.constructPath, address] as const] : [])));
  return [...next].flatMap(([address, entry]): ResourceMove[] => {
    if (!entry.constructPath || old.has(address)) return [];
    for (const [now, was] of scopes) {
      if (!entry.constructPath.startsWith(now)) continue;
      const from = byPath.get(`${was}${entry.constructPath.slice(now.length)}`);
      return from && !next.has(from) ? [{ from, to: address }] : [];
    }
    return [];
  });
}

function movedFromOf(before: Map<string, Entry>, address: string): EntryChange["movedFrom"] {
  const constructPath = before.get(address)?.constructPath;
  return { address, ...(constructPath ? { constructPath } : {}) };
}

function diffEntries(before: Map<string, Entry>, after: Map<string, Entry>): EntryChange[] {
  const changes: EntryChange[] = [];
  for (const address of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(address);
    const next = after.get(address);
    const constructPath = (next ?? old)?.constructPath;
    const base = constructPath ? { constructPath } : {};
    if (!old) changes.push({ address, action: "create", attributes: [], ...base });
    else if (!next) changes.push({ address, action: "delete", attributes: [], ...base });
    else {
      const attributes: AttributeChange[] = [];
      diffValues(old.value, next.value, [], attributes);
      if (attributes.length > 0) changes.push({ address, action: "update", attributes, ...base });
    }
  }
  return changes;
}

function countUnchanged(before: Map<string, Entry>, after: Map<string, Entry>): number {
  let unchanged = 0;
  for (const [address, entry] of after) {
    const old = before.get(address);
    if (old) {
      const attributes: AttributeChange[] = [];
      diffValues(old.value, entry.value, [], attributes);
      if (attributes.length === 0) unchanged += 1;
    }
  }
  return unchanged;
}

/** Deep diff down to leaves, so each reported value is a scalar that can be shown (or hashed) on its own. */
function diffValues(before: unknown, after: unknown, path: PathPart[], out: AttributeChange[]): void {
  if (isObject(before) && isObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
      if (key === METADATA_KEY) continue;
      const inBefore = Object.hasOwn(before, key);
      const inAfter = Object.hasOwn(after, key);
      if (inBefore && inAfter) diffValues(before[key], after[key], [...path, key], out);
      else if (inAfter) addLeaves(after[key], [...path, key], "added", out);
      else addLeaves(before[key], [...path, key], "removed", out);
    }
    return;
  }
  const [keyedBefore, keyedAfter] = [byKey(before), byKey(after)];
  if (keyedBefore && keyedAfter) {
    // AWS tag blocks ({ key, value, propagate_at_launch }) compared by key: one label more is one added
    // tag, not every later block shifting by one index.
    for (const key of [...new Set([...keyedBefore.keys(), ...keyedAfter.keys()])].sort()) {
      const [was, now] = [keyedBefore.get(key), keyedAfter.get(key)];
      if (was !== undefined && now !== undefined) diffValues(was, now, [...path, { key }], out);
      else if (now !== undefined) addLeaves(now, [...path, { key }], "added", out);
      else addLeaves(was, [...path, { key }], "removed", out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    for (let index = 0; index < length; index += 1) {
      if (index >= before.length) addLeaves(after[index], [...path, index], "added", out);
      else if (index >= after.length) addLeaves(before[index], [...path, index], "removed", out);
      else diffValues(before[index], after[index], [...path, index], out);
    }
    return;
  }
  const key = lastKey(path);
  const [parsedBefore, parsedAfter] = [embeddedJson(before, key), embeddedJson(after, key)];
  if (parsedBefore !== undefined && parsedAfter !== undefined) {
    // IAM policies and similar arrive as JSON strings: diff their structure, so a reviewer sees which statement changed.
    diffValues(parsedBefore, parsedAfter, path, out);
    return;
  }
  if (!sameScalar(before, after)) {
    out.push({ path: formatPath(path), kind: "changed", before: describeValue(before, key), after: describeValue(after, key) });
  }
}

/** A list of blocks that each carry a distinct string `key` (AWS tag blocks), by that key; undefined for any other value. */
function byKey(value: unknown): Map<string, Record<string, unknown>> | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const entries = new Map<string, Record<string, unknown>>();
  for (const item of value) {
    if (!isObject(item) || typeof item.key !== "string" || entries.has(item.key)) return undefined;
    entries.set(item.key, item);
  }
  return entries;
}

function addLeaves(value: unknown, path: PathPart[], kind: "added" | "removed", out: AttributeChange[]): void {
  const children: [PathPart, unknown][] = isObject(value)
    ? Object.entries(value).filter(([key]) => key !== METADATA_KEY)
    : Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : [];
  if (children.length === 0) {
    const shown = describeValue(value, lastKey(path));
    out.push(kind === "added" ? { path: formatPath(path), kind, after: shown } : { path: formatPath(path), kind, before: shown });
    return;
  }
  for (const [key, child] of children) addLeaves(child, [...path, key], kind, out);
}

/** The object or array a JSON-document string holds (not for opaque keys such as user data). */
function embeddedJson(value: unknown, key: string | undefined): unknown {
  if (typeof value !== "string" || !/^\s*[[{]/.test(value) || (key !== undefined && OPAQUE_KEY.test(key))) return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function sameScalar(a: unknown, b: unknown): boolean {
  if (isObject(a) || isObject(b) || Array.isArray(a) || Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

/**
 * A value as a reviewer may see it: short scalars as JSON, anything that may be
 * a script, a payload or a secret as `sha256:<12 hex> (<n> chars)`.
 */
export function describeValue(value: unknown, key?: string): string {
  if (typeof value === "string") {
    if (isOpaqueString(value, key)) return `sha256:${shortHash(value)} (${value.length} chars)`;
    return redactSecrets(JSON.stringify(value));
  }
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[${value.length} items]`;
  if (isObject(value)) return Object.keys(value).length === 0 ? "{}" : `{${Object.keys(value).length} keys}`;
  return String(value);
}

export function isOpaqueString(value: string, key?: string): boolean {
  if (TERRAFORM_REFERENCE.test(value)) return false;
  return (
    value.length > MAX_SHOWN_STRING || value.includes("\n") || BASE64_LIKE.test(value) || (key !== undefined && OPAQUE_KEY.test(key) && value.length > 0)
  );
}

export function shortHash(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 12);
}

/** `a.b[0]["key.with.dots"]`, `tag[key=team].value`, redacted in case a key carries a token. */
export function formatPath(path: readonly PathPart[]): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else if (typeof part === "object") text += `[key=${JSON.stringify(part.key)}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(part)) text += text === "" ? part : `.${part}`;
    else text += `[${JSON.stringify(part)}]`;
  }
  return redactSecrets(text);
}

function lastKey(path: readonly PathPart[]): string | undefined {
  for (let index = path.length - 1; index >= 0; index -= 1) {
    if (typeof path[index] === "string") return path[index] as string;
  }
  return undefined;
}

function constructPathOf(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const metadata = value[METADATA_KEY];
  if (!isObject(metadata) || !isObject(metadata.metadata)) return undefined;
  return typeof metadata.metadata.path === "string" ? metadata.metadata.path : undefined;
}

function objectEntries(value: unknown): [string, unknown][] {
  return isObject(value) ? Object.entries(value).filter(([key]) => key !== METADATA_KEY) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Counts for a summary line: resources to create, update and delete in a cell. */
export function countActions(changes: readonly EntryChange[]): Record<EntryAction, number> {
  const counts: Record<EntryAction, number> = { create: 0, update: 0, delete: 0, move: 0 };
  for (const change of changes) counts[change.action] += 1;
  return counts;
}
