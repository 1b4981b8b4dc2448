/**
 * Invariant checks shared by the Google constructs. Each throws a UserInputError that names
 * the construct, the property, the value received and what was expected; values that are
 * still Terraform tokens at synth time are skipped (they can only be checked by the API).
 */
import { Token } from "cdktf";
import type { Construct } from "constructs";
import { UserInputError } from "../../lib/errors";

/** RFC 1035 names, as Compute Engine requires for instances, groups, templates, firewalls, tags. */
const COMPUTE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

export function isToken(value: unknown): boolean {
  return Token.isUnresolved(value);
}

export function fail(scope: Construct, property: string, received: unknown, expected: string): never {
  throw new UserInputError(
    `${scope.node.path}: ${property} is ${JSON.stringify(received)}; expected ${expected}.`,
  );
}

export function checkComputeName(scope: Construct, property: string, name: string): void {
  if (isToken(name)) return;
  if (!COMPUTE_NAME.test(name)) {
    fail(scope, property, name, "a Compute Engine name: lowercase letters, digits and '-', starting with a letter, at most 63 characters");
  }
}

export function checkNonEmpty(scope: Construct, property: string, values: readonly unknown[], what: string): void {
  if (isToken(values)) return;
  if (values.length === 0) fail(scope, property, values, `at least one ${what}`);
}

export function checkUnique(scope: Construct, property: string, values: readonly string[]): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (isToken(value)) continue;
    if (seen.has(value)) fail(scope, property, values, `distinct values, but "${value}" appears more than once`);
    seen.add(value);
  }
}

export function checkIntegerRange(scope: Construct, property: string, value: number, min: number, max: number): void {
  if (isToken(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    fail(scope, property, value, `an integer from ${min} to ${max}`);
  }
}

export function checkRatio(scope: Construct, property: string, value: number): void {
  if (isToken(value)) return;
  if (!(value > 0 && value <= 1)) fail(scope, property, value, "a share greater than 0 and at most 1");
}
