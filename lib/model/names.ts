/**
 * Names derived from a model, shared by the constructs, the renderers and onboarding.
 * They are plain strings known at synth time (never Terraform tokens), so the
 * rendered config.toml and startup scripts can name the resources they use.
 *
 * Changing any of these renames real infrastructure or loses track of secrets:
 * treat them as a public contract.
 */
import { fitName } from "../names/fit-name";
import { defaultImage, machineArchitecture } from "./architecture";
import { defaultWorkerImage } from "./worker-image";
import type { RunnerModel, Shard } from "./schema";

/** The Terraform stack of a cell is named after the cell. */
export function stackName(model: RunnerModel): string {
  return model.cell.id;
}

/**
 * The name a shard's cloud resources, secret and labels carry: the name it had before it was renamed
 * (`renamed_from`), else its name. A rename moves the shard's Terraform addresses only (./deployed-model.ts):
 * nearly every cloud name is fixed at creation (a new name is a new resource), so a renamed shard keeps them.
 */
export function cloudShardName(shard: Shard): string {
  return shard.renamed_from ?? shard.name;
}

/** Prefix of every resource of a shard: "<cell>-<shard>", with the name its resources were created under (cloudShardName). */
export function shardPrefix(model: RunnerModel, shard: Shard): string {
  return `${model.cell.id}-${cloudShardName(shard)}`;
}

/**
 * Longest manager and worker group name per cloud. On Google Cloud the group name is also the
 * managed instance group's base_instance_name, which Google caps at 58 characters (the group appends
 * "-xxxx" to name an instance). AWS keeps 61, what every earlier version derived, so no AWS group is renamed.
 */
const GROUP_NAME_LIMIT = { google: 58, aws: 61 } as const;

/** Runner manager `slot` (0-based) of a shard: VM / instance group name. */
export function managerName(model: RunnerModel, shard: Shard, slot: number): string {
  return fitName(`${shardPrefix(model, shard)}-mgr-${slot}`, GROUP_NAME_LIMIT[model.cloud.provider]);
}

/** The worker group driven by manager `slot` alone (GCE managed instance group / AWS Auto Scaling group). */
export function workerGroupName(model: RunnerModel, shard: Shard, slot: number): string {
  return fitName(`${shardPrefix(model, shard)}-wrk-${slot}`, GROUP_NAME_LIMIT[model.cloud.provider]);
}

/** The `name` of the [[runners]] entry of manager `slot`. */
export function runnerEntryName(model: RunnerModel, shard: Shard, slot: number): string {
  return `${shardPrefix(model, shard)}-${slot}`;
}

/** Zone of manager `slot` and its worker group on Google Cloud: slots are spread round-robin. */
export function zoneOfSlot(zones: readonly string[], slot: number): string {
  return zones[slot % zones.length];
}

/**
 * Cache bucket of a shard. Bucket names are global on both clouds, so the
 * project (Google Cloud) or account/region (AWS) makes them unique.
 */
export function cacheBucketName(model: RunnerModel, shard: Shard): string {
  const owner = model.cloud.provider === "google" ? model.cloud.project : (model.cloud.account_id ?? model.cloud.region);
  return fitName(`${owner}-${shardPrefix(model, shard)}-cache`, 63);
}

/** Google service account id of a shard's managers (6 to 30 characters). */
export function managerServiceAccountId(model: RunnerModel, shard: Shard): string {
  return fitName(`rm-${shardPrefix(model, shard)}`, 30);
}

/** Google service account id of a shard's workers: it writes their boot logs, nothing else. */
export function workerServiceAccountId(model: RunnerModel, shard: Shard): string {
  return fitName(`rw-${shardPrefix(model, shard)}`, 30);
}

/** Where a shard's runner token lives in each kind of secret store. */
export interface SecretLocation {
  /** Google Secret Manager secret id: "<prefix>-<cell>-<shard>". */
  readonly googleSecretId: string;
  /** AWS SSM SecureString parameter name: "/<prefix>/<cell>/<shard>/token". */
  readonly awsParameterName: string;
  /** Local store file name (in secrets.local_dir): "<cell>--<shard>.json". */
  readonly localFileName: string;
}

export function secretLocation(model: RunnerModel, shard: Shard): SecretLocation {
  const { prefix } = model.secrets;
  return {
    googleSecretId: fitName(`${prefix}-${shardPrefix(model, shard)}`, 255),
    awsParameterName: `/${prefix}/${model.cell.id}/${cloudShardName(shard)}/token`,
    localFileName: `${model.cell.id}--${cloudShardName(shard)}.json`,
  };
}

/**
 * Where manager `slot`'s config.toml lives for the managers to read at run time (lib/render/live-config.ts):
 * a Secret Manager secret "<prefix>-<cell>-<shard>-config-<slot>" (Google) or an SSM String parameter
 * "/<prefix>/<cell>/<shard>/manager-<slot>/config.toml" (AWS), whatever the token's store.
 */
export function liveConfigLocation(model: RunnerModel, shard: Shard, slot: number): { readonly googleSecretId: string; readonly awsParameterName: string } {
  const { prefix } = model.secrets;
  return {
    googleSecretId: fitName(`${prefix}-${shardPrefix(model, shard)}-config-${slot}`, 255),
    awsParameterName: `/${prefix}/${model.cell.id}/${cloudShardName(shard)}/manager-${slot}/config.toml`,
  };
}

/** Labels (Google) / tags (AWS) on every resource of a shard: the cell's labels plus identity. */
export function shardLabels(model: RunnerModel, shard?: Shard): Record<string, string> {
  return {
    ...model.cell.labels,
    "gitlab-cell": model.cell.id,
    ...(shard ? { "runner-shard": cloudShardName(shard) } : {}),
    "managed-by": "runner-fleet",
  };
}

/**
 * Runner description in GitLab; also how onboarding finds the shard's runner again. The shard's name as
 * the model has it now: GitLab renames a runner in place, so a renamed shard's runner follows the rename.
 */
export function runnerDescription(model: RunnerModel, shard: Shard): string {
  return shard.description ?? `${model.cell.id}-${shard.name}`;
}

/** Default (amd64) images of constructs used without a model; a model's shard uses `shardImages`. */
export const DEFAULT_IMAGES = {
  google: defaultImage("google", "amd64"),
  aws: defaultImage("aws", "amd64"),
} as const;

/**
 * The images a shard's managers and workers boot: the model's, or the default of their architecture
 * (managers: Ubuntu 24.04; workers: an image with Docker on AWS, Ubuntu 24.04 on Google; ./worker-image.ts).
 */
export function shardImages(model: RunnerModel, shard: Shard): { managers: string; workers: string } {
  const { provider } = model.cloud;
  return {
    managers: shard.managers.image ?? defaultImage(provider, machineArchitecture(provider, shard.managers.machine_type)),
    workers: shard.workers.image ?? defaultWorkerImage(provider, machineArchitecture(provider, shard.workers.machine_type)),
  };
}

/** AWS CloudWatch log group the managers of a shard ship gitlab-runner's log to. */
export function logGroupName(model: RunnerModel, shard: Shard): string {
  return `/gitlab-runner/${model.cell.id}/${cloudShardName(shard)}`;
}
