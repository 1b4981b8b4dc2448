/**
 * The stack construct tests build their constructs in: a TerraformStack that writes its Terraform JSON
 * as the product's CellStack does (stacks/cell-stack.ts), each element's configuration resolved once
 * (stacks/resolve-once.ts), where a plain TerraformStack resolves the whole stack a second time.
 * test/stacks/synthesize.test.ts proves the two give the same JSON byte for byte; here it halves the
 * token resolution of every construct test's synth, which was the largest part of their CPU.
 */
import { TerraformStack } from "cdktf";
import { toTerraformResolvedOnce } from "../../stacks/resolve-once";

export class ResolvedOnceStack extends TerraformStack {
  override toTerraform(): unknown {
    return toTerraformResolvedOnce(this, () => super.toTerraform());
  }
}
