/**
 * What one shard of a cell's fleet is made of, the same on both clouds, and the fleet's outputs.
 */
import { TerraformOutput } from "cdktf";
import type { Construct } from "constructs";

/**
 * One shard's constructs. Manager slot i drives worker group i alone; `managers` and `workers` each own
 * every slot of the shard, in slot order.
 */
export interface ShardFleet<Iam, Cache, Managers, Workers> {
  /** The shard's name. */
  readonly name: string;
  /** The `shard-<name>` construct holding the shard's resources. */
  readonly scope: Construct;
  readonly iam: Iam;
  /** Absent when the shard has no cache. */
  readonly cache?: Cache;
  readonly managers: Managers;
  readonly workers: Workers;
}

export interface FleetOutput {
  readonly value: unknown;
  readonly description: string;
}

/**
 * One Terraform output per entry, named after its key. Output names are what pipelines read: the logical
 * id is the key itself, free of construct-path hashes.
 */
export function addFleetOutputs(scope: Construct, outputs: Readonly<Record<string, FleetOutput>>): void {
  for (const [name, { value, description }] of Object.entries(outputs)) {
    new TerraformOutput(scope, name, { value, description }).overrideLogicalId(name);
  }
}

/** A value per shard name, leaving out the shards `pick` has nothing for. */
export function byShard<Fleet extends { readonly name: string }>(
  shards: readonly Fleet[],
  pick: (fleet: Fleet) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(
    shards.flatMap((fleet) => {
      const value = pick(fleet);
      return value === undefined ? [] : [[fleet.name, value]];
    }),
  );
}
