/**
 * What each cloud accepts as the name of a resource the fleet creates, in one table per cloud.
 * The constructs check their names against these rules, and `prepare` checks every name a model
 * derives (lib/model/google-names.ts, lib/model/aws-names.ts) against the same rules,
 * so a model a cloud would refuse is stopped at the model file, not at apply.
 *
 * Sources (the limit each rule encodes):
 * - Compute Engine resource names: RFC 1035, 1-63 characters, `[a-z]([-a-z0-9]*[a-z0-9])?`.
 * - Managed instance group base_instance_name: at most 58 characters, because the group appends
 *   "-" and 4 random characters to make a 63-character instance name (Compute API InstanceGroupManager).
 * - Instance template name_prefix: the Google provider appends a unique suffix; prefixes longer than
 *   37 characters get a shortened, collision-prone one (google_compute_instance_template docs).
 * - Service account ids: 6-30 characters, lowercase letters, digits and '-', starting with a letter.
 * - Custom role ids: 3-64 letters, digits, '_' and '.'.
 * - Cloud Storage buckets: 3-63 characters, lowercase letters, digits, '-', '_', alphanumeric at both
 *   ends, not starting with "goog", not containing "google" (cloud.google.com/storage/docs/naming-buckets).
 * - Secret Manager secret ids: 1-255 letters, digits, '-' and '_'.
 * - EC2 Auto Scaling group names: 1-255 characters.
 * - EC2 launch template names: 3-128 characters of `[a-zA-Z0-9().\-/_]` (Auto Scaling API LaunchTemplateName).
 * - IAM role names: 1-64 characters of `[\w+=,.@-]`; instance profile and inline policy names: up to 128.
 * - S3 bucket names: 3-63 lowercase letters, digits, '.' and '-', alphanumeric at both ends, no "xn--",
 *   "sthree-" or "amzn-s3-demo-" prefix, no "-s3alias", "--ol-s3", ".mrap" or "--x-s3" suffix.
 * - CloudWatch alarm names: 1-255 characters; dashboard names: 1-255 of `[A-Za-z0-9_-]`.
 * - CloudWatch Logs group names: 1-512 of `[.\-_/#A-Za-z0-9]`; metric filter names: 1-512, no ':' or '*'.
 * - SNS topic names: 1-256 of `[A-Za-z0-9_-]`.
 * - EC2 security group names: 1-255 characters, not starting with "sg-".
 * - SSM parameter names: at most 1011 characters, `[a-zA-Z0-9_.\-/]`, and no name may start with
 *   "aws" or "ssm", in any case (SSM PutParameter naming constraints).
 */

export interface NameRule {
  /** What the name is, in words ("a Compute Engine managed instance group base_instance_name"). */
  readonly what: string;
  readonly minLength: number;
  readonly maxLength: number;
  /** The characters and shape allowed. */
  readonly pattern: RegExp;
  /** `pattern` in words. */
  readonly patternText: string;
  /** Names the cloud reserves even though they match `pattern`. */
  readonly reserved?: ReadonlyArray<{ readonly test: RegExp; readonly text: string }>;
}

/** What is wrong with `name` under `rule`, in words, or undefined when the cloud accepts it. */
export function nameProblem(rule: NameRule, name: string): string | undefined {
  if (name.length < rule.minLength || name.length > rule.maxLength) {
    return `${rule.what} of ${rule.minLength} to ${rule.maxLength} characters, but "${name}" has ${name.length}`;
  }
  if (!rule.pattern.test(name)) return `${rule.what}: ${rule.patternText}, but "${name}" is not`;
  const reserved = rule.reserved?.find((entry) => entry.test.test(name));
  if (reserved) return `${rule.what} that does not ${reserved.text}, but "${name}" does`;
  return undefined;
}

const RFC1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const RFC1035_TEXT = "lowercase letters, digits and '-', starting with a letter and not ending with '-'";

export const GOOGLE_NAME_RULES = {
  computeName: { what: "a Compute Engine resource name", minLength: 1, maxLength: 63, pattern: RFC1035, patternText: RFC1035_TEXT },
  baseInstanceName: {
    what: "a managed instance group base_instance_name (instances are named <base>-xxxx)",
    minLength: 1,
    maxLength: 58,
    pattern: RFC1035,
    patternText: RFC1035_TEXT,
  },
  templateNamePrefix: {
    what: "an instance template name_prefix (longer ones get a collision-prone suffix)",
    minLength: 1,
    maxLength: 37,
    pattern: /^[a-z][-a-z0-9]*$/,
    patternText: "lowercase letters, digits and '-', starting with a letter",
  },
  serviceAccountId: {
    what: "a service account id",
    minLength: 6,
    maxLength: 30,
    pattern: RFC1035,
    patternText: RFC1035_TEXT,
  },
  customRoleId: {
    what: "a custom IAM role id",
    minLength: 3,
    maxLength: 64,
    pattern: /^[a-zA-Z0-9_.]+$/,
    patternText: "letters, digits, '_' and '.'",
  },
  bucketName: {
    what: "a Cloud Storage bucket name",
    minLength: 3,
    maxLength: 63,
    pattern: /^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$/,
    patternText: "lowercase letters, digits, '-' and '_', starting and ending with a letter or digit",
    reserved: [
      { test: /^goog/, text: 'start with "goog"' },
      { test: /google|g00gle/, text: 'contain "google"' },
    ],
  },
  secretId: {
    what: "a Secret Manager secret id",
    minLength: 1,
    maxLength: 255,
    pattern: /^[a-zA-Z0-9_-]+$/,
    patternText: "letters, digits, '-' and '_'",
  },
} as const satisfies Record<string, NameRule>;

export const AWS_NAME_RULES = {
  autoScalingGroupName: {
    what: "an Auto Scaling group name",
    minLength: 1,
    maxLength: 255,
    pattern: /^[A-Za-z0-9][A-Za-z0-9_.\-/]*$/,
    patternText: "letters, digits and - _ . /",
  },
  launchTemplateName: {
    what: "a launch template name",
    minLength: 3,
    maxLength: 128,
    pattern: /^[a-zA-Z0-9().\-/_]+$/,
    patternText: "letters, digits and ( ) . - / _",
  },
  iamRoleName: { what: "an IAM role name", minLength: 1, maxLength: 64, pattern: /^[\w+=,.@-]+$/, patternText: "letters, digits and + = , . @ _ -" },
  instanceProfileName: {
    what: "an IAM instance profile name",
    minLength: 1,
    maxLength: 128,
    pattern: /^[\w+=,.@-]+$/,
    patternText: "letters, digits and + = , . @ _ -",
  },
  iamPolicyName: { what: "an IAM policy name", minLength: 1, maxLength: 128, pattern: /^[\w+=,.@-]+$/, patternText: "letters, digits and + = , . @ _ -" },
  bucketName: {
    what: "an S3 bucket name",
    minLength: 3,
    maxLength: 63,
    pattern: /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/,
    patternText: "lowercase letters, digits, '.' and '-', starting and ending with a letter or digit",
    reserved: [
      { test: /^(xn--|sthree-|amzn-s3-demo-)/, text: 'start with "xn--", "sthree-" or "amzn-s3-demo-"' },
      { test: /(-s3alias|--ol-s3|\.mrap|--x-s3)$/, text: 'end with "-s3alias", "--ol-s3", ".mrap" or "--x-s3"' },
      { test: /\.\./, text: 'contain ".."' },
    ],
  },
  alarmName: { what: "a CloudWatch alarm name", minLength: 1, maxLength: 255, pattern: /^[^\x00-\x1f]+$/, patternText: "printable characters" },
  dashboardName: {
    what: "a CloudWatch dashboard name",
    minLength: 1,
    maxLength: 255,
    pattern: /^[A-Za-z0-9_-]+$/,
    patternText: "letters, digits, '-' and '_'",
  },
  logGroupName: {
    what: "a CloudWatch Logs group name",
    minLength: 1,
    maxLength: 512,
    pattern: /^[.\-_/#A-Za-z0-9]+$/,
    patternText: "letters, digits and . - _ / #",
  },
  metricFilterName: { what: "a metric filter name", minLength: 1, maxLength: 512, pattern: /^[^:*]+$/, patternText: "no ':' or '*'" },
  snsTopicName: { what: "an SNS topic name", minLength: 1, maxLength: 256, pattern: /^[A-Za-z0-9_-]+$/, patternText: "letters, digits, '-' and '_'" },
  securityGroupName: {
    what: "a security group name",
    minLength: 1,
    maxLength: 255,
    pattern: /^[A-Za-z0-9 ._\-:/()#,@[\]+=&;{}!$*]+$/,
    patternText: "letters, digits, spaces and ._-:/()#,@[]+=&;{}!$*",
    reserved: [{ test: /^sg-/, text: 'start with "sg-"' }],
  },
  ssmParameterName: {
    what: "an SSM parameter name",
    minLength: 2,
    maxLength: 1011,
    pattern: /^\/[a-zA-Z0-9_.\-/]+$/,
    patternText: "a path of letters, digits and _ . - /",
    reserved: [{ test: /^\/?(aws|ssm)/i, text: 'start with "aws" or "ssm" (in any case)' }],
  },
} as const satisfies Record<string, NameRule>;

/** A name a model derives, the rule its cloud applies to it, and the model values it is built from. */
export interface DerivedName {
  readonly name: string;
  readonly rule: NameRule;
  /** Model paths of the values the name is made of, most specific first; a finding points at one of them. */
  readonly from: ReadonlyArray<ReadonlyArray<string | number>>;
}
