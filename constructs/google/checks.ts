/**
 * Google-specific invariant checks (Compute Engine names), plus the shared ones.
 */
import type { Construct } from "constructs";
import { checkPattern } from "../checks";

export * from "../checks";

/** RFC 1035 names, as Compute Engine requires for instances, groups, templates, firewalls, tags. */
const COMPUTE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function checkComputeName(scope: Construct, property: string, name: string): void {
  checkPattern(scope, property, name, COMPUTE_NAME, "a Compute Engine name: lowercase letters, digits and '-', starting with a letter, at most 63 characters");
}
