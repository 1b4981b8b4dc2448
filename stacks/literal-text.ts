/**
 * Makes every literal string of a stack reach Terraform as written: an aspect wraps
 * each Terraform element's configuration so that its literal text is escaped
 * (lib/terraform/template-literal.ts) before cdktf resolves its references.
 *
 * Doing it for every element of the stack, rather than at each property, means no
 * script, rendered file, name or model value can be forgotten.
 */
import { Aspects, TerraformElement, type IAspect } from "cdktf";
import type { IConstruct } from "constructs";
import { escapeLiteralText } from "../lib/terraform/template-literal";

const ESCAPED = Symbol("runner-fleet.literal-text-escaped");

class EscapeLiteralText implements IAspect {
  visit(node: IConstruct): void {
    if (!TerraformElement.isTerraformElement(node)) return;
    const element = node as TerraformElement & { [ESCAPED]?: true };
    if (element[ESCAPED]) return;
    element[ESCAPED] = true;
    const toTerraform = element.toTerraform.bind(element);
    element.toTerraform = () => escapeLiteralText(toTerraform());
  }
}

/** Escapes the literal text of every Terraform element under `scope` at synth. */
export function escapeLiteralTextIn(scope: IConstruct): void {
  Aspects.of(scope).add(new EscapeLiteralText());
}
