/**
 * CPU architecture of a machine type and of an image, so a shard boots images of its machines'
 * architecture and installs the runner for it.
 *
 * - AWS: Graviton instance families carry a "g" among the attribute letters after the generation
 *   (t4g, m6gd, m7g, c7gn, r8g, m8g, im4gn, is4gen, hpc7g, g5g), and the first Graviton family is a1
 *   (EC2 "Instance type naming conventions": "g - AWS Graviton processors").
 * - Google Cloud: the Arm series are T2A (Ampere Altra), C4A and N4A (Axion) (Compute Engine "Arm VMs").
 * - Images: Canonical names its Ubuntu images and SSM parameters by architecture (amd64 / arm64); an
 *   image whose name says neither (an AMI id, a custom family) is taken as given.
 */
import type { CloudConfig } from "./schema";

export type Architecture = "amd64" | "arm64";

const AWS_FAMILY = /^([a-z]+?)(\d+)([a-z-]*)\./;
const GOOGLE_ARM_SERIES = new Set(["t2a", "c4a", "n4a"]);

export function machineArchitecture(provider: CloudConfig["provider"], machineType: string): Architecture {
  if (provider === "aws") {
    if (/^a1\./.test(machineType)) return "arm64";
    const family = AWS_FAMILY.exec(machineType);
    return family && family[3].includes("g") ? "arm64" : "amd64";
  }
  return GOOGLE_ARM_SERIES.has(machineType.split("-")[0]) ? "arm64" : "amd64";
}

/** The architecture an image's name states, or undefined when it states none. */
export function imageArchitecture(image: string): Architecture | undefined {
  if (/(^|[^a-z0-9])(arm64|aarch64)([^a-z0-9]|$)/i.test(image)) return "arm64";
  if (/(^|[^a-z0-9])(amd64|x86_64|x86-64)([^a-z0-9]|$)/i.test(image)) return "amd64";
  return undefined;
}

/** Ubuntu 24.04 LTS of the cloud, for the architecture. */
export function defaultImage(provider: CloudConfig["provider"], architecture: Architecture): string {
  return provider === "google"
    ? `projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-${architecture}`
    : `resolve:ssm:/aws/service/canonical/ubuntu/server/24.04/stable/current/${architecture}/hvm/ebs-gp3/ami-id`;
}

/** An example machine type of each architecture, for messages. */
export function exampleMachineType(provider: CloudConfig["provider"], architecture: Architecture): string {
  if (provider === "aws") return architecture === "arm64" ? "m7g.large" : "m7i.large";
  return architecture === "arm64" ? "t2a-standard-2" : "n2d-standard-2";
}
