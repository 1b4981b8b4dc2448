/**
 * Pieces every launch template of the fleet shares: IMDSv2, an encrypted gp3 root volume, a
 * network interface without a public IP (unless asked), base64 user data, and tags.
 */
import { gzipSync } from "node:zlib";
import type { Construct } from "constructs";
import type { AutoscalingGroupTag } from "@cdktf/provider-aws/lib/autoscaling-group";
import type {
  LaunchTemplateBlockDeviceMappings,
  LaunchTemplateMetadataOptions,
  LaunchTemplateNetworkInterfaces,
  LaunchTemplateTagSpecifications,
} from "@cdktf/provider-aws/lib/launch-template";
import {
  checkIds,
  checkIntegerRange,
  checkNonEmpty,
  checkPattern,
  fail,
  IMAGE_ID,
  IMAGE_ID_EXPECTED,
  INSTANCE_TYPE,
  INSTANCE_TYPE_EXPECTED,
  isToken,
  SECURITY_GROUP_ID,
  SUBNET_ID,
} from "./checks";

/** EC2 refuses user data over 16 KB (counted before base64). */
export const USER_DATA_LIMIT_BYTES = 16 * 1024;

/** Ubuntu AMIs (the default image) name their root device /dev/sda1. */
export const UBUNTU_ROOT_DEVICE = "/dev/sda1";

/**
 * Base64 user data. A script over EC2's 16 KB is gzip-compressed first: cloud-init (Ubuntu's images)
 * recognises gzip content, uncompresses it and runs the script as if it had been sent plain ("User
 * data input formats: gzip compressed content"). Scripts that fit are sent plain, so their user data
 * (and the launch template version) stays what it was.
 */
export function encodeUserData(scope: Construct, property: string, script: string): string {
  if (isToken(script)) return script;
  const plain = Buffer.from(script, "utf8");
  if (plain.length <= USER_DATA_LIMIT_BYTES) return plain.toString("base64");
  const compressed = gzipSync(plain, { level: 9 });
  if (compressed.length > USER_DATA_LIMIT_BYTES) {
    fail(scope, property, `${plain.length} bytes, ${compressed.length} gzip-compressed`, `at most ${USER_DATA_LIMIT_BYTES} bytes (EC2's user data limit) once compressed`);
  }
  return compressed.toString("base64");
}

/**
 * IMDSv2 only (session tokens required), which stops SSRF-style reads of instance credentials.
 * The hop limit counts network hops a metadata response may travel: 1 reaches processes on the
 * host only; a container on a Docker bridge network is one hop further and needs 2.
 */
export function metadataOptions(scope: Construct, { hopLimit, instanceTags }: { readonly hopLimit: number; readonly instanceTags: boolean }): LaunchTemplateMetadataOptions {
  checkIntegerRange(scope, "httpPutResponseHopLimit", hopLimit, 1, 2);
  return {
    httpEndpoint: "enabled",
    httpTokens: "required",
    httpPutResponseHopLimit: hopLimit,
    instanceMetadataTags: instanceTags ? "enabled" : "disabled",
  };
}

export function encryptedRootVolume(
  scope: Construct,
  deviceName: string,
  sizeGib: number,
  kmsKeyId: string | undefined,
): LaunchTemplateBlockDeviceMappings[] {
  checkIntegerRange(scope, "rootVolumeSizeGib", sizeGib, 8, 16384);
  return [
    {
      deviceName,
      ebs: {
        volumeType: "gp3",
        volumeSize: sizeGib,
        encrypted: "true",
        // Without a key id EBS uses the account's default key for EBS (aws/ebs).
        ...(kmsKeyId ? { kmsKeyId } : {}),
        deleteOnTermination: "true",
      },
    },
  ];
}

/** The primary interface; security groups go here because a template with interfaces may not list them elsewhere. */
export function primaryInterface(
  securityGroupIds: string[],
  { associatePublicIpAddress }: { readonly associatePublicIpAddress: boolean },
): LaunchTemplateNetworkInterfaces[] {
  return [
    {
      deviceIndex: 0,
      associatePublicIpAddress: associatePublicIpAddress ? "true" : "false",
      deleteOnTermination: "true",
      securityGroups: securityGroupIds,
    },
  ];
}

/** Volumes and interfaces are tagged by the template; instances get their tags from the group (propagated). */
export function tagSpecifications(tags: Record<string, string>): LaunchTemplateTagSpecifications[] {
  return ["volume", "network-interface"].map((resourceType) => ({ resourceType, tags }));
}

export function propagatedTags(tags: Record<string, string>): AutoscalingGroupTag[] {
  return Object.entries(tags).map(([key, value]) => ({ key, value, propagateAtLaunch: true }));
}

/** What EC2 accepts as a tag key when instance tags are readable from the metadata service. */
const METADATA_TAG_KEY = /^(?!\.{1,2}$)(?!_index$)[A-Za-z0-9+\-=.,_:@]{1,128}$/;

export function checkMetadataTagKeys(scope: Construct, property: string, tags: Record<string, string>): void {
  for (const key of Object.keys(tags)) {
    if (isToken(key)) continue;
    if (!METADATA_TAG_KEY.test(key)) {
      fail(scope, `${property} key`, key, "a tag key readable through instance metadata: letters, digits and + - = . , _ : @ (no spaces or '/')");
    }
  }
}

/** The metrics the alarms and the dashboard read; collected every minute. */
export const GROUP_METRICS = [
  "GroupMinSize",
  "GroupMaxSize",
  "GroupDesiredCapacity",
  "GroupInServiceInstances",
  "GroupPendingInstances",
  "GroupTerminatingInstances",
  "GroupTotalInstances",
];

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.\-/]{0,127}$/;

/** What every slot group (manager or worker) must get right before it launches anything. */
export interface SlotGroupPlacement {
  /** Name of the launch template and of the Auto Scaling group. */
  readonly name: string;
  /** The manager slot (0-based) the group belongs to; tagged on its instances as `gitlab-runner-slot`. */
  readonly slot: number;
  /** AMI id or `resolve:ssm:<parameter>` (resolved by EC2 at each launch). */
  readonly imageId: string;
  readonly instanceType: string;
  /** Subnets the group may launch in (one per zone, so a lost zone is survived). */
  readonly subnetIds: string[];
  /** Security groups of the instances (the network's manager or worker group). */
  readonly securityGroupIds: string[];
}

export function checkSlotGroupPlacement(scope: Construct, props: SlotGroupPlacement): void {
  checkPattern(scope, "name", props.name, GROUP_NAME, "a name of letters, digits and - _ . / (at most 128 characters)");
  checkIntegerRange(scope, "slot", props.slot, 0, 999);
  checkPattern(scope, "imageId", props.imageId, IMAGE_ID, IMAGE_ID_EXPECTED);
  checkPattern(scope, "instanceType", props.instanceType, INSTANCE_TYPE, INSTANCE_TYPE_EXPECTED);
  checkNonEmpty(scope, "subnetIds", props.subnetIds, "subnet id");
  checkIds(scope, "subnetIds", props.subnetIds, SUBNET_ID, "a subnet id such as subnet-0123456789abcdef0");
  checkNonEmpty(scope, "securityGroupIds", props.securityGroupIds, "security group id");
  checkIds(scope, "securityGroupIds", props.securityGroupIds, SECURITY_GROUP_ID, "a security group id such as sg-0123456789abcdef0");
}
