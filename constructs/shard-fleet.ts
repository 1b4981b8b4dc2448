/**
 * What one shard of a cell's fleet is made of, the same on both clouds, and the fleet's outputs.
 */
import { TerraformOutput, TerraformResource, TerraformStack } from "cdktf";
import { makeUniqueId } from "cdktf/lib/private/unique";
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

/**
 * Moves every resource under `scope` (a shard's `shard-<name>`) from the address it had under the sibling
 * scope `formerId` (`shard-<former name>`): one Terraform moved block per resource, so that `terraform plan`
 * of a rename moves the shard's state instead of destroying and creating it. The former address is the
 * logical id cdktf allocates for the former construct path (cdktf/lib/terraform-stack.js allocateLogicalId:
 * makeUniqueId of the path's ids below the stack), so it must be called once every resource of the scope
 * exists. Terraform treats a moved block whose source is not in the state as nothing to do
 * (developer.hashicorp.com/terraform/language/modules/develop/refactoring), so the blocks can stay after
 * the apply that moved the resources.
 */
export function moveShardResources(scope: Construct, formerId: string): void {
  const stack = TerraformStack.of(scope);
  const depth = scope.node.scopes.indexOf(scope);
  for (const child of scope.node.findAll()) {
    if (!(child instanceof TerraformResource)) continue;
    const scopes = child.node.scopes;
    const ids = scopes.slice(scopes.indexOf(stack) + 1).map((part) => part.node.id);
    // The shard's scope sits at the same depth in both paths: only its id differs.
    ids[depth - scopes.indexOf(stack) - 1] = formerId;
    child.moveFromId(`${child.terraformResourceType}.${makeUniqueId(ids)}`);
  }
}
