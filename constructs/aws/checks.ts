/**
 * Invariant checks shared by the AWS constructs. Each throws a UserInputError that names the
 * construct, the property, the value received and what was expected. Values that are still
 * Terraform tokens at synth time are skipped: only the AWS API can check them.
 */
import { Token } from "cdktf";
import type { Construct } from "constructs";
import { UserInputError } from "../../lib/errors";
import { isValidCidr } from "../../lib/model/value-checks";

export function isToken(value: unknown): boolean {
  return Token.isUnresolved(value);
}

export function fail(scope: Construct, property: string, received: unknown, expected: string): never {
  throw new UserInputError(`${scope.node.path}: ${property} is ${JSON.stringify(received)}; expected ${expected}.`);
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

/** An IPv4 CIDR that is not the whole internet: no rule of ours ever opens a port to 0.0.0.0/0. */
export function checkPrivateSourceCidr(scope: Construct, property: string, value: string): void {
  if (isToken(value)) return;
  if (!isValidCidr(value)) fail(scope, property, value, "an IPv4 CIDR block such as 10.8.0.0/16, with no host bits set");
  if (Number(value.split("/")[1]) === 0) fail(scope, property, value, "a source range narrower than the whole internet (0.0.0.0/0)");
}

/** EC2 instance types: family, generation and size, such as t3.medium or m7i.large. */
export const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;
export const INSTANCE_TYPE_EXPECTED = "an EC2 instance type such as t3.medium";

/** What a launch template accepts as image_id: an AMI id or an SSM parameter resolved at launch. */
export const IMAGE_ID = /^(ami-[0-9a-f]{8,17}|resolve:ssm:\/?[A-Za-z0-9_.\-/:]+)$/;
export const IMAGE_ID_EXPECTED = "an AMI id (ami-...) or resolve:ssm:<parameter>";

export const SUBNET_ID = /^subnet-[0-9a-f]{8,17}$/;
export const SECURITY_GROUP_ID = /^sg-[0-9a-f]{8,17}$/;
export const VPC_ID = /^vpc-[0-9a-f]{8,17}$/;

/** Each id is either a token (a resource created in the same stack) or matches `pattern`. */
export function checkIds(scope: Construct, property: string, ids: readonly string[], pattern: RegExp, expected: string): void {
  if (isToken(ids)) return;
  ids.forEach((id, index) => checkPattern(scope, `${property}[${index}]`, id, pattern, expected));
}
