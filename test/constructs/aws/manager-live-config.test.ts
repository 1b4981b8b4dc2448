/**
 * Each AWS manager slot's config.toml as the stack stores it (constructs/aws/manager-live-config.ts): a
 * String parameter whose value the plan shows, the Advanced tier only past the Standard tier's 4 KB, and a
 * policy that lets the shard's managers read their own parameters and nothing else.
 */
import { IamRole } from "@cdktf/provider-aws/lib/iam-role";
import { ManagerLiveConfig, STANDARD_PARAMETER_BYTES } from "../../../constructs/aws/manager-live-config";
import { awsTestStack, resourcesOf, synthJson } from "./support";

function synthesized(contents: string[]) {
  const stack = awsTestStack();
  const role = new IamRole(stack, "role", { name: "mgr", assumeRolePolicy: "{}" });
  new ManagerLiveConfig(stack, "live-config", {
    slots: contents.map((content, slot) => ({ parameterName: `/gitlab-runner/cell-9/spot/manager-${slot}/config.toml`, content })),
    role: role.id,
    region: "eu-west-1",
    accountId: "123456789012",
    tags: { "gitlab-cell": "cell-9" },
  });
  return synthJson(stack).json;
}

test("a String parameter per slot, the value in plain view, Standard up to 4 KB and Advanced past it", () => {
  const small = "# runner-fleet restart settings: abc\nconcurrent = 4\n";
  const large = `${small}${"# padding\n".repeat(STANDARD_PARAMETER_BYTES / 10)}`;
  const parameters = Object.values(resourcesOf(synthesized([small, large]), "aws_ssm_parameter"));
  expect(parameters.map((parameter) => [parameter.name, parameter.type, parameter.tier, parameter.insecure_value])).toEqual([
    ["/gitlab-runner/cell-9/spot/manager-0/config.toml", "String", "Standard", small],
    ["/gitlab-runner/cell-9/spot/manager-1/config.toml", "String", "Advanced", large],
  ]);
  expect(parameters.every((parameter) => parameter.value === undefined)).toBe(true);
});

test("the managers may read their own slots' parameters, by ARN, and nothing else", () => {
  const [policy] = Object.values(resourcesOf(synthesized(["a\n", "b\n"]), "aws_iam_role_policy"));
  expect(JSON.parse(policy.policy).Statement).toEqual([
    {
      Sid: "ReadManagerConfig",
      Effect: "Allow",
      Action: ["ssm:GetParameter"],
      Resource: [
        "arn:aws:ssm:eu-west-1:123456789012:parameter/gitlab-runner/cell-9/spot/manager-0/config.toml",
        "arn:aws:ssm:eu-west-1:123456789012:parameter/gitlab-runner/cell-9/spot/manager-1/config.toml",
      ],
    },
  ]);
});
