/**
 * Files of a synthesized cell stack (`cdktf.out/stacks/<cell>/`) that the review reads:
 * cdk.tf.json, and resource-shards.json written beside it by the stack, which maps
 * resource addresses (`<type>.<logical_id>`) to the shard they belong to.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OperationalError } from "../process/errors";

export const STACK_JSON_FILE = "cdk.tf.json";
export const RESOURCE_SHARDS_FILE = "resource-shards.json";

/** Shard of a resource address, undefined for cell-wide resources (network, monitoring...). */
export type ShardOf = (address: string) => string | undefined;
/** Construct path of a resource address below its cell ("fleet/shard-x/managers/Template0"), as cdktf records it. */
export type PathOf = (address: string) => string | undefined;

/** The parts of a synthesized stack (Terraform JSON configuration) that the review reads. */
export interface SynthesizedStack {
  readonly resource?: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, unknown>>>>>>;
  readonly data?: unknown;
  readonly output?: Readonly<Record<string, unknown>>;
}

/** `{ "<type>.<logical_id>": "<shard>" }`; a missing file means every resource is cell-wide. */
export function readResourceShards(stackDir: string): ShardOf {
  const file = join(stackDir, RESOURCE_SHARDS_FILE);
  if (!existsSync(file)) return () => undefined;
  const map = readJson(file);
  const invalid = typeof map !== "object" || map === null || Array.isArray(map) || Object.values(map).some((shard) => typeof shard !== "string");
  if (invalid) {
    throw new OperationalError(`${file}: expected an object mapping resource addresses to shard names, such as {"google_compute_instance.small-amd64_Manager0_13924B21": "small-amd64"}`);
  }
  return shardLookup(map as Record<string, string>);
}

/** A ShardOf over a map; indexed addresses (`x.y[0]`, `x.y["k"]`) find their resource's entry. */
export function shardLookup(map: Readonly<Record<string, string>>): ShardOf {
  const shards = new Map(Object.entries(map));
  return (address) => shards.get(address) ?? shards.get(resourceAddress(address));
}

/** `type.name[0]` -> `type.name`: the address of the resource block an instance belongs to. */
export function resourceAddress(instanceAddress: string): string {
  return instanceAddress.replace(/\[[^\]]*\]$/, "");
}

/** Construct paths of a synthesized stack's resources, for people: the stack's own name is left off. */
export function constructPaths(stack: SynthesizedStack): PathOf {
  const paths = new Map<string, string>();
  for (const [type, blocks] of Object.entries(stack.resource ?? {})) {
    for (const [name, block] of Object.entries(blocks)) {
      const path = (block["//"] as { metadata?: { path?: unknown } } | undefined)?.metadata?.path;
      if (typeof path === "string") paths.set(`${type}.${name}`, path.replace(/^[^/]+\//, ""));
    }
  }
  return (address) => paths.get(address) ?? paths.get(resourceAddress(address));
}

export function readSynthesizedStack(stackDir: string): SynthesizedStack {
  const file = join(stackDir, STACK_JSON_FILE);
  if (!existsSync(file)) throw new OperationalError(`${file} does not exist: synthesize the stack first`);
  const stack = readJson(file);
  if (typeof stack !== "object" || stack === null || Array.isArray(stack)) throw new OperationalError(`${file}: expected a Terraform JSON configuration object`);
  return stack as SynthesizedStack;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new OperationalError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
