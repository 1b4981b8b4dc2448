import { DataAwsCallerIdentity } from "@cdktf/provider-aws/lib/data-aws-caller-identity";
import { IamInstanceProfile } from "@cdktf/provider-aws/lib/iam-instance-profile";
import { IamRolePolicyAttachment } from "@cdktf/provider-aws/lib/iam-role-policy-attachment";
import { FleetingIam, type FleetingIamProps } from "../../../constructs/aws/fleeting-iam";
import {
  awsTestStack,
  dataSourcesOf,
  expectNoTokenShapedStrings,
  policyActions,
  resourcesOf,
  statementWithSid,
  synthJson,
  warningsUnder,
  type Json,
} from "./support";

const WORKER_GROUPS = [
  { name: "cell-9-main-wrk-0", arn: "arn:aws:autoscaling:eu-west-1:123456789012:autoScalingGroup:0000:autoScalingGroupName/cell-9-main-wrk-0" },
  { name: "cell-9-main-wrk-1", arn: "arn:aws:autoscaling:eu-west-1:123456789012:autoScalingGroup:1111:autoScalingGroupName/cell-9-main-wrk-1" },
];
const PARAMETER_ARN = "arn:aws:ssm:eu-west-1:123456789012:parameter/gitlab-runner/cell-9/main/token";

function synthIam(props: Partial<FleetingIamProps> = {}) {
  const stack = awsTestStack();
  const iam = new FleetingIam(stack, "iam", {
    roleName: "cell-9-main-runner-manager",
    region: "eu-west-1",
    accountId: "123456789012",
    workerGroups: WORKER_GROUPS,
    workerUsername: "ubuntu",
    tokenParameterName: "/gitlab-runner/cell-9/main/token",
    cacheBucketArn: "arn:aws:s3:::123456789012-cell-9-main-cache",
    logGroupName: "/gitlab-runner/cell-9/main",
    ...props,
  });
  return { iam, ...synthJson(stack) };
}

function statementsWithAction(json: Json, action: string): Json[] {
  return Object.values(dataSourcesOf(json, "aws_iam_policy_document"))
    .flatMap((doc) => doc.statement)
    .filter((statement: Json) => statement.actions.includes(action));
}

describe("FleetingIam", () => {
  test("THEN EC2 assumes the role and an instance profile carries it", () => {
    const { json, text } = synthIam();
    const [role] = Object.values(resourcesOf(json, "aws_iam_role"));
    expect(JSON.parse(role.assume_role_policy)).toEqual({
      Version: "2012-10-17",
      Statement: [{ Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" }],
    });
    expect(text).toHaveResourceWithProperties(IamInstanceProfile, { name: "cell-9-main-runner-manager" });
  });

  test("THEN no action anywhere is a wildcard", () => {
    const actions = policyActions(synthIam().json);
    expect(actions.length).toBeGreaterThan(0);
    for (const action of actions) expect(action).not.toMatch(/\*/);
  });

  test("THEN SetDesiredCapacity and TerminateInstanceInAutoScalingGroup are scoped to the shard's worker groups", () => {
    const { json } = synthIam();
    for (const action of ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"]) {
      const statements = statementsWithAction(json, action);
      expect(statements).toHaveLength(1);
      expect(statements[0].resources).toEqual(WORKER_GROUPS.map((group) => group.arn));
    }
  });

  test("THEN only describe calls and Session Manager channels, which AWS cannot scope, get '*' resources", () => {
    const statements = Object.values(dataSourcesOf(synthIam().json, "aws_iam_policy_document")).flatMap((doc) => doc.statement);
    const unscoped = statements.filter((statement: Json) => statement.resources.includes("*")).flatMap((statement: Json) => statement.actions);
    expect(unscoped.sort()).toEqual(
      [
        "autoscaling:DescribeAutoScalingGroups",
        "autoscaling:DescribeAutoScalingInstances",
        "ec2:DescribeInstances",
        "ssmmessages:CreateControlChannel",
        "ssmmessages:CreateDataChannel",
        "ssmmessages:OpenControlChannel",
        "ssmmessages:OpenDataChannel",
      ].sort(),
    );
  });

  test("THEN SendSSHPublicKey works only on instances of the shard's worker groups, for the connector user", () => {
    const statement = statementWithSid(synthIam().json, "ConnectToOwnWorkers");
    expect(statement).toMatchObject({
      actions: ["ec2-instance-connect:SendSSHPublicKey"],
      resources: ["arn:aws:ec2:eu-west-1:123456789012:instance/*"],
    });
    expect(statement!.condition).toEqual(
      expect.arrayContaining([
        { test: "StringEquals", variable: "ec2:ResourceTag/aws:autoscaling:groupName", values: WORKER_GROUPS.map((group) => group.name) },
        { test: "StringEquals", variable: "ec2:osuser", values: ["ubuntu"] },
      ]),
    );
  });

  test("THEN ssm:GetParameter is allowed on exactly the shard's token parameter", () => {
    const { json } = synthIam();
    const statements = statementsWithAction(json, "ssm:GetParameter");
    expect(statements).toHaveLength(1);
    expect(statements[0].resources).toEqual([PARAMETER_ARN]);
    expect(policyActions(json).filter((action) => action.startsWith("ssm:Get"))).toEqual(["ssm:GetParameter"]);
  });

  test("GIVEN no key ARN THEN kms:Decrypt is allowed only through SSM in the region and only for the token parameter", () => {
    const statement = statementWithSid(synthIam().json, "DecryptRunnerToken");
    expect(statement).toMatchObject({ actions: ["kms:Decrypt"], resources: ["arn:aws:kms:eu-west-1:123456789012:key/*"] });
    expect(statement!.condition).toEqual(
      expect.arrayContaining([
        { test: "StringEquals", variable: "kms:ViaService", values: ["ssm.eu-west-1.amazonaws.com"] },
        { test: "StringEquals", variable: "kms:EncryptionContext:PARAMETER_ARN", values: [PARAMETER_ARN] },
      ]),
    );
  });

  test("GIVEN the key ARN THEN kms:Decrypt names that key", () => {
    const keyArn = "arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555";
    const statement = statementWithSid(synthIam({ tokenParameterKmsKeyArn: keyArn }).json, "DecryptRunnerToken");
    expect(statement).toMatchObject({ actions: ["kms:Decrypt"], resources: [keyArn] });
  });

  test("GIVEN no secret store THEN no secret access is granted and a warning says how the token gets there", () => {
    const { json, iam } = synthIam({ tokenParameterName: undefined });
    expect(policyActions(json)).not.toContain("ssm:GetParameter");
    expect(policyActions(json)).not.toContain("kms:Decrypt");
    expect(warningsUnder(iam)).toEqual([expect.stringContaining("/etc/gitlab-runner/runner-token")]);
  });

  test("THEN cache access is object reads and writes in the cache bucket only", () => {
    expect(statementWithSid(synthIam().json, "UseCacheBucket")).toEqual(
      expect.objectContaining({
        actions: ["s3:GetObject", "s3:PutObject", "s3:DeleteObject"],
        resources: ["arn:aws:s3:::123456789012-cell-9-main-cache/*"],
      }),
    );
  });

  test("THEN ListBucket is granted on the cache bucket itself, so a cache miss is a 404, not a 403", () => {
    // S3 answers a missing key with 403 unless the caller may list the bucket (API_GetObject.html, Permissions);
    // ListBucket is a bucket action: granted on ".../*" it would match nothing.
    const json = synthIam().json;
    expect(statementWithSid(json, "TellCacheMissesFromDenials")).toEqual(
      expect.objectContaining({ actions: ["s3:ListBucket"], resources: ["arn:aws:s3:::123456789012-cell-9-main-cache"] }),
    );
    expect(policyActions(json).filter((action) => action === "s3:ListBucket")).toHaveLength(1);
  });

  test("GIVEN no cache bucket THEN no ListBucket either", () => {
    expect(policyActions(synthIam({ cacheBucketArn: undefined }).json)).not.toContain("s3:ListBucket");
  });

  test("THEN logs go to the shard's log group only", () => {
    expect(statementWithSid(synthIam().json, "ShipRunnerLogs")).toEqual(
      expect.objectContaining({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
        resources: ["arn:aws:logs:eu-west-1:123456789012:log-group:/gitlab-runner/cell-9/main:*"],
      }),
    );
  });

  test("GIVEN no cache bucket and no log group THEN neither is granted", () => {
    const actions = policyActions(synthIam({ cacheBucketArn: undefined, logGroupName: undefined }).json);
    expect(actions.filter((action) => action.startsWith("s3:") || action.startsWith("logs:"))).toEqual([]);
  });

  test("THEN Session Manager works without the broad AmazonSSMManagedInstanceCore policy", () => {
    const { json, text } = synthIam();
    expect(text).not.toHaveResource(IamRolePolicyAttachment);
    expect(statementWithSid(json, "RegisterWithSessionManager")).toMatchObject({ actions: ["ssm:UpdateInstanceInformation"] });
    const withoutSessions = synthIam({ sessionManagerAccess: false }).json;
    expect(policyActions(withoutSessions).filter((action) => action.startsWith("ssmmessages:"))).toEqual([]);
  });

  test("GIVEN no account id THEN ARNs use the caller's account", () => {
    const { json, text } = synthIam({ accountId: undefined });
    expect(text).toHaveDataSource(DataAwsCallerIdentity);
    const callerId = Object.keys(dataSourcesOf(json, "aws_caller_identity"))[0];
    expect(statementWithSid(json, "ReadRunnerToken")!.resources).toEqual([
      `arn:aws:ssm:eu-west-1:\${data.aws_caller_identity.${callerId}.account_id}:parameter/gitlab-runner/cell-9/main/token`,
    ]);
    expectNoTokenShapedStrings(text);
  });

  test("THEN the synthesized JSON has no token-shaped strings", () => {
    expectNoTokenShapedStrings(synthIam().text);
  });

  describe("invariants", () => {
    test("fails when the role name is longer than IAM allows", () => {
      expect(() => synthIam({ roleName: "r".repeat(65) })).toThrow(/iam: roleName is "r{65}"; expected an IAM role name/);
    });

    test("fails when the account id is not 12 digits", () => {
      expect(() => synthIam({ accountId: "1234" })).toThrow('iam: accountId is "1234"; expected a 12-digit AWS account id.');
    });

    test("fails when there is no worker group", () => {
      expect(() => synthIam({ workerGroups: [] })).toThrow("iam: workerGroups is []; expected at least one worker group.");
    });

    test("fails when the token parameter name is not fully qualified", () => {
      expect(() => synthIam({ tokenParameterName: "token" })).toThrow(/tokenParameterName is "token"; expected a fully qualified SSM parameter name/);
    });
  });
});
