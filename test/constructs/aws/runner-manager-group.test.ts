import { AutoscalingGroup } from "@cdktf/provider-aws/lib/autoscaling-group";
import { LaunchTemplate } from "@cdktf/provider-aws/lib/launch-template";
import { RunnerManagerGroup, RunnerManagerSlot, type RunnerManagerSlotProps } from "../../../constructs/aws/runner-manager-group";
import { SLOT_METADATA_KEY } from "../../../lib/contract/fleet-contract";
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { awsTestStack, decodeUserData, expectNoTokenShapedStrings, resourcesOf, synthJson } from "./support";

const SUBNETS = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"];
const SCRIPT = '#!/usr/bin/env bash\nset -euo pipefail\necho "slot ${SLOT} of ${HOME}"\n';

function synthManager(props: Partial<RunnerManagerSlotProps> = {}) {
  const stack = awsTestStack();
  const group = new RunnerManagerSlot(stack, "manager-1", {
    name: "cell-9-main-mgr-1",
    slot: 1,
    imageId: "ami-0123456789abcdef0",
    instanceType: "t3.medium",
    subnetIds: SUBNETS,
    securityGroupIds: ["sg-0123456789abcdef0"],
    instanceProfileArn: "arn:aws:iam::123456789012:instance-profile/cell-9-main-runner-manager",
    userData: SCRIPT,
    tags: { "gitlab-cell": "cell-9" },
    ...props,
  });
  const result = synthJson(stack);
  const [template] = Object.values(resourcesOf(result.json, "aws_launch_template"));
  const [asg] = Object.values(resourcesOf(result.json, "aws_autoscaling_group"));
  return { group, template, asg, ...result };
}

describe("RunnerManagerSlot", () => {
  describe("launch template", () => {
    test("THEN IMDSv2 is required with a hop limit of 1, and instance tags are readable (the slot tag)", () => {
      const { text } = synthManager();
      expect(text).toHaveResourceWithProperties(LaunchTemplate, {
        metadata_options: {
          http_endpoint: "enabled",
          http_tokens: "required",
          http_put_response_hop_limit: 1,
          instance_metadata_tags: "enabled",
        },
      });
    });

    test("THEN the root volume is encrypted gp3 of the default size", () => {
      const { template, group } = synthManager();
      expect(group.rootVolumeSizeGib).toBe(50);
      expect(template.block_device_mappings).toEqual([
        { device_name: "/dev/sda1", ebs: { encrypted: "true", volume_type: "gp3", volume_size: 50, delete_on_termination: "true" } },
      ]);
    });

    test("THEN the instance has no public IP and the manager security group, and the instance profile", () => {
      const { template } = synthManager();
      expect(template.network_interfaces).toEqual([
        expect.objectContaining({ device_index: 0, associate_public_ip_address: "false", security_groups: ["sg-0123456789abcdef0"] }),
      ]);
      expect(template.iam_instance_profile).toEqual({ arn: "arn:aws:iam::123456789012:instance-profile/cell-9-main-runner-manager" });
    });

    test("WHEN associatePublicIpAddress THEN the interface asks for a public IP", () => {
      const { template } = synthManager({ associatePublicIpAddress: true });
      expect(template.network_interfaces[0].associate_public_ip_address).toBe("true");
    });

    test("THEN user data is the slot's script, base64-encoded byte for byte (no Terraform interpolation of ${...})", () => {
      const { template } = synthManager();
      expect(decodeUserData(template.user_data)).toBe(SCRIPT);
    });

    test("THEN instances, volumes and interfaces carry the slot tag", () => {
      const { template, asg } = synthManager();
      for (const spec of template.tag_specifications) expect(spec.tags[SLOT_METADATA_KEY]).toBe("1");
      expect(asg.tag).toContainEqual({ key: SLOT_METADATA_KEY, value: "1", propagate_at_launch: true });
    });

    test("WHEN the hop limit is 2 THEN it is used", () => {
      const { template } = synthManager({ httpPutResponseHopLimit: 2 });
      expect(template.metadata_options.http_put_response_hop_limit).toBe(2);
    });
  });

  describe("auto scaling group", () => {
    test("THEN it keeps exactly one instance over the given subnets, with EC2 health checks", () => {
      const { text } = synthManager();
      expect(text).toHaveResourceWithProperties(AutoscalingGroup, {
        name: "cell-9-main-mgr-1",
        min_size: 1,
        max_size: 1,
        desired_capacity: 1,
        vpc_zone_identifier: SUBNETS,
        health_check_type: "EC2",
      });
    });

    test("THEN a template change replaces the instance by a rolling refresh that never runs two managers of one slot", () => {
      const { asg, json } = synthManager();
      const templateId = Object.keys(resourcesOf(json, "aws_launch_template"))[0];
      expect(asg.launch_template).toEqual({
        id: `\${aws_launch_template.${templateId}.id}`,
        version: `\${aws_launch_template.${templateId}.latest_version}`,
      });
      expect(asg.instance_refresh).toEqual({
        strategy: "Rolling",
        preferences: expect.objectContaining({ min_healthy_percentage: 0, max_healthy_percentage: 100 }),
      });
    });

    test("THEN a health replacement terminates the old manager before it launches the new one (never two on one worker group)", () => {
      const { asg } = synthManager();
      expect(asg.instance_maintenance_policy).toEqual({ min_healthy_percentage: 0, max_healthy_percentage: 100 });
    });

    test("THEN group metrics are collected for the alarms, and every tag propagates to the instance", () => {
      const { asg } = synthManager();
      expect(asg.enabled_metrics).toContain("GroupInServiceInstances");
      expect(asg.tag).toContainEqual({ key: "Name", value: "cell-9-main-mgr-1", propagate_at_launch: true });
      expect(asg.tag).toContainEqual({ key: "gitlab-cell", value: "cell-9", propagate_at_launch: true });
      expect(asg.tag.every((tag: { propagate_at_launch: boolean }) => tag.propagate_at_launch)).toBe(true);
    });

    test("THEN the synthesized JSON has no token-shaped strings", () => {
      expectNoTokenShapedStrings(synthManager().text);
    });
  });

  describe("invariants", () => {
    test("fails when the image is neither an AMI id nor an SSM parameter", () => {
      expect(() => synthManager({ imageId: "ubuntu-24.04" })).toThrow(
        'manager-1: imageId is "ubuntu-24.04"; expected an AMI id (ami-...) or resolve:ssm:<parameter>.',
      );
    });

    test("fails when the instance type is a Google machine type", () => {
      expect(() => synthManager({ instanceType: "e2-standard-2" })).toThrow(/instanceType is "e2-standard-2"; expected an EC2 instance type/);
    });

    test("fails when there is no subnet", () => {
      expect(() => synthManager({ subnetIds: [] })).toThrow("manager-1: subnetIds is []; expected at least one subnet id.");
    });

    test("sends user data over EC2's 16 KB gzip-compressed, which cloud-init uncompresses", () => {
      const script = `#!/bin/bash\n${"echo compressible\n".repeat(2000)}`;
      const { template } = synthManager({ userData: script });
      const bytes = Buffer.from(template.user_data, "base64");
      expect(bytes.length).toBeLessThanOrEqual(16 * 1024);
      expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      expect(gunzipSync(bytes).toString("utf8")).toBe(script);
    });

    test("fails when the user data is over EC2's 16 KB even compressed", () => {
      const incompressible = randomBytes(24 * 1024).toString("base64");
      expect(() => synthManager({ userData: incompressible })).toThrow(/userData is "32768 bytes, \d+ gzip-compressed"; expected at most 16384 bytes/);
    });

    test("fails when the hop limit is 3", () => {
      expect(() => synthManager({ httpPutResponseHopLimit: 3 })).toThrow(/httpPutResponseHopLimit is 3; expected an integer from 1 to 2/);
    });

    test("fails when a tag key cannot be read through instance metadata", () => {
      expect(() => synthManager({ tags: { "team/owner": "x" } })).toThrow(/tags key is "team\/owner"; expected a tag key readable through instance metadata/);
    });
  });
});

describe("RunnerManagerGroup", () => {
  const shared = {
    imageId: "ami-0123456789abcdef0",
    instanceType: "t3.medium",
    subnetIds: SUBNETS,
    securityGroupIds: ["sg-0123456789abcdef0"],
    instanceProfileArn: "arn:aws:iam::123456789012:instance-profile/cell-9-main-runner-manager",
  };
  const slots = [
    { name: "cell-9-main-mgr-0", userData: "#!/bin/bash\necho 0\n" },
    { name: "cell-9-main-mgr-1", userData: "#!/bin/bash\necho 1\n" },
  ];

  test("THEN slot i is `manager-<i>` of the scope it is given, running its own script and tagged with its number", () => {
    const stack = awsTestStack();
    const group = new RunnerManagerGroup(stack, { ...shared, slots });
    expect(group.groupNames).toEqual(slots.map((slot) => slot.name));
    expect(group.slots.map((slot) => slot.node.path)).toEqual(["test/manager-0", "test/manager-1"]);
    const { json } = synthJson(stack);
    const templates = Object.values(resourcesOf(json, "aws_launch_template"));
    slots.forEach((slot, index) => {
      const template = templates.find((candidate) => candidate.name === slot.name)!;
      expect(decodeUserData(template.user_data)).toBe(slot.userData);
      expect(template.tags[SLOT_METADATA_KEY]).toBe(String(index));
    });
  });

  test("fails when there is no slot", () => {
    expect(() => new RunnerManagerGroup(awsTestStack(), { ...shared, slots: [] })).toThrow("test: managers.slots is []; expected at least one manager slot.");
  });

  test("fails when two slots share a name: they would be one Auto Scaling group", () => {
    expect(() => new RunnerManagerGroup(awsTestStack(), { ...shared, slots: [slots[0], slots[0]] })).toThrow(
      /test: managers\.slots\[\]\.name is .*"cell-9-main-mgr-0" appears more than once/,
    );
  });
});
