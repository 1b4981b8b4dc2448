/**
 * ARNs the constructs build from plain names, so IAM statements can name resources that another
 * construct (or the operator, for SSM parameters) creates, without waiting on that resource.
 */

/** The partition of a region: GovCloud and China live in their own. */
export function partitionOf(region: string): string {
  if (region.startsWith("us-gov-")) return "aws-us-gov";
  if (region.startsWith("cn-")) return "aws-cn";
  return "aws";
}

/** The DNS suffix of service endpoints in a region (used by `kms:ViaService`). */
export function dnsSuffixOf(region: string): string {
  return region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
}

/** VPC endpoint service name, such as com.amazonaws.eu-west-1.s3. */
export function endpointServiceName(region: string, service: string): string {
  const reversedSuffix = dnsSuffixOf(region).split(".").reverse().join(".");
  return `${reversedSuffix}.${region}.${service}`;
}

export interface RegionalArnParts {
  readonly region: string;
  readonly accountId: string;
}

/** SSM parameter ARN; parameter names are fully qualified ("/a/b"), the ARN drops the leading slash. */
export function ssmParameterArn(at: RegionalArnParts, parameterName: string): string {
  return `arn:${partitionOf(at.region)}:ssm:${at.region}:${at.accountId}:parameter/${parameterName.replace(/^\//, "")}`;
}

/** Every log stream of one log group (what CreateLogStream/PutLogEvents/DescribeLogStreams are checked against). */
export function logGroupStreamsArn(at: RegionalArnParts, logGroupName: string): string {
  return `arn:${partitionOf(at.region)}:logs:${at.region}:${at.accountId}:log-group:${logGroupName}:*`;
}

/** An Auto Scaling group by name, whatever its UUID (`autoScalingGroup:<uuid>:autoScalingGroupName/<name>`). */
export function autoscalingGroupArnByName(at: RegionalArnParts, name: string): string {
  return `arn:${partitionOf(at.region)}:autoscaling:${at.region}:${at.accountId}:autoScalingGroup:*:autoScalingGroupName/${name}`;
}

export function instancesArn(at: RegionalArnParts): string {
  return `arn:${partitionOf(at.region)}:ec2:${at.region}:${at.accountId}:instance/*`;
}

export function kmsKeysArn(at: RegionalArnParts): string {
  return `arn:${partitionOf(at.region)}:kms:${at.region}:${at.accountId}:key/*`;
}

/** An existing SNS topic, as `monitoring.notifications.channels` lists them on AWS. */
export const SNS_TOPIC_ARN = /^arn:aws(-[a-z-]+)?:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;
