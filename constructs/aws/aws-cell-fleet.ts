/**
 * A cell's whole runner fleet on AWS: one network, and per shard (construct `shard-<name>`) the
 * worker groups, the managers' IAM, the cache bucket and the manager slots; monitoring when asked.
 * It takes plain props (stacks/aws-fleet-props.ts maps a model to them) and wires what only exists
 * at synth: subnets, security groups, group ARNs, the instance profile. The stack around it (provider,
 * backend) belongs to the caller. Construct ids are a contract: renaming one replaces real infrastructure.
 */
import { ManagerLiveConfig, type ManagerLiveConfigProps } from "./manager-live-config";
import { Annotations } from "cdktf";
import { Construct } from "constructs";
import { addFleetOutputs, byShard, moveShardResources, type FleetOutput, type ShardFleet } from "../shard-fleet";
import { CacheBucket, type CacheBucketProps } from "./cache-bucket";
import { checkUnique } from "./checks";
import { FleetMonitoring, type FleetMonitoringProps } from "./fleet-monitoring";
import { FleetingIam, type FleetingIamProps } from "./fleeting-iam";
import { Network, type NetworkProps } from "./network";
import { RunnerManagerGroup, type RunnerManagerGroupProps } from "./runner-manager-group";
import { WorkerAutoscalingGroups, type WorkerAutoscalingGroupsProps } from "./worker-autoscaling-group";

/** One shard: its constructs' props, less what the fleet wires (subnets, security groups, ARNs). */
export interface AwsShardProps {
  readonly name: string;
  /**
   * The shard's former name: every resource of its `shard-<name>` scope moves from the `shard-<renamedFrom>`
   * scope (Terraform moved blocks, ../shard-fleet.ts moveShardResources). Its other props keep the names
   * its resources were created under (stacks/*-fleet-props.ts do), or the move is followed by a replacement.
   * @default - not renamed
   */
  readonly renamedFrom?: string;
  readonly iam: Omit<FleetingIamProps, "workerGroups" | "cacheBucketArn">;
  /** @default - no cache bucket */
  readonly cache?: CacheBucketProps;
  /** `associatePublicIpAddress` also puts the managers in the public subnets, when the network has them. */
  readonly managers: Omit<RunnerManagerGroupProps, "subnetIds" | "securityGroupIds" | "instanceProfileArn" | "dependsOn">;
  readonly workers: Omit<WorkerAutoscalingGroupsProps, "subnetIds" | "securityGroupIds">;
  /** Where each manager slot reads its config.toml at run time (constructs/aws/manager-live-config.ts). */
  readonly liveConfig: Omit<ManagerLiveConfigProps, "role" | "region" | "accountId">;
}

export interface AwsCellFleetProps {
  readonly network: NetworkProps;
  /** In the order the outputs list them. */
  readonly shards: readonly AwsShardProps[];
  /** @default - no monitoring */
  readonly monitoring?: FleetMonitoringProps;
}

/** What one shard is made of. */
export type AwsShardFleet = ShardFleet<FleetingIam, CacheBucket, RunnerManagerGroup, WorkerAutoscalingGroups>;

export class AwsCellFleet extends Construct {
  public readonly network: Network;
  /** Per shard, in props order. */
  public readonly shards: readonly AwsShardFleet[];
  /** Absent when the props ask for no monitoring. */
  public readonly monitoring?: FleetMonitoring;
  private warnedOfPublicIps = false;

  constructor(scope: Construct, id: string, props: AwsCellFleetProps) {
    super(scope, id);
    // Shard names key the outputs and name the shard scopes.
    checkUnique(this, "shards[].name", props.shards.map((shard) => shard.name));
    this.network = new Network(this, "network", props.network);
    this.shards = props.shards.map((shard) => this.addShard(shard));
    if (props.monitoring) this.monitoring = new FleetMonitoring(this, "monitoring", { natGateways: this.network.natGateways, ...props.monitoring });
    this.addOutputs();
  }

  /** Managers with public IPs go to the public subnets (the private ones route through NAT, not the internet gateway). */
  private managerSubnetIds(publicIp: boolean): string[] {
    if (!publicIp) return this.network.privateSubnetIds;
    if (this.network.publicSubnetIds.length > 0) return this.network.publicSubnetIds;
    if (this.warnedOfPublicIps) return this.network.privateSubnetIds;
    this.warnedOfPublicIps = true;
    Annotations.of(this).addWarning(
      "network.public_ips is true with an existing network: managers get public IPs in the given subnets, " +
        "which only works if those subnets route to an internet gateway.",
    );
    return this.network.privateSubnetIds;
  }

  private addShard(shard: AwsShardProps): AwsShardFleet {
    const scope = new Construct(this, `shard-${shard.name}`);
    const workers = new WorkerAutoscalingGroups(scope, {
      ...shard.workers,
      subnetIds: this.network.privateSubnetIds,
      securityGroupIds: [this.network.workerSecurityGroupId],
    });
    const cache = shard.cache ? new CacheBucket(scope, "cache", shard.cache) : undefined;
    const iam = new FleetingIam(scope, "iam", {
      ...shard.iam,
      workerGroups: workers.groups.map((group) => ({ name: group.name, arn: group.autoscalingGroup.arn })),
      cacheBucketArn: cache?.bucketArn,
    });
    const liveConfig = new ManagerLiveConfig(scope, "live-config", { ...shard.liveConfig, role: iam.role.id, region: shard.iam.region, accountId: iam.accountId });
    const managers = new RunnerManagerGroup(scope, {
      ...shard.managers,
      subnetIds: this.managerSubnetIds(shard.managers.associatePublicIpAddress ?? false),
      securityGroupIds: [this.network.managerSecurityGroupId],
      instanceProfileArn: iam.instanceProfileArn,
      // The first token and config.toml read at boot must find the role's policies and the parameters in place.
      dependsOn: [iam.policy, liveConfig.policy, ...liveConfig.parameters],
    });
    if (shard.renamedFrom !== undefined) moveShardResources(scope, `shard-${shard.renamedFrom}`);
    return { name: shard.name, scope, iam, cache, managers, workers };
  }

  /** Outputs named after their resource, keyed by shard, so their names do not depend on the shards. */
  private addOutputs(): void {
    const outputs: Record<string, FleetOutput> = {
      vpc_id: { value: this.network.vpcId, description: "VPC of the fleet" },
      private_subnet_ids: { value: this.network.privateSubnetIds, description: "Private subnets of managers and workers" },
      manager_autoscaling_group_names: {
        value: byShard(this.shards, (fleet) => fleet.managers.groupNames),
        description: "Auto Scaling group of each manager slot, by shard (slot order)",
      },
      manager_autoscaling_group_arns: {
        value: byShard(this.shards, (fleet) => fleet.managers.slots.map((slot) => slot.autoscalingGroup.arn)),
        description: "ARNs of the manager slots' Auto Scaling groups, by shard (slot order)",
      },
      worker_autoscaling_group_names: {
        value: byShard(this.shards, (fleet) => fleet.workers.groupNames),
        description: "Worker Auto Scaling group of each manager slot (the fleeting plugin's name), by shard",
      },
      worker_autoscaling_group_arns: {
        value: byShard(this.shards, (fleet) => fleet.workers.groups.map((group) => group.autoscalingGroup.arn)),
        description: "ARNs of the worker Auto Scaling groups, by shard (slot order)",
      },
      cache_bucket_names: { value: byShard(this.shards, (fleet) => fleet.cache?.bucketName), description: "Cache bucket of each shard with a cache" },
      manager_role_arns: { value: byShard(this.shards, (fleet) => fleet.iam.roleArn), description: "IAM role of each shard's managers" },
    };
    if (this.monitoring) {
      outputs.alarm_topic_arn = { value: this.monitoring.topic.arn, description: "SNS topic the fleet's alarms publish to" };
    }
    addFleetOutputs(this, outputs);
  }
}
