/**
 * Invariant checks shared by the Google and AWS constructs, so a construct is safe
 * without the YAML model. Each throws a UserInputError naming the construct, the property,
 * the value received and what was expected. Values still Terraform tokens at synth time are
 * skipped: only the cloud API can check them.
 */
import { Token } from "cdktf";
import type { Construct } from "constructs";
import { UserInputError } from "../lib/process/errors";
import { nameProblem, type NameRule } from "../lib/names/cloud-name-rules";
import { isValidCidr } from "../lib/network/cidr";

export function isToken(value: unknown): boolean {
  return Token.isUnresolved(value);
}

export function fail(scope: Construct, property: string, received: unknown, expected: string): never {
  throw new UserInputError(`${scope.node.path}: ${property} is ${JSON.stringify(received)}; expected ${expected}.`);
}

/** A string with something in it: not empty, not only whitespace. */
export function checkNotBlank(scope: Construct, property: string, value: string, expected: string): void {
  if (isToken(value)) return;
  if (value.trim() === "") fail(scope, property, value, expected);
}

export function checkNonEmpty(scope: Construct, property: string, values: readonly unknown[], what: string): void {
  if (isToken(values)) return;
  if (values.length === 0) fail(scope, property, values, `at least one ${what}`);
}

export function checkUnique(scope: Construct, property: string, values: readonly string[]): void {
  if (isToken(values)) return;
  const seen = new Set<string>();
  for (const value of values) {
    if (isToken(value)) continue;
    if (seen.has(value)) fail(scope, property, values, `distinct values, but "${value}" appears more than once`);
    seen.add(value);
  }
}

export function checkIntegerRange(scope: Construct, property: string, value: number, min: number, max: number): void {
  if (isToken(value)) return;
  if (!Number.isInteger(value) || value < min || value > max) fail(scope, property, value, `an integer from ${min} to ${max}`);
}

export function checkRatio(scope: Construct, property: string, value: number): void {
  if (isToken(value)) return;
  if (!(value > 0 && value <= 1)) fail(scope, property, value, "a share greater than 0 and at most 1");
}

export function checkPattern(scope: Construct, property: string, value: string, pattern: RegExp, expected: string): void {
  if (isToken(value)) return;
  if (!pattern.test(value)) fail(scope, property, value, expected);
}

/** A firewall or security group source: an IPv4 CIDR that is not the whole internet. */
export function checkPrivateSourceCidr(scope: Construct, property: string, value: string): void {
  if (isToken(value)) return;
  if (!isValidCidr(value)) fail(scope, property, value, "an IPv4 CIDR block such as 10.8.0.0/16, with no host bits set");
  if (Number(value.split("/")[1]) === 0) fail(scope, property, value, "a source range narrower than the whole internet (0.0.0.0/0)");
}

/** A name its cloud accepts (lib/names/cloud-name-rules.ts), the same rule `prepare` applies to the model's names. */
export function checkName(scope: Construct, property: string, name: string, rule: NameRule): void {
  if (isToken(name)) return;
  const problem = nameProblem(rule, name);
  if (problem !== undefined) fail(scope, property, name, problem);
}
