import { AutoscalingGroup } from "@cdktf/provider-aws/lib/autoscaling-group";
import { AutoscalingPolicy } from "@cdktf/provider-aws/lib/autoscaling-policy";
import { LaunchTemplate } from "@cdktf/provider-aws/lib/launch-template";
import { WorkerAutoscalingGroup, WorkerAutoscalingGroups, type WorkerAutoscalingGroupProps } from "../../../constructs/aws/worker-autoscaling-group";
import { awsTestStack, decodeUserData, expectNoTokenShapedStrings, resourcesOf, synthJson } from "./support";

const SUBNETS = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1", "subnet-0123456789abcdef2"];
const SCRIPT = "#!/usr/bin/env bash\nusermod -aG docker ubuntu\n";

function synthWorkers(props: Partial<WorkerAutoscalingGroupProps> = {}) {
  const stack = awsTestStack();
  const group = new WorkerAutoscalingGroup(stack, "workers-0", {
    name: "cell-9-main-wrk-0",
    slot: 0,
    imageId: "resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/amd64/hvm/ebs-gp3/ami-id",
    instanceType: "m7i.large",
    subnetIds: SUBNETS,
    securityGroupIds: ["sg-0123456789abcdef1"],
    userData: SCRIPT,
    maxInstances: 20,
    ...props,
  });
  const result = synthJson(stack);
  const [template] = Object.values(resourcesOf(result.json, "aws_launch_template"));
  const [asg] = Object.values(resourcesOf(result.json, "aws_autoscaling_group"));
  return { group, template, asg, ...result };
}

describe("WorkerAutoscalingGroup", () => {
  describe("launch template", () => {
    test("THEN IMDSv2 is required with a hop limit of 1 so job containers cannot reach the metadata service", () => {
      const { text } = synthWorkers();
      expect(text).toHaveResourceWithProperties(LaunchTemplate, {
        metadata_options: expect.objectContaining({ http_tokens: "required", http_put_response_hop_limit: 1 }),
      });
    });

    test("THEN the root volume is encrypted gp3, there is no public IP and no instance profile", () => {
      const { template } = synthWorkers({ rootVolumeSizeGib: 80 });
      expect(template.block_device_mappings[0].ebs).toMatchObject({ encrypted: "true", volume_type: "gp3", volume_size: 80 });
      expect(template.network_interfaces).toEqual([
        expect.objectContaining({ associate_public_ip_address: "false", security_groups: ["sg-0123456789abcdef1"] }),
      ]);
      expect(template.iam_instance_profile).toBeUndefined();
    });

    test("THEN user data is the worker script", () => {
      expect(decodeUserData(synthWorkers().template.user_data)).toBe(SCRIPT);
    });
  });

  describe("auto scaling group", () => {
    test("THEN gitlab-runner owns its size: 0 to max_instances, scale-in protection, desired capacity ignored, no scaling policy", () => {
      const { text, asg } = synthWorkers();
      expect(text).toHaveResourceWithProperties(AutoscalingGroup, {
        name: "cell-9-main-wrk-0",
        min_size: 0,
        max_size: 20,
        protect_from_scale_in: true,
        lifecycle: { ignore_changes: ["desired_capacity"] },
        vpc_zone_identifier: SUBNETS,
      });
      expect(text).not.toHaveResource(AutoscalingPolicy);
      expect(asg.desired_capacity).toBeUndefined();
    });

    test("THEN zone rebalancing is suspended and group metrics are collected", () => {
      const { asg } = synthWorkers();
      expect(asg.suspended_processes).toEqual(["AZRebalance"]);
      expect(asg.enabled_metrics).toEqual(expect.arrayContaining(["GroupInServiceInstances", "GroupDesiredCapacity"]));
    });

    test("GIVEN on-demand workers THEN the group uses the launch template directly, with no mixed instances policy", () => {
      const { asg, json, group } = synthWorkers();
      const templateId = Object.keys(resourcesOf(json, "aws_launch_template"))[0];
      expect(group.spot).toBe(false);
      expect(asg.mixed_instances_policy).toBeUndefined();
      expect(asg.launch_template).toEqual({
        id: `\${aws_launch_template.${templateId}.id}`,
        version: `\${aws_launch_template.${templateId}.latest_version}`,
      });
    });

    test("GIVEN spot workers THEN a mixed instances policy is all Spot, price-capacity-optimized, over the given types", () => {
      const { asg } = synthWorkers({ spot: true, additionalSpotInstanceTypes: ["m6i.large", "m7a.large"] });
      expect(asg.launch_template).toBeUndefined();
      expect(asg.mixed_instances_policy.instances_distribution).toEqual({
        on_demand_base_capacity: 0,
        on_demand_percentage_above_base_capacity: 0,
        spot_allocation_strategy: "price-capacity-optimized",
      });
      expect(asg.mixed_instances_policy.launch_template.override).toEqual([
        { instance_type: "m7i.large" },
        { instance_type: "m6i.large" },
        { instance_type: "m7a.large" },
      ]);
    });

    test("THEN the synthesized JSON has no token-shaped strings", () => {
      expectNoTokenShapedStrings(synthWorkers({ spot: true }).text);
    });
  });

  describe("invariants", () => {
    test("fails when max_instances is 0", () => {
      expect(() => synthWorkers({ maxInstances: 0 })).toThrow("workers-0: maxInstances is 0; expected an integer from 1 to 1000.");
    });

    test("fails when additional instance types are given without spot", () => {
      expect(() => synthWorkers({ additionalSpotInstanceTypes: ["m6i.large"] })).toThrow(
        /additionalSpotInstanceTypes is \["m6i.large"\]; expected no additional instance types unless spot is true/,
      );
    });

    test("fails when an instance type is listed twice", () => {
      expect(() => synthWorkers({ spot: true, additionalSpotInstanceTypes: ["m7i.large"] })).toThrow(/appears more than once/);
    });

    test("fails when a subnet id is not a subnet id", () => {
      expect(() => synthWorkers({ subnetIds: ["private-a"] })).toThrow(/subnetIds\[0\] is "private-a"; expected a subnet id/);
    });
  });
});

describe("WorkerAutoscalingGroups", () => {
  const shared = {
    imageId: "ami-0123456789abcdef0",
    instanceType: "m7i.large",
    subnetIds: SUBNETS,
    securityGroupIds: ["sg-0123456789abcdef1"],
    userData: SCRIPT,
    maxInstances: 5,
  };
  const groups = [{ name: "cell-9-main-wrk-0" }, { name: "cell-9-main-wrk-1" }];

  test("THEN group i is `workers-<i>` of the scope it is given and belongs to manager slot i", () => {
    const stack = awsTestStack();
    const workers = new WorkerAutoscalingGroups(stack, { ...shared, groups });
    expect(workers.groupNames).toEqual(groups.map((group) => group.name));
    expect(workers.groups.map((group) => [group.node.path, group.slot])).toEqual([["test/workers-0", 0], ["test/workers-1", 1]]);
    const asgs = Object.values(resourcesOf(synthJson(stack).json, "aws_autoscaling_group"));
    expect(asgs.map((asg) => asg.name).sort()).toEqual(groups.map((group) => group.name));
  });

  test("fails when there is no group", () => {
    expect(() => new WorkerAutoscalingGroups(awsTestStack(), { ...shared, groups: [] })).toThrow("test: workers.groups is []; expected at least one worker group.");
  });

  test("fails when two slots share a group: two managers would fight over its instances", () => {
    expect(() => new WorkerAutoscalingGroups(awsTestStack(), { ...shared, groups: [groups[0], groups[0]] })).toThrow(
      /test: workers\.groups\[\]\.name is .*"cell-9-main-wrk-0" appears more than once/,
    );
  });
});
