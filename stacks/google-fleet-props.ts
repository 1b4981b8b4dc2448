/**
 * A Google Cloud model as GoogleCellFleet's props: every name from lib/model (names.ts, google-names.ts),
 * every VM's startup script from the files rendered once for the synth. The model passed every rule when it
 * was loaded (lib/model/load.ts), so nothing is checked again here.
 */
import type { GoogleCellFleetProps, GoogleShardProps } from "../constructs/google/google-cell-fleet";
import { parseGoDurationSeconds } from "../lib/model/duration";
import {
  createdNetworkNames,
  natAddressNames,
  fleetingRoleId,
  fleetNetworkName,
  managerHealthCheckName,
  managerNetworkTag,
  shardFirewallNames,
  templateNamePrefix,
  workerNetworkTag,
} from "../lib/model/google-names";
import {
  cacheBucketName,
  managerName,
  managerServiceAccountId,
  liveConfigLocation,
  secretLocation,
  shardImages,
  workerServiceAccountId,
  shardLabels,
  shardPrefix,
  workerGroupName,
  zoneOfSlot,
} from "../lib/model/names";
import type { GoogleCloudConfig, RunnerModel, Shard } from "../lib/model/schema";
import { deployedModel } from "../lib/model/deployed-model";
import type { RenderedShardFiles } from "../lib/render/rendered-files";
import { liveConfigContent } from "../lib/render/live-config";

export type GoogleRunnerModel = RunnerModel & { readonly cloud: GoogleCloudConfig };

/** `rendered` holds the model's shards' files, in model order (lib/render/rendered-files.ts). */
export function googleFleetProps(model: GoogleRunnerModel, rendered: readonly RenderedShardFiles[]): GoogleCellFleetProps {
  // Every cloud name from the model as the cloud knows it (lib/model/deployed-model.ts); the shards' construct
  // scopes and outputs from the model's names, a renamed shard's resources moved from its former scope.
  const props = cloudProps(deployedModel(model), rendered);
  return {
    ...props,
    shards: props.shards.map((shard, index) => ({ ...shard, name: model.shards[index].name, renamedFrom: model.shards[index].renamed_from })),
  };
}

function cloudProps(model: GoogleRunnerModel, rendered: readonly RenderedShardFiles[]): GoogleCellFleetProps {
  const { cloud, network } = model;
  return {
    project: cloud.project,
    region: cloud.region,
    network: {
      name: fleetNetworkName(model),
      createdNames: network.existing ? undefined : createdNetworkNames(model),
      ipCidrRange: network.existing ? undefined : network.cidr,
      existingNetwork: network.existing?.network,
      existingSubnetwork: network.existing?.subnets[0],
      // Cloud NAT is regional: it serves every zone, so "per-zone" needs nothing more.
      nat: network.nat !== false,
      natPortsPerVm: { min: network.nat_ports.min_per_vm, max: network.nat_ports.max_per_vm },
      natAddressNames: network.existing || network.nat === false ? [] : natAddressNames(model),
      monitoringSourceRanges: network.monitoring_cidrs,
      shards: model.shards.map((shard) => ({
        namePrefix: shardPrefix(model, shard),
        ruleNames: shardFirewallNames(model, shard),
        managerTag: managerNetworkTag(model, shard),
        workerTag: workerNetworkTag(model, shard),
      })),
    },
    shards: model.shards.map((shard, index) => shardProps(model, shard, rendered[index])),
    monitoring: model.monitoring.enabled ? monitoringProps(model) : undefined,
  };
}

function shardProps(model: GoogleRunnerModel, shard: Shard, files: RenderedShardFiles): GoogleShardProps {
  const { cloud } = model;
  const slots = Array.from({ length: shard.managers.count }, (_, slot) => slot);
  const labels = shardLabels(model, shard);
  const images = shardImages(model, shard);
  const usesSecretManager = model.secrets.store === "google-secret-manager";
  const managerGroups = slots.map((slot) => ({ name: managerName(model, shard, slot), zone: zoneOfSlot(cloud.zones, slot) }));
  // Worker group i belongs to manager slot i alone, in the same zone.
  const workerGroups = slots.map((slot) => ({ name: workerGroupName(model, shard, slot), zone: zoneOfSlot(cloud.zones, slot) }));
  return {
    name: shard.name,
    liveConfig: {
      slots: slots.map((slot) => ({ secretId: liveConfigLocation(model, shard, slot).googleSecretId, content: liveConfigContent(files.managers[slot].configToml.content) })),
      labels,
    },
    iam: {
      roleId: fleetingRoleId(model, shard),
      serviceAccountId: managerServiceAccountId(model, shard),
      workerGroups,
      managerGroups,
      tokenSecretId: usesSecretManager ? secretLocation(model, shard).googleSecretId : undefined,
    },
    cache: shard.cache.enabled ? { name: cacheBucketName(model, shard), expiryDays: shard.cache.expiry_days, labels } : undefined,
    managers: {
      slots: managerGroups.map((group, slot) => ({
        ...group,
        templateNamePrefix: templateNamePrefix(group.name),
        startupScript: files.managers[slot].startupScript.content,
      })),
      machineType: shard.managers.machine_type,
      diskSizeGb: shard.managers.disk_size_gb,
      image: images.managers,
      networkTags: [managerNetworkTag(model, shard)],
      externalIp: model.network.public_ips,
      labels: { ...labels, "runner-role": "manager" },
      healthCheckName: managerHealthCheckName(model, shard),
      // A token placed on the VM by hand would not survive a recreated VM.
      autohealing: usesSecretManager,
    },
    // The workers' boot logs reach Cloud Logging through a log-writing identity (constructs/google/worker-log-identity.ts).
    workerLogs: { serviceAccountId: workerServiceAccountId(model, shard) },
    workers: {
      groups: workerGroups.map((group) => ({ ...group, templateNamePrefix: templateNamePrefix(group.name) })),
      machineType: shard.workers.machine_type,
      diskSizeGb: shard.workers.disk_size_gb,
      image: images.workers,
      networkTags: [workerNetworkTag(model, shard)],
      labels: { ...labels, "runner-role": "worker" },
      spot: shard.workers.spot,
      startupScript: files.workerStartupScript.content,
    },
  };
}

function monitoringProps(model: GoogleRunnerModel): GoogleCellFleetProps["monitoring"] {
  const { thresholds, notifications } = model.monitoring;
  return {
    cellId: model.cell.id,
    shards: model.shards.map((shard) => ({ name: shard.name, managerCount: shard.managers.count })),
    emails: notifications.emails,
    webhookUrls: notifications.webhooks,
    existingChannels: notifications.channels,
    managerAbsentForSeconds: parseGoDurationSeconds(thresholds.manager_absent_for),
    jobFailureRatio: thresholds.job_failure_ratio,
    concurrencySaturation: thresholds.concurrency_saturation,
    workersNearMax: thresholds.workers_near_max,
    natGatewayName: model.network.existing || model.network.nat === false ? undefined : createdNetworkNames(model).nat,
    userLabels: shardLabels(model),
  };
}
