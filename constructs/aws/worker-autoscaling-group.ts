/**
 * The worker group of one runner manager slot: a launch template and an Auto Scaling group whose
 * size belongs to gitlab-runner (the aws fleeting plugin sets its desired capacity and terminates
 * the instances it is done with). One group per manager slot, never shared: two managers driving one
 * group would each scale it and remove the other's instances.
 */
import { Construct } from "constructs";
import { AutoscalingGroup, type AutoscalingGroupConfig } from "@cdktf/provider-aws/lib/autoscaling-group";
import { LaunchTemplate } from "@cdktf/provider-aws/lib/launch-template";
import { SLOT_METADATA_KEY } from "../../lib/contract/fleet-contract";
import { checkIntegerRange, checkNonEmpty, checkPattern, checkUnique, fail, isToken, INSTANCE_TYPE, INSTANCE_TYPE_EXPECTED } from "./checks";
import {
  GROUP_METRICS,
  UBUNTU_ROOT_DEVICE,
  checkSlotGroupPlacement,
  type SlotGroupPlacement,
  encodeUserData,
  encryptedRootVolume,
  metadataOptions,
  primaryInterface,
  propagatedTags,
  tagSpecifications,
} from "./launch-template-parts";


/** The worker group of one manager slot: where and what it launches (SlotGroupPlacement) and how it scales. */
export interface WorkerAutoscalingGroupProps extends SlotGroupPlacement {
  /** Worker startup script (plain text; encoded to base64 here). */
  readonly userData: string;
  /** Upper bound of the group, the manager's `max_instances`. At least 1. */
  readonly maxInstances: number;
  /**
   * Spot workers: a mixed instances policy that is 100% Spot with the price-capacity-optimized
   * strategy. On-demand otherwise.
   * @default false
   */
  readonly spot?: boolean;
  /**
   * More instance types Spot may choose from (more pools, fewer interruptions). Only with `spot`.
   * @default [] - `instanceType` only
   */
  readonly additionalSpotInstanceTypes?: string[];
  /**
   * Size of the encrypted gp3 root volume (job images and builds live here).
   * @default 100
   */
  readonly rootVolumeSizeGib?: number;
  /**
   * Root device name of the image.
   * @default "/dev/sda1" (Ubuntu)
   */
  readonly rootDeviceName?: string;
  /**
   * KMS key of the root volume.
   * @default - the account's default EBS key (aws/ebs)
   */
  readonly ebsKmsKeyId?: string;
  /**
   * IMDSv2 response hop limit. 1 keeps job containers (one hop away on the Docker bridge) from the
   * metadata service altogether; workers have no instance role, so nothing on them needs it.
   * @default 1
   */
  readonly httpPutResponseHopLimit?: number;
  /**
   * Tags of the group, its instances (propagated at launch), volumes and interfaces.
   * @default {}
   */
  readonly tags?: Record<string, string>;
}

export class WorkerAutoscalingGroup extends Construct {
  public readonly name: string;
  public readonly slot: number;
  public readonly maxInstances: number;
  public readonly spot: boolean;
  public readonly rootVolumeSizeGib: number;
  public readonly rootDeviceName: string;
  public readonly httpPutResponseHopLimit: number;
  public readonly tags: Record<string, string>;
  public readonly launchTemplate: LaunchTemplate;
  public readonly autoscalingGroup: AutoscalingGroup;

  constructor(scope: Construct, id: string, props: WorkerAutoscalingGroupProps) {
    super(scope, id);
    this.name = props.name;
    this.slot = props.slot;
    this.maxInstances = props.maxInstances;
    this.spot = props.spot ?? false;
    this.rootVolumeSizeGib = props.rootVolumeSizeGib ?? 100;
    this.rootDeviceName = props.rootDeviceName ?? UBUNTU_ROOT_DEVICE;
    this.httpPutResponseHopLimit = props.httpPutResponseHopLimit ?? 1;
    this.tags = { ...props.tags, Name: props.name, [SLOT_METADATA_KEY]: String(props.slot) };
    const additionalTypes = props.additionalSpotInstanceTypes ?? [];

    checkSlotGroupPlacement(this, props);
    checkIntegerRange(this, "maxInstances", props.maxInstances, 1, 1000);
    if (!isToken(additionalTypes)) {
      if (additionalTypes.length > 0 && !this.spot) {
        fail(this, "additionalSpotInstanceTypes", additionalTypes, "no additional instance types unless spot is true");
      }
      additionalTypes.forEach((type, index) =>
        checkPattern(this, `additionalSpotInstanceTypes[${index}]`, type, INSTANCE_TYPE, INSTANCE_TYPE_EXPECTED),
      );
      checkUnique(this, "instance types", [props.instanceType, ...additionalTypes]);
    }

    this.launchTemplate = new LaunchTemplate(this, "launch-template", {
      name: props.name,
      description: `GitLab runner workers of manager slot ${props.slot}`,
      imageId: props.imageId,
      instanceType: props.instanceType,
      updateDefaultVersion: true,
      userData: encodeUserData(this, "userData", props.userData),
      // No instance profile: jobs run here, and nothing on a worker should hold AWS credentials.
      metadataOptions: metadataOptions(this, { hopLimit: this.httpPutResponseHopLimit, instanceTags: false }),
      blockDeviceMappings: encryptedRootVolume(this, this.rootDeviceName, this.rootVolumeSizeGib, props.ebsKmsKeyId),
      networkInterfaces: primaryInterface(props.securityGroupIds, { associatePublicIpAddress: false }),
      tagSpecifications: tagSpecifications(this.tags),
      tags: this.tags,
    });

    // The template's latest version: new workers use a changed template at once. Running workers are
    // left alone (no instance refresh would be safe under running jobs); max_use_count retires them.
    const templateVersion = this.launchTemplate.latestVersion.toString();
    const launch: Pick<AutoscalingGroupConfig, "launchTemplate" | "mixedInstancesPolicy"> = this.spot
      ? {
          mixedInstancesPolicy: {
            instancesDistribution: {
              onDemandBaseCapacity: 0,
              onDemandPercentageAboveBaseCapacity: 0,
              spotAllocationStrategy: "price-capacity-optimized",
            },
            launchTemplate: {
              launchTemplateSpecification: { launchTemplateId: this.launchTemplate.id, version: templateVersion },
              override: [props.instanceType, ...additionalTypes].map((instanceType) => ({ instanceType })),
            },
          },
        }
      : { launchTemplate: { id: this.launchTemplate.id, version: templateVersion } };

    this.autoscalingGroup = new AutoscalingGroup(this, "Resource", {
      name: props.name,
      // gitlab-runner owns the size: no scaling policy, and Terraform ignores desired_capacity after creation.
      minSize: 0,
      maxSize: props.maxInstances,
      vpcZoneIdentifier: props.subnetIds,
      ...launch,
      healthCheckType: "EC2",
      // Auto Scaling must never remove an instance on its own: it may be running a job. The runner
      // terminates instances through TerminateInstanceInAutoScalingGroup, which protection does not block.
      protectFromScaleIn: true,
      // Rebalancing across zones would terminate busy workers; the runner decides which instances go.
      suspendedProcesses: ["AZRebalance"],
      enabledMetrics: GROUP_METRICS,
      metricsGranularity: "1Minute",
      tag: propagatedTags(this.tags),
      lifecycle: { ignoreChanges: ["desired_capacity"] },
    });
  }
}

/** The worker groups of every manager slot of a shard: what they share, and per slot the group's name. */
export interface WorkerAutoscalingGroupsProps extends Omit<WorkerAutoscalingGroupProps, "name" | "slot"> {
  /** In slot order: group i is driven by manager slot i alone. */
  readonly groups: readonly { readonly name: string }[];
}

/**
 * The worker groups of one shard, one WorkerAutoscalingGroup per manager slot. Not a construct of its
 * own: each group stays at `<shard>/workers-<slot>`, the construct path (and so the Terraform address)
 * it has always had.
 */
export class WorkerAutoscalingGroups {
  /** In slot order. */
  public readonly groups: readonly WorkerAutoscalingGroup[];
  /** Auto Scaling group names, in slot order. */
  public readonly groupNames: readonly string[];

  constructor(scope: Construct, props: WorkerAutoscalingGroupsProps) {
    const { groups, ...shared } = props;
    checkNonEmpty(scope, "workers.groups", groups, "worker group");
    checkUnique(scope, "workers.groups[].name", groups.map((group) => group.name));
    this.groups = groups.map((group, slot) => new WorkerAutoscalingGroup(scope, `workers-${slot}`, { ...shared, ...group, slot }));
    this.groupNames = this.groups.map((group) => group.name);
  }
}
