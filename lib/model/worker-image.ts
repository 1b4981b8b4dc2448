/**
 * The image a shard's workers boot when the model names none, and the root device it has.
 *
 * - AWS: the ECS-optimized Amazon Linux 2023 AMI, which ships Docker Engine (and the docker group), so a
 *   worker with max_use_count 1 does not spend a minute or two of every job installing it. Read from
 *   its public SSM parameter (Amazon ECS developer guide, "Retrieving Amazon ECS-optimized Linux AMI
 *   metadata": /aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id, arm64 under
 *   .../amazon-linux-2023/arm64/recommended/image_id) as `resolve:ssm:`, which EC2 resolves at every
 *   launch. Not an `aws_ssm_parameter` data source: that needs AWS credentials at plan (the offline
 *   plan of the real-engine tests has none), and `resolve:ssm:` already gives what the issue asks of
 *   patching: every new worker starts from the newest recommended AMI, so patches arrive by workers
 *   being replaced (max_use_count), never by an upgrade under a running job.
 * - Google Cloud: Ubuntu 24.04 LTS, Docker installed at boot when missing. Google publishes one image
 *   with Docker, Container-Optimized OS, and it cannot be a docker-autoscaler worker as is: its root
 *   file system is read-only and /etc is rebuilt at every boot, it has no package manager, and its
 *   users come from its own metadata agent ("Container-Optimized OS overview: Limitations"), while the
 *   googlecloud fleeting plugin logs in as `username` with a key it pushes through instance metadata.
 *   A team that bakes its own image (Docker, the connector user) names its family in `workers.image`;
 *   the boot then skips the install, which is the fast path the AWS default gets out of the box.
 */
import { defaultImage, type Architecture } from "./architecture";
import type { CloudConfig } from "./schema";

/** AWS: the ECS-optimized Amazon Linux 2023 AMI's SSM parameter for the architecture. */
export function ecsOptimizedAmiParameter(architecture: Architecture): string {
  return architecture === "arm64"
    ? "/aws/service/ecs/optimized-ami/amazon-linux-2023/arm64/recommended/image_id"
    : "/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id";
}

/** The workers' image when the model names none (see the file comment for why each). */
export function defaultWorkerImage(provider: CloudConfig["provider"], architecture: Architecture): string {
  return provider === "aws" ? `resolve:ssm:${ecsOptimizedAmiParameter(architecture)}` : defaultImage(provider, architecture);
}

/** Root device of Ubuntu's AMIs (Canonical's images). */
export const UBUNTU_ROOT_DEVICE = "/dev/sda1";
/** Root device of Amazon Linux 2023 AMIs, the ECS-optimized ones included. */
export const AMAZON_LINUX_ROOT_DEVICE = "/dev/xvda";

/**
 * Root device name of an AWS worker image, so the launch template sizes the root volume and does not add
 * a second, empty one. Amazon Linux images (by their SSM parameter) use /dev/xvda; every other image is
 * taken to be Ubuntu-like (/dev/sda1), as before this default changed.
 */
export function awsRootDeviceName(image: string): string {
  return /\/amazon-linux-2023\/|\/ami-amazon-linux-latest\/al2023-/.test(image) ? AMAZON_LINUX_ROOT_DEVICE : UBUNTU_ROOT_DEVICE;
}
