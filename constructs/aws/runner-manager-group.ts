/**
 * One runner manager slot on AWS: a launch template with the slot's own startup script and an
 * Auto Scaling group that keeps exactly one instance of it alive.
 *
 * Why one group per slot instead of one group of N: slot i's config.toml drives worker group i
 * only, so the slots are not interchangeable. An instance of a group of N could not know which
 * worker group is its own without runtime coordination, and two instances that guessed the same
 * slot would fight over one worker group. A group of 1 per slot gives every instance its slot
 * (user data and the slot tag) and lets EC2 replace a lost manager with the same slot.
 */
import type { ITerraformDependable } from "cdktf";
import { Construct } from "constructs";
import { AutoscalingGroup } from "@cdktf/provider-aws/lib/autoscaling-group";
import { LaunchTemplate } from "@cdktf/provider-aws/lib/launch-template";
import { DRAIN_HOOK_NAME, MAX_HOOK_HEARTBEAT_SECONDS, SLOT_METADATA_KEY } from "../../lib/contract/fleet-contract";
import { checkIntegerRange, checkNonEmpty, checkUnique } from "./checks";
import {
  GROUP_METRICS,
  UBUNTU_ROOT_DEVICE,
  checkSlotGroupPlacement,
  type SlotGroupPlacement,
  checkMetadataTagKeys,
  encodeUserData,
  encryptedRootVolume,
  metadataOptions,
  primaryInterface,
  propagatedTags,
  tagSpecifications,
} from "./launch-template-parts";


/** One manager slot: where and what it launches (SlotGroupPlacement) and how it runs. */
export interface RunnerManagerSlotProps extends SlotGroupPlacement {
  /** ARN of the instance profile carrying the manager role. */
  readonly instanceProfileArn: string;
  /** The slot's startup script (plain text; encoded to base64 here). It must not contain a token. */
  readonly userData: string;
  /**
   * Size of the encrypted gp3 root volume.
   * @default 50
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
   * Give the manager a public IP. It then needs a subnet that routes to an internet gateway.
   * @default false
   */
  readonly associatePublicIpAddress?: boolean;
  /**
   * IMDSv2 response hop limit. gitlab-runner and the CloudWatch agent run on the host, so 1 hop is
   * enough, and it keeps containers on the manager (none are expected) away from the instance role.
   * @default 1
   */
  readonly httpPutResponseHopLimit?: number;
  /**
   * Seconds after launch before health checks count: the startup script installs gitlab-runner first.
   * @default 300
   */
  readonly healthCheckGracePeriod?: number;
  /**
   * Heartbeat timeout of the termination lifecycle hook `runner-fleet-drain` (DRAIN_HOOK_NAME): how long a
   * terminating manager may drain before EC2 terminates it anyway. The manager completes the hook when
   * gitlab-runner has exited, and records heartbeats when the drain takes longer than this.
   * @default 3900 (a 1 h maximum_timeout and a 5 min margin)
   */
  readonly drainTimeoutSeconds?: number;
  /**
   * Tags of the group, its instances (propagated at launch), volumes and interfaces.
   * @default {}
   */
  readonly tags?: Record<string, string>;
  /**
   * What must exist before the group launches its instance, such as the manager role's policy.
   * @default []
   */
  readonly dependsOn?: ITerraformDependable[];
}

/** One manager slot: a launch template and an Auto Scaling group of exactly one instance. */
export class RunnerManagerSlot extends Construct {
  public readonly name: string;
  public readonly slot: number;
  public readonly rootVolumeSizeGib: number;
  public readonly rootDeviceName: string;
  public readonly associatePublicIpAddress: boolean;
  public readonly httpPutResponseHopLimit: number;
  public readonly healthCheckGracePeriod: number;
  public readonly drainTimeoutSeconds: number;
  /** Tags as applied, including Name and the slot tag. */
  public readonly tags: Record<string, string>;
  public readonly launchTemplate: LaunchTemplate;
  public readonly autoscalingGroup: AutoscalingGroup;

  constructor(scope: Construct, id: string, props: RunnerManagerSlotProps) {
    super(scope, id);
    this.name = props.name;
    this.slot = props.slot;
    this.rootVolumeSizeGib = props.rootVolumeSizeGib ?? 50;
    this.rootDeviceName = props.rootDeviceName ?? UBUNTU_ROOT_DEVICE;
    this.associatePublicIpAddress = props.associatePublicIpAddress ?? false;
    this.httpPutResponseHopLimit = props.httpPutResponseHopLimit ?? 1;
    this.healthCheckGracePeriod = props.healthCheckGracePeriod ?? 300;
    this.drainTimeoutSeconds = props.drainTimeoutSeconds ?? 3900;
    this.tags = { ...props.tags, Name: props.name, [SLOT_METADATA_KEY]: String(props.slot) };

    checkSlotGroupPlacement(this, props);
    checkIntegerRange(this, "healthCheckGracePeriod", this.healthCheckGracePeriod, 0, 7200);
    checkIntegerRange(this, "drainTimeoutSeconds", this.drainTimeoutSeconds, 30, MAX_HOOK_HEARTBEAT_SECONDS);
    // The manager reads its slot from its instance tags through the metadata service.
    checkMetadataTagKeys(this, "tags", this.tags);

    this.launchTemplate = new LaunchTemplate(this, "launch-template", {
      name: props.name,
      description: `GitLab runner manager slot ${props.slot}`,
      imageId: props.imageId,
      instanceType: props.instanceType,
      updateDefaultVersion: true,
      userData: encodeUserData(this, "userData", props.userData),
      iamInstanceProfile: { arn: props.instanceProfileArn },
      metadataOptions: metadataOptions(this, { hopLimit: this.httpPutResponseHopLimit, instanceTags: true }),
      blockDeviceMappings: encryptedRootVolume(this, this.rootDeviceName, this.rootVolumeSizeGib, props.ebsKmsKeyId),
      networkInterfaces: primaryInterface(props.securityGroupIds, { associatePublicIpAddress: this.associatePublicIpAddress }),
      tagSpecifications: tagSpecifications(this.tags),
      tags: this.tags,
    });

    this.autoscalingGroup = new AutoscalingGroup(this, "Resource", {
      name: props.name,
      minSize: 1,
      maxSize: 1,
      desiredCapacity: 1,
      vpcZoneIdentifier: props.subnetIds,
      // EC2 status checks catch a dead instance; the manager's health timer reports a gitlab-runner that
      // stopped answering on :9252 through SetInstanceHealth (lib/render/manager-health.ts).
      healthCheckType: "EC2",
      healthCheckGracePeriod: this.healthCheckGracePeriod,
      // Pinning the template's latest version makes every template change a group change, which starts the refresh.
      launchTemplate: { id: this.launchTemplate.id, version: this.launchTemplate.latestVersion.toString() },
      // Health replacements (a failed EC2 check, the manager's own SetInstanceHealth) terminate the old manager
      // before launching the new one: with the default, Auto Scaling may launch first, and for a while two
      // managers would drive the slot's worker group, each removing the other's workers at its start.
      instanceMaintenancePolicy: { minHealthyPercentage: 0, maxHealthyPercentage: 100 },
      instanceRefresh: {
        strategy: "Rolling",
        preferences: {
          // Terminate the old manager before its successor starts: two managers of one slot would drive
          // the same worker group at once. The slot is down for the length of one boot.
          minHealthyPercentage: 0,
          maxHealthyPercentage: 100,
          instanceWarmup: String(this.healthCheckGracePeriod),
        },
      },
      // Part of the group from its creation, so even the first instance drains before it terminates
      // (a separate aws_autoscaling_lifecycle_hook would attach only after the first launch).
      initialLifecycleHook: [
        {
          name: DRAIN_HOOK_NAME,
          lifecycleTransition: "autoscaling:EC2_INSTANCE_TERMINATING",
          heartbeatTimeout: this.drainTimeoutSeconds,
          // A manager that never completes the hook (dead instance) is terminated when it times out.
          defaultResult: "CONTINUE",
        },
      ],
      enabledMetrics: GROUP_METRICS,
      metricsGranularity: "1Minute",
      tag: propagatedTags(this.tags),
      dependsOn: props.dependsOn,
    });
  }
}

/** Every manager slot of a shard: what the slots share, and per slot its name and startup script. */
export interface RunnerManagerGroupProps extends Omit<RunnerManagerSlotProps, "name" | "slot" | "userData"> {
  /** In slot order: slot i is `slots[i]`. */
  readonly slots: readonly ManagerSlotProps[];
}

export interface ManagerSlotProps {
  /** Name of the slot's launch template and Auto Scaling group (`managerName(model, shard, slot)`). */
  readonly name: string;
  /** The slot's startup script (plain text; encoded to base64 here). It must not contain a token. */
  readonly userData: string;
}

/**
 * The runner managers of one shard, one RunnerManagerSlot per slot. Not a construct of its own: each
 * slot stays at `<shard>/manager-<slot>`, the construct path (and so the Terraform address) it has
 * always had, where a group construct in between would make Terraform replace every manager.
 */
export class RunnerManagerGroup {
  /** In slot order. */
  public readonly slots: readonly RunnerManagerSlot[];
  /** Auto Scaling group names, in slot order. */
  public readonly groupNames: readonly string[];

  constructor(scope: Construct, props: RunnerManagerGroupProps) {
    const { slots, ...shared } = props;
    checkNonEmpty(scope, "managers.slots", slots, "manager slot");
    checkUnique(scope, "managers.slots[].name", slots.map((slot) => slot.name));
    this.slots = slots.map((slot, index) => new RunnerManagerSlot(scope, `manager-${index}`, { ...shared, ...slot, slot: index }));
    this.groupNames = this.slots.map((slot) => slot.name);
  }
}
