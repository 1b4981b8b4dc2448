/**
 * A cell's whole runner fleet on AWS, mapped from its runner model: one network, and per shard
 * (construct `shard-<name>`) the worker groups, the managers' IAM, the cache bucket and the manager
 * slots; monitoring for the cell when the model enables it.
 *
 * This is the only AWS construct that reads the model; the others take plain props. The stack
 * around it (provider, backend) belongs to the caller. Construct ids are a contract: renaming one
 * replaces real infrastructure.
 */
import { Annotations, TerraformOutput } from "cdktf";
import { Construct } from "constructs";
import { UserInputError } from "../../lib/errors";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import {
  shardImages,
  cacheBucketName,
  logGroupName,
  managerName,
  secretLocation,
  shardLabels,
  workerGroupName,
} from "../../lib/model/names";
import type { AwsCloudConfig, RunnerModel, Shard } from "../../lib/model/schema";
import { renderManagerStartupScript, renderWorkerStartupScript } from "../../lib/render/manager-files";
import { drainHookHeartbeatSeconds } from "../../lib/render/graceful-stop";
import { managerRoleName } from "../../lib/model/aws-names";
import { CacheBucket } from "./cache-bucket";
import { FleetMonitoring } from "./fleet-monitoring";
import { FleetingIam } from "./fleeting-iam";
import { Network } from "./network";
import { RunnerManagerGroup } from "./runner-manager-group";
import { WorkerAutoscalingGroup } from "./worker-autoscaling-group";

export { managerRoleName } from "../../lib/model/aws-names";

export interface AwsCellFleetProps {
  /** A loaded model whose `cloud.provider` is "aws". */
  readonly model: RunnerModel;
}

/** What one shard is made of. */
export interface AwsShardFleet {
  /** The `shard-<name>` construct holding the shard's resources. */
  readonly scope: Construct;
  readonly workerGroups: WorkerAutoscalingGroup[];
  readonly iam: FleetingIam;
  /** Absent when the shard's cache is disabled. */
  readonly cache?: CacheBucket;
  readonly managerGroups: RunnerManagerGroup[];
}

export class AwsCellFleet extends Construct {
  public readonly network: Network;
  /** The shards by name, in model order. */
  public readonly shards: Record<string, AwsShardFleet> = {};
  /** Absent when `monitoring.enabled` is false. */
  public readonly monitoring?: FleetMonitoring;
  /** Where the managers run: the private subnets, or the public ones when they get public IPs. */
  public readonly managerSubnetIds: string[];

  constructor(scope: Construct, id: string, props: AwsCellFleetProps) {
    super(scope, id);
    const { model } = props;
    const cloud = awsCloudOf(model);
    if (model.secrets.store === "google-secret-manager") {
      throw new UserInputError(`${this.node.path}: secrets.store is "google-secret-manager"; expected "aws-ssm" or "local" on AWS.`);
    }

    this.network = new Network(this, "network", {
      namePrefix: model.cell.id,
      region: cloud.region,
      availabilityZones: cloud.availability_zones,
      vpcCidr: model.network.existing ? undefined : model.network.cidr,
      existing: model.network.existing && {
        vpcId: model.network.existing.network,
        privateSubnetIds: model.network.existing.subnets,
      },
      natGateway: model.network.nat !== false,
      natGatewayPerAvailabilityZone: model.network.nat === "per-zone",
      monitoringCidrs: model.network.monitoring_cidrs,
      tags: shardLabels(model),
    });

    this.managerSubnetIds = this.chooseManagerSubnets(model);
    for (const shard of model.shards) this.shards[shard.name] = this.addShard(model, cloud, shard);
    if (model.monitoring.enabled) this.monitoring = this.addMonitoring(model, cloud);
    this.addOutputs();
  }

  /** Managers with public IPs go to the public subnets (the private ones route through NAT, not the internet gateway). */
  private chooseManagerSubnets(model: RunnerModel): string[] {
    if (!model.network.public_ips) return this.network.privateSubnetIds;
    if (this.network.publicSubnetIds.length > 0) return this.network.publicSubnetIds;
    Annotations.of(this).addWarning(
      "network.public_ips is true with an existing network: managers get public IPs in the given subnets, " +
        "which only works if those subnets route to an internet gateway.",
    );
    return this.network.privateSubnetIds;
  }

  private addShard(model: RunnerModel, cloud: AwsCloudConfig, shard: Shard): AwsShardFleet {
    const scope = new Construct(this, `shard-${shard.name}`);
    const tags = shardLabels(model, shard);
    const slots = Array.from({ length: shard.managers.count }, (_, slot) => slot);

    const workerGroups = slots.map(
      (slot) =>
        new WorkerAutoscalingGroup(scope, `workers-${slot}`, {
          name: workerGroupName(model, shard, slot),
          slot,
          imageId: shardImages(model, shard).workers,
          instanceType: shard.workers.machine_type,
          subnetIds: this.network.privateSubnetIds,
          securityGroupIds: [this.network.workerSecurityGroupId],
          userData: renderWorkerStartupScript(model, shard),
          maxInstances: shard.workers.max_instances,
          spot: shard.workers.spot,
          rootVolumeSizeGib: shard.workers.disk_size_gb,
          tags,
        }),
    );

    const cache = shard.cache.enabled
      ? new CacheBucket(scope, "cache", {
          bucketName: cacheBucketName(model, shard),
          expirationDays: shard.cache.expiry_days,
          tags,
        })
      : undefined;

    const iam = new FleetingIam(scope, "iam", {
      roleName: managerRoleName(model, shard),
      region: cloud.region,
      accountId: cloud.account_id,
      workerGroups: workerGroups.map((group) => ({ name: group.name, arn: group.autoscalingGroup.arn })),
      workerUsername: shard.workers.username,
      managerGroupNames: slots.map((slot) => managerName(model, shard, slot)),
      tokenParameterName: model.secrets.store === "aws-ssm" ? secretLocation(model, shard).awsParameterName : undefined,
      cacheBucketArn: cache?.bucketArn,
      logGroupName: model.monitoring.enabled ? logGroupName(model, shard) : undefined,
      tags,
    });

    const managerGroups = slots.map(
      (slot) =>
        new RunnerManagerGroup(scope, `manager-${slot}`, {
          name: managerName(model, shard, slot),
          slot,
          imageId: shardImages(model, shard).managers,
          instanceType: shard.managers.machine_type,
          subnetIds: this.managerSubnetIds,
          securityGroupIds: [this.network.managerSecurityGroupId],
          instanceProfileArn: iam.instanceProfileArn,
          userData: renderManagerStartupScript(model, shard, slot),
          rootVolumeSizeGib: shard.managers.disk_size_gb,
          drainTimeoutSeconds: drainHookHeartbeatSeconds(shard),
          associatePublicIpAddress: model.network.public_ips,
          tags,
          dependsOn: [iam.policy],
        }),
    );

    return { scope, workerGroups, iam, cache, managerGroups };
  }

  private addMonitoring(model: RunnerModel, cloud: AwsCloudConfig): FleetMonitoring {
    const { thresholds, notifications } = model.monitoring;
    const absentSeconds = parseGoDurationSeconds(thresholds.manager_absent_for) ?? 300;
    return new FleetMonitoring(this, "monitoring", {
      namePrefix: model.cell.id,
      region: cloud.region,
      shards: model.shards.map((shard) => ({
        name: shard.name,
        logGroupName: logGroupName(model, shard),
        managerGroupNames: this.shards[shard.name].managerGroups.map((group) => group.name),
        workerGroupNames: this.shards[shard.name].workerGroups.map((group) => group.name),
        maxInstances: shard.workers.max_instances,
      })),
      // Group metrics come once a minute: round the model's duration up to whole minutes.
      managerAbsentForSeconds: Math.max(60, Math.ceil(absentSeconds / 60) * 60),
      jobFailureRatio: thresholds.job_failure_ratio,
      workersNearMax: thresholds.workers_near_max,
      emails: notifications.emails,
      webhooks: notifications.webhooks,
      topicArns: notifications.channels,
      tags: shardLabels(model),
    });
  }

  /** Outputs named after their resource, keyed by shard, so their names do not depend on the shards. */
  private addOutputs(): void {
    const shards = Object.entries(this.shards);
    const byShard = <T>(pick: (fleet: AwsShardFleet) => T | undefined) =>
      Object.fromEntries(shards.flatMap(([name, fleet]) => {
        const value = pick(fleet);
        return value === undefined ? [] : [[name, value]];
      }));
    const outputs: Record<string, { value: unknown; description: string }> = {
      vpc_id: { value: this.network.vpcId, description: "VPC of the fleet" },
      private_subnet_ids: { value: this.network.privateSubnetIds, description: "Private subnets of managers and workers" },
      manager_autoscaling_group_names: {
        value: byShard((fleet) => fleet.managerGroups.map((group) => group.name)),
        description: "Auto Scaling group of each manager slot, by shard (slot order)",
      },
      manager_autoscaling_group_arns: {
        value: byShard((fleet) => fleet.managerGroups.map((group) => group.autoscalingGroup.arn)),
        description: "ARNs of the manager slots' Auto Scaling groups, by shard (slot order)",
      },
      worker_autoscaling_group_names: {
        value: byShard((fleet) => fleet.workerGroups.map((group) => group.name)),
        description: "Worker Auto Scaling group of each manager slot (the fleeting plugin's name), by shard",
      },
      worker_autoscaling_group_arns: {
        value: byShard((fleet) => fleet.workerGroups.map((group) => group.autoscalingGroup.arn)),
        description: "ARNs of the worker Auto Scaling groups, by shard (slot order)",
      },
      cache_bucket_names: {
        value: byShard((fleet) => fleet.cache?.bucketName),
        description: "Cache bucket of each shard with a cache",
      },
      manager_role_arns: { value: byShard((fleet) => fleet.iam.roleArn), description: "IAM role of each shard's managers" },
    };
    if (this.monitoring) {
      outputs.alarm_topic_arn = { value: this.monitoring.topic.arn, description: "SNS topic the fleet's alarms publish to" };
    }
    for (const [name, { value, description }] of Object.entries(outputs)) {
      new TerraformOutput(this, name, { value, description }).overrideLogicalId(name);
    }
  }
}

function awsCloudOf(model: RunnerModel): AwsCloudConfig {
  if (model.cloud.provider !== "aws") {
    throw new UserInputError(`AwsCellFleet: cloud.provider of cell ${model.cell.id} is "${model.cloud.provider}"; expected "aws".`);
  }
  return model.cloud;
}
