/**
 * The identity of one shard's runner managers: a role EC2 assumes, its instance profile, and one
 * inline policy that lets the managers drive their own worker groups and read their own token,
 * cache bucket and log group, and nothing else. No statement uses a wildcard action; describe calls
 * get `*` resources only because AWS cannot scope them.
 */
import { Annotations } from "cdktf";
import { Construct } from "constructs";
import { DataAwsCallerIdentity } from "@cdktf/provider-aws/lib/data-aws-caller-identity";
import {
  DataAwsIamPolicyDocument,
  type DataAwsIamPolicyDocumentStatement,
} from "@cdktf/provider-aws/lib/data-aws-iam-policy-document";
import { IamInstanceProfile } from "@cdktf/provider-aws/lib/iam-instance-profile";
import { IamRole } from "@cdktf/provider-aws/lib/iam-role";
import { IamRolePolicy } from "@cdktf/provider-aws/lib/iam-role-policy";
import { checkNonEmpty, checkPattern, checkUnique } from "./checks";
import { autoscalingGroupArnByName, dnsSuffixOf, instancesArn, kmsKeysArn, logGroupStreamsArn, ssmParameterArn, type RegionalArnParts } from "./arns";

const ROLE_NAME = /^[\w+=,.@-]{1,64}$/;
const ACCOUNT_ID = /^[0-9]{12}$/;
const SSM_PARAMETER_NAME = /^\/[A-Za-z0-9_.\-/]{1,1010}$/;

/** Inline policy of the manager role. */
export const MANAGER_POLICY_NAME = "gitlab-runner-manager";

export interface WorkerGroupReference {
  /** Auto Scaling group name (the fleeting plugin's `name`). */
  readonly name: string;
  /** Auto Scaling group ARN. */
  readonly arn: string;
}

export interface FleetingIamProps {
  /** Name of the role and of its instance profile. */
  readonly roleName: string;
  readonly region: string;
  /**
   * Account of the fleet; scopes the ARNs of instances, the token parameter and the log group.
   * @default - the account of the provider's credentials (data "aws_caller_identity")
   */
  readonly accountId?: string;
  /** The worker groups the shard's managers drive (one per slot). */
  readonly workerGroups: WorkerGroupReference[];
  /**
   * Linux user the fleeting plugin connects as; EC2 Instance Connect keys are accepted for this user only.
   * @default - any user of the workers
   */
  readonly workerUsername?: string;
  /**
   * The shard's manager Auto Scaling groups: a manager completes (and heartbeats) their termination
   * lifecycle hook once gitlab-runner has drained, and reports its own instance Unhealthy when
   * gitlab-runner stops answering (lib/render/manager-health.ts).
   * @default []
   */
  readonly managerGroupNames?: string[];
  /**
   * SSM SecureString parameter holding the shard's runner token (`secretLocation(...).awsParameterName`).
   * @default - no secret store: no secret access is granted, the token is placed on the managers by hand
   */
  readonly tokenParameterName?: string;
  /**
   * ARN of the KMS key that encrypts the token parameter.
   * @default - the AWS-managed `alias/aws/ssm` key, allowed only through SSM and only for this parameter
   */
  readonly tokenParameterKmsKeyArn?: string;
  /**
   * ARN of the shard's cache bucket.
   * @default - no cache access
   */
  readonly cacheBucketArn?: string;
  /**
   * CloudWatch log group the managers ship gitlab-runner's log to (`logGroupName(model, shard)`).
   * @default - no log shipping
   */
  readonly logGroupName?: string;
  /**
   * CloudWatch namespace a manager whose boot failed records a BootFailures point in
   * (`awsShardMetricNamespace(cell, shard)`); PutMetricData is allowed in that namespace only.
   * @default - no metric data may be put
   */
  readonly bootMetricNamespace?: string;
  /**
   * Let operators open shells on the managers with Session Manager (no SSH port is open).
   * @default true
   */
  readonly sessionManagerAccess?: boolean;
  /**
   * Tags of the role and the instance profile.
   * @default {}
   */
  readonly tags?: Record<string, string>;
}

export class FleetingIam extends Construct {
  public readonly roleName: string;
  public readonly sessionManagerAccess: boolean;
  /** The account id, or a reference to the caller identity when none was given. */
  public readonly accountId: string;
  public readonly role: IamRole;
  public readonly instanceProfile: IamInstanceProfile;
  public readonly policyDocument: DataAwsIamPolicyDocument;
  /** The role's inline policy; managers should launch after it exists, or their first token read is denied. */
  public readonly policy: IamRolePolicy;

  constructor(scope: Construct, id: string, props: FleetingIamProps) {
    super(scope, id);
    this.roleName = props.roleName;
    this.sessionManagerAccess = props.sessionManagerAccess ?? true;

    checkPattern(this, "roleName", props.roleName, ROLE_NAME, "an IAM role name: at most 64 letters, digits and + = , . @ _ -");
    if (props.accountId !== undefined) checkPattern(this, "accountId", props.accountId, ACCOUNT_ID, "a 12-digit AWS account id");
    checkNonEmpty(this, "workerGroups", props.workerGroups, "worker group");
    checkUnique(this, "workerGroups[].name", props.workerGroups.map((group) => group.name));
    if (props.tokenParameterName !== undefined) {
      checkPattern(this, "tokenParameterName", props.tokenParameterName, SSM_PARAMETER_NAME, 'a fully qualified SSM parameter name such as "/gitlab-runner/cell/shard/token"');
    }

    this.accountId = props.accountId ?? new DataAwsCallerIdentity(this, "caller").accountId;
    const at: RegionalArnParts = { region: props.region, accountId: this.accountId };

    this.role = new IamRole(this, "Resource", {
      name: props.roleName,
      description: "GitLab runner managers: drive their own worker groups, read their own token",
      assumeRolePolicy: JSON.stringify({
        Version: "2012-10-17",
        Statement: [
          { Effect: "Allow", Principal: { Service: `ec2.${dnsSuffixOf(props.region)}` }, Action: "sts:AssumeRole" },
        ],
      }),
      tags: props.tags,
    });
    this.instanceProfile = new IamInstanceProfile(this, "instance-profile", {
      name: props.roleName,
      role: this.role.name,
      tags: props.tags,
    });

    const statements: DataAwsIamPolicyDocumentStatement[] = [
      ...this.fleetingStatements(at, props),
      ...this.tokenStatements(at, props),
      ...(props.managerGroupNames?.length ? [drainStatement(at, props.managerGroupNames), healthStatement(at, props.managerGroupNames)] : []),
      ...(props.cacheBucketArn ? cacheStatements(props.cacheBucketArn) : []),
      ...(props.logGroupName ? [logStatement(at, props.logGroupName)] : []),
      ...(props.bootMetricNamespace ? [bootMetricStatement(props.bootMetricNamespace)] : []),
      ...(this.sessionManagerAccess ? sessionManagerStatements(at) : []),
    ];
    this.policyDocument = new DataAwsIamPolicyDocument(this, "policy-document", { statement: statements });
    this.policy = new IamRolePolicy(this, "policy", {
      name: MANAGER_POLICY_NAME,
      role: this.role.id,
      policy: this.policyDocument.json,
    });
  }

  public get roleArn(): string {
    return this.role.arn;
  }

  public get instanceProfileArn(): string {
    return this.instanceProfile.arn;
  }

  /** What the aws fleeting plugin calls (its README's recommended policy, scoped to this shard's groups). */
  private fleetingStatements(at: RegionalArnParts, props: FleetingIamProps): DataAwsIamPolicyDocumentStatement[] {
    const connectConditions = [
      { test: "StringEquals", variable: "ec2:ResourceTag/aws:autoscaling:groupName", values: props.workerGroups.map((group) => group.name) },
      ...(props.workerUsername ? [{ test: "StringEquals", variable: "ec2:osuser", values: [props.workerUsername] }] : []),
    ];
    return [
      {
        sid: "ScaleOwnWorkerGroups",
        effect: "Allow",
        actions: ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
        resources: props.workerGroups.map((group) => group.arn),
      },
      {
        // Describe calls accept no resource-level scoping. The manager's boot also reads its own slot's group
        // through it, to wait for a predecessor that still drains (scripts/manager/cloud/aws.sh cloud_wait_for_slot).
        sid: "DescribeWorkerGroups",
        effect: "Allow",
        actions: ["autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances", "ec2:DescribeInstances"],
        resources: ["*"],
      },
      {
        // The plugin pushes a short-lived SSH key to a worker before connecting (EC2 Instance Connect).
        sid: "ConnectToOwnWorkers",
        effect: "Allow",
        actions: ["ec2-instance-connect:SendSSHPublicKey"],
        resources: [instancesArn(at)],
        condition: connectConditions,
      },
    ];
  }

  private tokenStatements(at: RegionalArnParts, props: FleetingIamProps): DataAwsIamPolicyDocumentStatement[] {
    if (props.tokenParameterName === undefined) {
      Annotations.of(this).addWarning(
        `${props.roleName}: no secret store, so the managers get no secret access; place the runner token in ` +
          "/etc/gitlab-runner/runner-token (mode 0600) on each manager, the startup script waits for it.",
      );
      return [];
    }
    const parameterArn = ssmParameterArn(at, props.tokenParameterName);
    return [
      { sid: "ReadRunnerToken", effect: "Allow", actions: ["ssm:GetParameter"], resources: [parameterArn] },
      props.tokenParameterKmsKeyArn
        ? { sid: "DecryptRunnerToken", effect: "Allow", actions: ["kms:Decrypt"], resources: [props.tokenParameterKmsKeyArn] }
        : {
            // The AWS-managed aws/ssm key has no ARN known before it is first used, so the grant names any key of
            // the account but only through SSM in this region, and only for this parameter (SSM puts the
            // parameter's ARN in the encryption context of every SecureString it decrypts).
            sid: "DecryptRunnerToken",
            effect: "Allow",
            actions: ["kms:Decrypt"],
            resources: [kmsKeysArn(at)],
            condition: [
              { test: "StringEquals", variable: "kms:ViaService", values: [`ssm.${props.region}.${dnsSuffixOf(props.region)}`] },
              { test: "StringEquals", variable: "kms:EncryptionContext:PARAMETER_ARN", values: [parameterArn] },
            ],
          },
    ];
  }
}

/**
 * Completing the drain hook. Named by group name (the ARN's middle part is a UUID known only after
 * creation, and the groups are created after this policy); the role is the shard's, so the grant
 * covers the shard's manager groups and no other group.
 */
function drainStatement(at: RegionalArnParts, managerGroupNames: string[]): DataAwsIamPolicyDocumentStatement {
  return {
    sid: "CompleteOwnDrainHooks",
    effect: "Allow",
    actions: ["autoscaling:CompleteLifecycleAction", "autoscaling:RecordLifecycleActionHeartbeat"],
    resources: managerGroupNames.map((name) => autoscalingGroupArnByName(at, name)),
  };
}

/** Reporting a manager Unhealthy so its group replaces it; only the shard's manager groups, never the workers'. */
function healthStatement(at: RegionalArnParts, managerGroupNames: string[]): DataAwsIamPolicyDocumentStatement {
  return {
    sid: "ReportOwnManagerHealth",
    effect: "Allow",
    actions: ["autoscaling:SetInstanceHealth"],
    resources: managerGroupNames.map((name) => autoscalingGroupArnByName(at, name)),
  };
}

/**
 * A failed boot's BootFailures point and the manager's ManagerHeartbeat (scripts/manager/cloud/aws.sh). PutMetricData has no resource-level
 * permissions; the `cloudwatch:namespace` condition key keeps it to the shard's own namespace (CloudWatch
 * user guide, "Using condition keys to limit access to CloudWatch namespaces").
 */
function bootMetricStatement(namespace: string): DataAwsIamPolicyDocumentStatement {
  return {
    sid: "RecordOwnBootFailures",
    effect: "Allow",
    actions: ["cloudwatch:PutMetricData"],
    resources: ["*"],
    condition: [{ test: "StringEquals", variable: "cloudwatch:namespace", values: [namespace] }],
  };
}

/** gitlab-runner's S3 cache reads, writes and expires objects; it needs no bucket-level rights. */
/**
 * Objects of the cache bucket, and ListBucket on the bucket itself: without ListBucket, S3 answers a GetObject or
 * HeadObject of a missing key with 403 AccessDenied instead of 404 NoSuchKey (GetObject API reference,
 * "Permissions": docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html), so every cache miss is logged by
 * gitlab-runner as an access error instead of a miss.
 */
function cacheStatements(bucketArn: string): DataAwsIamPolicyDocumentStatement[] {
  return [
    {
      sid: "UseCacheBucket",
      effect: "Allow",
      actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
      resources: [`${bucketArn}/*`],
    },
    {
      sid: "TellCacheMissesFromDenials",
      effect: "Allow",
      actions: ["s3:ListBucket"],
      resources: [bucketArn],
    },
  ];
}

/** The CloudWatch agent writes into the existing log group (Terraform creates it and owns its retention). */
function logStatement(at: RegionalArnParts, logGroupName: string): DataAwsIamPolicyDocumentStatement {
  return {
    sid: "ShipRunnerLogs",
    effect: "Allow",
    actions: ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
    resources: [logGroupStreamsArn(at, logGroupName)],
  };
}

/**
 * The minimal Session Manager permissions, written out instead of attaching AmazonSSMManagedInstanceCore:
 * that managed policy also allows ssm:GetParameter(s) on every parameter, and the aws/ssm key lets any
 * principal of the account decrypt through SSM, so it would let every manager read every shard's token.
 */
function sessionManagerStatements(at: RegionalArnParts): DataAwsIamPolicyDocumentStatement[] {
  return [
    {
      sid: "RegisterWithSessionManager",
      effect: "Allow",
      actions: ["ssm:UpdateInstanceInformation"],
      resources: [instancesArn(at)],
    },
    {
      // The message channels of Session Manager accept no resource-level scoping.
      sid: "SessionManagerChannels",
      effect: "Allow",
      actions: [
        "ssmmessages:CreateControlChannel",
        "ssmmessages:CreateDataChannel",
        "ssmmessages:OpenControlChannel",
        "ssmmessages:OpenDataChannel",
      ],
      resources: ["*"],
    },
  ];
}
