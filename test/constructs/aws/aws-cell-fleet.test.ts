import { AutoscalingPolicy } from "@cdktf/provider-aws/lib/autoscaling-policy";
import { CloudwatchMetricAlarm } from "@cdktf/provider-aws/lib/cloudwatch-metric-alarm";
import { SnsTopicSubscription } from "@cdktf/provider-aws/lib/sns-topic-subscription";
import { Vpc } from "@cdktf/provider-aws/lib/vpc";
import { managerRoleName } from "../../../lib/model/aws-names";
import {
  DEFAULT_IMAGES,
  cacheBucketName,
  logGroupName,
  managerName,
  secretLocation,
  workerGroupName,
} from "../../../lib/model/names";
import type { RunnerModel, Shard } from "../../../lib/model/schema";
import { renderManagerStartupScript, renderWorkerStartupScript } from "../../../lib/render/manager-files";
import { exampleModel, modelWith } from "../../support/models";
import {
  awsFleetOf,
  awsTestStack,
  decodeUserData,
  expectNoTokenShapedStrings,
  policyActions,
  resourcesOf,
  statementWithSid,
  synthJson,
  warningsUnder,
  type Json,
} from "./support";

function synthFleet(model: RunnerModel) {
  const stack = awsTestStack();
  const fleet = awsFleetOf(stack, model);
  return { fleet, ...synthJson(stack) };
}

function asgNamed(json: Json, name: string): [string, Json] {
  const entry = Object.entries(resourcesOf(json, "aws_autoscaling_group")).find(([, group]) => group.name === name);
  if (!entry) throw new Error(`no Auto Scaling group ${name}`);
  return entry;
}

function launchTemplateOf(json: Json, asg: Json): Json {
  const reference: string = asg.launch_template?.id ?? asg.mixed_instances_policy.launch_template.launch_template_specification.launch_template_id;
  const id = reference.split(".")[1];
  return resourcesOf(json, "aws_launch_template")[id];
}

function secondShard(model: RunnerModel): Shard {
  return { ...structuredClone(model.shards[0]), name: "ondemand", workers: { ...model.shards[0].workers, spot: false, alternative_machine_types: [] } };
}

describe("AwsCellFleet over models/cell-2.yaml", () => {
  const model = exampleModel("cell-2");
  const shard = model.shards[0];
  const slots = Array.from({ length: shard.managers.count }, (_, slot) => slot);
  const { fleet, text, json } = synthFleet(model);

  test("THEN each manager slot has its own single-instance group, running that slot's startup script", () => {
    for (const slot of slots) {
      const [, asg] = asgNamed(json, managerName(model, shard, slot));
      expect(asg).toMatchObject({ min_size: 1, max_size: 1, desired_capacity: 1 });
      // The first token read at boot must find the role's policy in place.
      // The role's policies and the config.toml parameters are in place before a manager's first boot reads them.
      expect(asg.depends_on).toEqual([
        expect.stringMatching(/^aws_iam_role_policy\.fleet_shard-spot-amd64_iam_policy/),
        expect.stringMatching(/^aws_iam_role_policy\.fleet_shard-spot-amd64_live-config_policy/),
        expect.stringMatching(/^aws_ssm_parameter\.fleet_shard-spot-amd64_live-config_Config0/),
        expect.stringMatching(/^aws_ssm_parameter\.fleet_shard-spot-amd64_live-config_Config1/),
      ]);
      const template = launchTemplateOf(json, asg);
      expect(decodeUserData(template.user_data)).toBe(renderManagerStartupScript(model, shard, slot));
      expect(template).toMatchObject({ instance_type: shard.managers.machine_type, image_id: DEFAULT_IMAGES.aws });
    }
  });

  test("THEN there is one worker group per manager slot, with distinct names", () => {
    const workerNames = slots.map((slot) => workerGroupName(model, shard, slot));
    expect(new Set(workerNames).size).toBe(shard.managers.count);
    for (const name of workerNames) {
      const [, asg] = asgNamed(json, name);
      expect(asg).toMatchObject({ min_size: 0, max_size: shard.workers.max_instances, protect_from_scale_in: true });
      expect(decodeUserData(launchTemplateOf(json, asg).user_data)).toBe(renderWorkerStartupScript(model, shard));
    }
    expect(Object.keys(resourcesOf(json, "aws_autoscaling_group"))).toHaveLength(shard.managers.count * 2);
    expect(fleet.shards[0].workers.groupNames).toEqual(workerNames);
  });

  test("THEN spot workers come through a mixed instances policy, and nothing sets a scaling policy", () => {
    expect(shard.workers.spot).toBe(true);
    for (const slot of slots) {
      const [, asg] = asgNamed(json, workerGroupName(model, shard, slot));
      expect(asg.mixed_instances_policy.instances_distribution.on_demand_percentage_above_base_capacity).toBe(0);
      // machine_type first, then the model's alternative types: more spot capacity pools.
      expect(asg.mixed_instances_policy.launch_template.override).toEqual(
        ["m7i.large", "m6i.large", "m7a.large", "m6a.large", "m5.large"].map((instance_type) => ({ instance_type })),
      );
      expect(asg.mixed_instances_policy.instances_distribution.spot_allocation_strategy).toBe("price-capacity-optimized");
    }
    expect(text).not.toHaveResource(AutoscalingPolicy);
  });

  test("THEN every launch template requires IMDSv2, encrypts its root volume and asks for no public IP", () => {
    const templates = Object.values(resourcesOf(json, "aws_launch_template"));
    expect(templates).toHaveLength(shard.managers.count * 2);
    for (const template of templates) {
      expect(template.metadata_options.http_tokens).toBe("required");
      expect(template.block_device_mappings[0].ebs.encrypted).toBe("true");
      expect(template.network_interfaces[0].associate_public_ip_address).toBe("false");
    }
  });

  test("THEN the managers may scale exactly this shard's worker groups", () => {
    const workerArns = slots.map((slot) => `\${aws_autoscaling_group.${asgNamed(json, workerGroupName(model, shard, slot))[0]}.arn}`);
    expect(statementWithSid(json, "ScaleOwnWorkerGroups")!.resources).toEqual(workerArns);
    expect(statementWithSid(json, "ConnectToOwnWorkers")!.condition).toContainEqual({
      test: "StringEquals",
      variable: "ec2:ResourceTag/aws:autoscaling:groupName",
      values: slots.map((slot) => workerGroupName(model, shard, slot)),
    });
  });

  test("THEN the managers read exactly the shard's token parameter, in the model's account", () => {
    const cloud = model.cloud as Extract<RunnerModel["cloud"], { provider: "aws" }>;
    const name = secretLocation(model, shard).awsParameterName;
    expect(statementWithSid(json, "ReadRunnerToken")!.resources).toEqual([
      `arn:aws:ssm:${cloud.region}:${cloud.account_id}:parameter${name}`,
    ]);
    for (const action of policyActions(json)) expect(action).not.toContain("*");
  });

  test("THEN the shard's resources live under shard-<name> and use the shared names", () => {
    const shardFleet = fleet.shards[0];
    expect(shardFleet.name).toBe(shard.name);
    expect(shardFleet.scope.node.id).toBe(`shard-${shard.name}`);
    expect(shardFleet.iam.roleName).toBe(managerRoleName(model, shard));
    expect(shardFleet.cache?.bucketName).toBe(cacheBucketName(model, shard));
    expect(shardFleet.cache?.expirationDays).toBe(shard.cache.expiry_days);
    expect(statementWithSid(json, "ShipRunnerLogs")!.resources[0]).toContain(`log-group:${logGroupName(model, shard)}:*`);
  });

  test("THEN the alarms use the model's thresholds", () => {
    const { thresholds } = model.monitoring;
    expect(text).toHaveResourceWithProperties(CloudwatchMetricAlarm, {
      alarm_name: `${model.cell.id}-${shard.name}-jobs-failing`,
      threshold: thresholds.job_failure_ratio,
    });
    for (const slot of slots) {
      expect(text).toHaveResourceWithProperties(CloudwatchMetricAlarm, {
        alarm_name: `${workerGroupName(model, shard, slot)}-near-max`,
        threshold: fleet.monitoring!.capacityAlarmThreshold(shard.workers.max_instances),
      });
      expect(text).toHaveResourceWithProperties(CloudwatchMetricAlarm, {
        alarm_name: `${managerName(model, shard, slot)}-unhealthy`,
        evaluation_periods: 5,
      });
    }
    expect(fleet.monitoring!.workersNearMax).toBe(thresholds.workers_near_max);
  });

  test("THEN the model's email addresses subscribe to the alarms", () => {
    for (const email of model.monitoring.notifications.emails) {
      expect(text).toHaveResourceWithProperties(SnsTopicSubscription, { protocol: "email", endpoint: email });
    }
  });

  test("THEN no security group rule is open to 0.0.0.0/0 and workers take SSH from the managers only", () => {
    const ingress = Object.values(resourcesOf(json, "aws_vpc_security_group_ingress_rule"));
    for (const rule of ingress) expect(rule.cidr_ipv4).not.toBe("0.0.0.0/0");
    expect(ingress.filter((rule) => rule.from_port === 22)).toEqual([
      expect.objectContaining({ referenced_security_group_id: expect.stringContaining("manager-security-group") }),
    ]);
  });

  test("THEN the outputs are named after their resources", () => {
    expect(Object.keys(json.output).sort()).toEqual(
      [
        "alarm_topic_arn",
        "cache_bucket_names",
        "manager_autoscaling_group_arns",
        "manager_autoscaling_group_names",
        "manager_role_arns",
        "private_subnet_ids",
        "vpc_id",
        "worker_autoscaling_group_arns",
        "worker_autoscaling_group_names",
      ].sort(),
    );
    expect(json.output.worker_autoscaling_group_names.value).toEqual({
      [shard.name]: slots.map((slot) => workerGroupName(model, shard, slot)),
    });
    expect(json.output.cache_bucket_names.value).toEqual({ [shard.name]: cacheBucketName(model, shard) });
  });

  test("THEN the synthesized JSON has no token-shaped strings and no warnings were raised", () => {
    expectNoTokenShapedStrings(text);
    expect(warningsUnder(fleet)).toEqual([]);
  });
});

describe("AwsCellFleet variants", () => {
  test("GIVEN two shards THEN each shard's managers scale only their own worker groups", () => {
    const model = modelWith("cell-2", (m) => m.shards.push(secondShard(m)));
    const { json, fleet } = synthFleet(model);
    const documents = Object.entries(json.data.aws_iam_policy_document) as [string, Json][];
    expect(documents).toHaveLength(2);
    model.shards.forEach((shard, index) => {
      const [, document] = documents.find(([id]) => id.includes(`shard-${shard.name}_`))!;
      const scale = document.statement.find((statement: Json) => statement.sid === "ScaleOwnWorkerGroups");
      const own = fleet.shards[index].workers.groups.map((group) => `\${aws_autoscaling_group.${asgNamed(json, group.name)[0]}.arn}`);
      expect(scale.resources).toEqual(own);
    });
    const onDemand = asgNamed(json, workerGroupName(model, model.shards[1], 0))[1];
    expect(onDemand.mixed_instances_policy).toBeUndefined();
    expect(onDemand.launch_template).toBeDefined();
  });

  test("GIVEN no worker image THEN workers boot the ECS-optimized Amazon Linux 2023 AMI (Docker included) of their architecture, root volume on /dev/xvda", () => {
    const arm = modelWith("cell-2", (m) => {
      m.shards[0].workers.machine_type = "m7g.large";
      m.shards[0].managers.machine_type = "t4g.medium";
    });
    for (const [model, parameter] of [
      [exampleModel("cell-2"), "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id"],
      [arm, "/aws/service/ecs/optimized-ami/amazon-linux-2023/arm64/recommended/image_id"],
    ] as const) {
      const { json } = synthFleet(model);
      const template = launchTemplateOf(json, asgNamed(json, workerGroupName(model, model.shards[0], 0))[1]);
      expect(template.image_id).toBe(`resolve:ssm:${parameter}`);
      expect(template.block_device_mappings).toEqual([expect.objectContaining({ device_name: "/dev/xvda" })]);
      // The managers stay on Ubuntu (/dev/sda1).
      const manager = launchTemplateOf(json, asgNamed(json, managerName(model, model.shards[0], 0))[1]);
      expect(manager.block_device_mappings).toEqual([expect.objectContaining({ device_name: "/dev/sda1" })]);
    }
  });

  test("GIVEN model images THEN managers and workers use them", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].managers.image = "ami-0aaaaaaaaaaaaaaaa";
      m.shards[0].workers.image = "ami-0bbbbbbbbbbbbbbbb";
    });
    const { json } = synthFleet(model);
    const shard = model.shards[0];
    expect(launchTemplateOf(json, asgNamed(json, managerName(model, shard, 0))[1]).image_id).toBe("ami-0aaaaaaaaaaaaaaaa");
    expect(launchTemplateOf(json, asgNamed(json, workerGroupName(model, shard, 0))[1]).image_id).toBe("ami-0bbbbbbbbbbbbbbbb");
    expect(launchTemplateOf(json, asgNamed(json, workerGroupName(model, shard, 0))[1]).block_device_mappings[0].device_name).toBe("/dev/sda1");
  });

  test("GIVEN the local secret store THEN no secret access is granted and a warning is raised", () => {
    const model = modelWith("cell-2", (m) => {
      m.secrets.store = "local";
    });
    const { json, fleet } = synthFleet(model);
    expect(policyActions(json)).not.toContain("ssm:GetParameter");
    expect(warningsUnder(fleet)).toEqual([expect.stringContaining("no secret store")]);
  });

  test("GIVEN monitoring disabled THEN there are no alarms, no log group and no log permissions", () => {
    const model = modelWith("cell-2", (m) => {
      m.monitoring.enabled = false;
    });
    const { json, fleet } = synthFleet(model);
    expect(fleet.monitoring).toBeUndefined();
    expect(resourcesOf(json, "aws_cloudwatch_metric_alarm")).toEqual({});
    expect(resourcesOf(json, "aws_cloudwatch_log_group")).toEqual({});
    expect(policyActions(json).filter((action) => action.startsWith("logs:"))).toEqual([]);
    expect(json.output.alarm_topic_arn).toBeUndefined();
  });

  test("GIVEN the cache disabled THEN there is no bucket and no S3 permission", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].cache.enabled = false;
    });
    const { json } = synthFleet(model);
    expect(resourcesOf(json, "aws_s3_bucket")).toEqual({});
    expect(policyActions(json).filter((action) => action.startsWith("s3:"))).toEqual([]);
  });

  test("GIVEN public IPs for managers THEN managers sit in the public subnets with a public IP, workers stay private", () => {
    const model = modelWith("cell-2", (m) => {
      m.network.public_ips = true;
    });
    const { json } = synthFleet(model);
    const shard = model.shards[0];
    const manager = asgNamed(json, managerName(model, shard, 0))[1];
    const worker = asgNamed(json, workerGroupName(model, shard, 0))[1];
    expect(manager.vpc_zone_identifier.every((subnet: string) => subnet.includes("public-subnet"))).toBe(true);
    expect(launchTemplateOf(json, manager).network_interfaces[0].associate_public_ip_address).toBe("true");
    expect(worker.vpc_zone_identifier.every((subnet: string) => subnet.includes("private-subnet"))).toBe(true);
    expect(launchTemplateOf(json, worker).network_interfaces[0].associate_public_ip_address).toBe("false");
  });

  test("GIVEN an existing network THEN no VPC is created and its subnets hold managers and workers", () => {
    const subnets = ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"];
    const model = modelWith("cell-2", (m) => {
      m.network.cidr = undefined;
      m.network.existing = { network: "vpc-0123456789abcdef0", subnets };
    });
    const { json, text } = synthFleet(model);
    expect(text).not.toHaveResource(Vpc);
    for (const asg of Object.values(resourcesOf(json, "aws_autoscaling_group"))) expect(asg.vpc_zone_identifier).toEqual(subnets);
    expectNoTokenShapedStrings(text);
  });

  test("GIVEN public IPs with an existing network THEN the given subnets are used and one warning says they need an internet route", () => {
    const subnets = ["subnet-0123456789abcdef0"];
    const model = modelWith("cell-2", (m) => {
      m.network.cidr = undefined;
      m.network.existing = { network: "vpc-0123456789abcdef0", subnets };
      m.network.public_ips = true;
    });
    const { fleet, json } = synthFleet(model);
    for (const name of fleet.shards.flatMap((shardFleet) => shardFleet.managers.groupNames)) {
      expect(asgNamed(json, name)[1].vpc_zone_identifier).toEqual(subnets);
    }
    expect(warningsUnder(fleet)).toEqual([expect.stringContaining("internet gateway")]);
  });

  test("fails when two shards share a name: the name keys the outputs and the shard's construct scope", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards.push(structuredClone(m.shards[0]));
    });
    expect(() => synthFleet(model)).toThrow(/test\/fleet: shards\[\]\.name is .*"spot-amd64" appears more than once/);
  });

  test("fails when max_instances is 0", () => {
    const model = modelWith("cell-2", (m) => {
      m.shards[0].workers.max_instances = 0;
    });
    expect(() => synthFleet(model)).toThrow("fleet/shard-spot-amd64/workers-0: maxInstances is 0; expected an integer from 1 to 1000.");
  });

  test("fails when a monitoring CIDR is 0.0.0.0/0, even with an existing network", () => {
    const model = modelWith("cell-2", (m) => {
      m.network.cidr = undefined;
      m.network.existing = { network: "vpc-0123456789abcdef0", subnets: ["subnet-0123456789abcdef0"] };
      m.network.monitoring_cidrs = ["0.0.0.0/0"];
    });
    expect(() => synthFleet(model)).toThrow(/fleet\/network: monitoringCidrs\[0\] is "0.0.0.0\/0"/);
  });

  test("fails when a notification channel is not an SNS topic ARN", () => {
    const model = modelWith("cell-2", (m) => {
      m.monitoring.notifications.channels = ["projects/acme/notificationChannels/42"];
    });
    expect(() => synthFleet(model)).toThrow(/fleet\/monitoring: topicArns\[0\] is "projects\/acme\/notificationChannels\/42"/);
  });
});

describe("AwsCellFleet NAT alarms", () => {
  const natAlarms = (json: Json) =>
    Object.values(resourcesOf(json, "aws_cloudwatch_metric_alarm"))
      .filter((alarm) => /-nat-/.test(alarm.alarm_name))
      .map((alarm) => ({ name: alarm.alarm_name as string, gateway: (alarm.dimensions?.NatGatewayId ?? alarm.metric_query.find((query: Json) => query.metric).metric.dimensions.NatGatewayId) as string }));
  const gatewayReference = (json: Json, zone: string) => {
    const entry = Object.entries(resourcesOf(json, "aws_nat_gateway")).find(([, gateway]) => gateway.tags.Name.endsWith(`nat-${zone}`));
    if (!entry) throw new Error(`no NAT gateway in ${zone}`);
    return `\${aws_nat_gateway.${entry[0]}.id}`;
  };

  it("alarms on the one NAT gateway of the AWS example (nat: true), by its id", () => {
    const model = exampleModel("cell-2");
    if (model.cloud.provider !== "aws") throw new Error("cell-2 is the AWS example");
    const zone = model.cloud.availability_zones[0];
    const { json } = synthFleet(modelWith("cell-2", (draft) => void (draft.network.nat = true)));
    expect(natAlarms(json)).toEqual(
      expect.arrayContaining([
        { name: `${model.cell.id}-nat-${zone}-port-allocation-errors`, gateway: gatewayReference(json, zone) },
        { name: `${model.cell.id}-nat-${zone}-packets-dropped`, gateway: gatewayReference(json, zone) },
      ]),
    );
    expect(natAlarms(json)).toHaveLength(2);
  });

  it("alarms on every zone's NAT gateway with nat: per-zone, and on none without NAT", () => {
    const perZone = modelWith("cell-2", (draft) => void (draft.network.nat = "per-zone"));
    if (perZone.cloud.provider !== "aws") throw new Error("cell-2 is the AWS example");
    const { json } = synthFleet(perZone);
    expect(natAlarms(json).map((alarm) => alarm.gateway).sort()).toEqual(perZone.cloud.availability_zones.flatMap((zone) => [gatewayReference(json, zone), gatewayReference(json, zone)]).sort());
    expect(natAlarms(synthFleet(modelWith("cell-2", (draft) => void (draft.network.nat = false))).json)).toEqual([]);
  });
});
