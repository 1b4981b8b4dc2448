/**
 * AWS-specific invariant checks (ids, instance types, images), plus the shared ones.
 */
import type { Construct } from "constructs";
import { checkPattern, isToken } from "../checks";

export * from "../checks";

/** EC2 instance types: family, generation and size, such as t3.medium or m7i.large. */
export const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9]+$/;
export const INSTANCE_TYPE_EXPECTED = "an EC2 instance type such as t3.medium";

/** What a launch template accepts as image_id: an AMI id or an SSM parameter resolved at launch. */
export const IMAGE_ID = /^(ami-[0-9a-f]{8,17}|resolve:ssm:\/?[A-Za-z0-9_.\-/:]+)$/;
export const IMAGE_ID_EXPECTED = "an AMI id (ami-...) or resolve:ssm:<parameter>";

/**
 * Prefix of the network's and the monitoring's names (the cell id). Every name built on it stays far
 * inside its AWS limit (lib/names/cloud-name-rules.ts: 255 characters and more), so it may be a whole DNS label.
 */
export const NAME_PREFIX = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const NAME_PREFIX_EXPECTED = "a name prefix such as the cell id: at most 63 lowercase letters, digits and '-', starting with a letter";

export const SUBNET_ID = /^subnet-[0-9a-f]{8,17}$/;
export const SECURITY_GROUP_ID = /^sg-[0-9a-f]{8,17}$/;
export const VPC_ID = /^vpc-[0-9a-f]{8,17}$/;

/** Each id is either a token (a resource created in the same stack) or matches `pattern`. */
export function checkIds(scope: Construct, property: string, ids: readonly string[], pattern: RegExp, expected: string): void {
  if (isToken(ids)) return;
  ids.forEach((id, index) => checkPattern(scope, `${property}[${index}]`, id, pattern, expected));
}
