/**
 * A stack's Terraform JSON with each element's configuration resolved once.
 *
 * cdktf's TerraformStack.toTerraform (cdktf 0.21, lib/terraform-stack.js) resolves every element's
 * configuration, merges the fragments, and then resolves the merged whole again. That second walk
 * visits every string of the stack (the startup scripts above all) looking for tokens the first walk
 * left none of: resolve() returns a fragment fully resolved (a token's value is resolved in turn
 * until no token is left), and the stack's metadata and output ids are plain strings. It was a tenth
 * of a cell's synthesis. Only the stack's own raw overrides (`stack.addOverride`) are merged
 * unresolved: plain values (an S3 backend's use_lockfile) are merged as they are, which the second
 * resolve would leave alone; a stack whose overrides hold a token or an undefined (a deletion, which
 * resolve would drop) goes through cdktf's own method.
 * Each resolve skips the values that hold no token (stacks/plain-value-resolve.ts).
 * test/stacks/synthesize.test.ts checks the output is byte for byte cdktf's own.
 */
import { TerraformElement, TerraformOutput, TerraformStack, Token } from "cdktf";
import type { IConstruct } from "constructs";
import { deepMerge } from "cdktf/lib/util";
import { resolveSkippingPlainValues as resolve } from "./plain-value-resolve";

/**
 * A TerraformStack that writes its Terraform JSON with each element resolved once: the cell stack
 * (stacks/cell-stack.ts) and the stacks the construct tests build their constructs in.
 */
export class ResolvedOnceStack extends TerraformStack {
  override toTerraform(): unknown {
    return toTerraformResolvedOnce(this, () => super.toTerraform());
  }
}

/** The private fields of TerraformStack that its toTerraform reads. */
interface StackInternals {
  readonly rawOverrides: Record<string, unknown>;
  readonly cdktfVersion: string;
}

type Json = Record<string, unknown>;

/** `stack.toTerraform()` as cdktf computes it, without the second resolve; `cdktfToTerraform` when the stack's raw overrides need it. */
export function toTerraformResolvedOnce(stack: TerraformStack, cdktfToTerraform: () => unknown): unknown {
  const { rawOverrides, cdktfVersion } = stack as unknown as StackInternals;
  if (!isPlainJson(rawOverrides)) return cdktfToTerraform();

  // From here on, cdktf's method line for line.
  const overridden = Object.keys(rawOverrides);
  const metadata: Json = {
    version: cdktfVersion,
    stackName: stack.node.id,
    backend: "local",
    cloud: undefined,
    ...(overridden.length > 0 ? { overrides: { stack: overridden } } : {}),
  };
  const elements = terraformElements(stack);
  for (const elementMetadata of elements.map((element) => resolve(stack, element.toMetadata() as unknown))) deepMerge(metadata, elementMetadata);
  const outputs: Json = {};
  for (const element of elements) {
    if (!TerraformOutput.isTerraformOutput(element)) continue;
    deepMerge(
      outputs,
      element.node.path.split("/").reduceRight<Json>((inner, part) => (Object.keys(inner).length === 0 ? { [part]: element.friendlyUniqueId } : { [part]: inner }), {}),
    );
  }
  // The one value of cdktf's second resolve that is not already resolved: an undefined `cloud`, which it drops.
  for (const key of Object.keys(metadata)) if (metadata[key] === undefined) delete metadata[key];
  const tf: Json = { "//": { metadata, outputs } };
  for (const fragment of elements.map((element) => resolve(stack, element.toTerraform() as unknown))) deepMerge(tf, fragment);
  deepMerge(tf, rawOverrides);
  return tf;
}

/** Strings, numbers, booleans and nulls (no token among them, no undefined), in plain arrays and objects. */
function isPlainJson(value: unknown): boolean {
  if (value === null || typeof value === "boolean") return true;
  if (typeof value === "string" || typeof value === "number") return !Token.isUnresolved(value);
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.entries(value).every(([key, inner]) => !Token.isUnresolved(key) && isPlainJson(inner));
}

/** The Terraform elements of `node`'s tree, depth first, not entering a nested stack (cdktf's terraformElements). */
function terraformElements(node: IConstruct, into: TerraformElement[] = []): TerraformElement[] {
  if (TerraformElement.isTerraformElement(node)) into.push(node);
  for (const child of node.node.children) {
    if (!TerraformStack.isStack(child)) terraformElements(child, into);
  }
  return into;
}
