/**
 * A cell's whole runner fleet on Google Cloud, from its runner model: one network, and per shard
 * (construct scope "shard-<name>") the managers' IAM, the cache bucket, the manager groups and
 * the worker groups; plus monitoring. The stack (provider, backend) is created by the caller.
 */
import { TerraformOutput } from "cdktf";
import { Construct } from "constructs";
import { UserInputError } from "../../lib/errors";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import {
  cacheBucketName,
  shardImages,
  managerName,
  managerServiceAccountId,
  secretLocation,
  shardLabels,
  shardPrefix,
  workerGroupName,
  zoneOfSlot,
} from "../../lib/model/names";
import type { GoogleCloudConfig, RunnerModel, Shard } from "../../lib/model/schema";
import { renderManagerStartupScript, renderWorkerStartupScript } from "../../lib/render/manager-files";
import { CacheBucket } from "./cache-bucket";
import { FleetMonitoring } from "./fleet-monitoring";
import { FleetingIam } from "./fleeting-iam";
import {
  fleetingRoleId,
  fleetNetworkName,
  managerHealthCheckName,
  managerNetworkTag,
  workerNetworkTag,
} from "../../lib/model/google-names";
import { FleetNetwork } from "./network";
import { RunnerManagerGroup } from "./runner-manager-group";
import { WorkerInstanceGroup } from "./worker-instance-group";

export interface GoogleCellFleetProps {
  /** The validated runner model of the cell; `cloud.provider` must be "google". */
  readonly model: RunnerModel;
}

/** The constructs of one shard. */
export interface GoogleShardFleet {
  readonly shard: Shard;
  readonly scope: Construct;
  readonly iam: FleetingIam;
  readonly cache?: CacheBucket;
  readonly managers: RunnerManagerGroup;
  readonly workers: WorkerInstanceGroup;
}

export class GoogleCellFleet extends Construct {
  public readonly model: RunnerModel;
  public readonly cloud: GoogleCloudConfig;
  public readonly network: FleetNetwork;
  /** Per shard, in model order. */
  public readonly shards: readonly GoogleShardFleet[];
  public readonly monitoring?: FleetMonitoring;

  constructor(scope: Construct, id: string, props: GoogleCellFleetProps) {
    super(scope, id);
    const { model } = props;
    if (model.cloud.provider !== "google") {
      throw new UserInputError(
        `Cell ${model.cell.id}: cloud.provider is "${model.cloud.provider}"; the Google Cloud fleet needs "google".`,
      );
    }
    if (model.secrets.store === "aws-ssm") {
      throw new UserInputError(
        `Cell ${model.cell.id}: secrets.store is "aws-ssm", which Google Cloud managers cannot read; expected "google-secret-manager" or "local".`,
      );
    }
    this.model = model;
    const cloud = model.cloud;
    this.cloud = cloud;

    this.network = new FleetNetwork(this, "network", {
      name: fleetNetworkName(model),
      project: cloud.project,
      region: cloud.region,
      ipCidrRange: model.network.existing ? undefined : model.network.cidr,
      existingNetwork: model.network.existing?.network,
      existingSubnetwork: model.network.existing?.subnets[0],
      // Cloud NAT is regional: it serves every zone, so "per-zone" needs nothing more.
      nat: model.network.nat !== false,
      monitoringSourceRanges: model.network.monitoring_cidrs,
      shards: model.shards.map((shard) => ({
        namePrefix: shardPrefix(model, shard),
        managerTag: managerNetworkTag(model, shard),
        workerTag: workerNetworkTag(model, shard),
      })),
    });

    this.shards = model.shards.map((shard) => this.addShard(model, cloud, shard));

    if (model.monitoring.enabled) {
      const { thresholds, notifications } = model.monitoring;
      this.monitoring = new FleetMonitoring(this, "monitoring", {
        project: cloud.project,
        cellId: model.cell.id,
        shards: model.shards.map((shard) => ({ name: shard.name, managerCount: shard.managers.count })),
        emails: notifications.emails,
        webhookUrls: notifications.webhooks,
        existingChannels: notifications.channels,
        managerAbsentForSeconds: parseGoDurationSeconds(thresholds.manager_absent_for),
        jobFailureRatio: thresholds.job_failure_ratio,
        concurrencySaturation: thresholds.concurrency_saturation,
        workersNearMax: thresholds.workers_near_max,
        userLabels: shardLabels(model),
      });
    }

    this.addOutputs();
  }

  private addShard(model: RunnerModel, cloud: GoogleCloudConfig, shard: Shard): GoogleShardFleet {
    if (!Number.isInteger(shard.managers.count) || shard.managers.count < 1) {
      throw new UserInputError(
        `Cell ${model.cell.id}, shard ${shard.name}: managers.count is ${shard.managers.count}; expected at least 1 manager slot.`,
      );
    }
    const scope = new Construct(this, `shard-${shard.name}`);
    const slots = Array.from({ length: shard.managers.count }, (_, slot) => slot);
    const labels = shardLabels(model, shard);
    const usesSecretManager = model.secrets.store === "google-secret-manager";

    // Worker group i belongs to manager slot i alone, in the same zone.
    const workerGroups = slots.map((slot) => ({
      name: workerGroupName(model, shard, slot),
      zone: zoneOfSlot(cloud.zones, slot),
    }));

    const iam = new FleetingIam(scope, "iam", {
      project: cloud.project,
      roleId: fleetingRoleId(model, shard),
      serviceAccountId: managerServiceAccountId(model, shard),
      workerGroups,
      managerGroups: slots.map((slot) => ({ name: managerName(model, shard, slot), zone: zoneOfSlot(cloud.zones, slot) })),
      tokenSecretId: usesSecretManager ? secretLocation(model, shard).googleSecretId : undefined,
    });

    const cache = shard.cache.enabled
      ? new CacheBucket(scope, "cache", {
          name: cacheBucketName(model, shard),
          project: cloud.project,
          location: cloud.region,
          expiryDays: shard.cache.expiry_days,
          labels,
          objectAdminServiceAccountEmails: [iam.serviceAccountEmail],
        })
      : undefined;

    const managers = new RunnerManagerGroup(scope, "managers", {
      project: cloud.project,
      region: cloud.region,
      slots: slots.map((slot) => ({
        name: managerName(model, shard, slot),
        zone: zoneOfSlot(cloud.zones, slot),
        startupScript: renderManagerStartupScript(model, shard, slot),
      })),
      machineType: shard.managers.machine_type,
      diskSizeGb: shard.managers.disk_size_gb,
      image: shardImages(model, shard).managers,
      subnetwork: this.network.subnetwork,
      networkTags: [managerNetworkTag(model, shard)],
      serviceAccountEmail: iam.serviceAccountEmail,
      externalIp: model.network.public_ips,
      labels: { ...labels, "runner-role": "manager" },
      healthCheckName: managerHealthCheckName(model, shard),
      // A token placed on the VM by hand would not survive a recreated VM.
      autohealing: usesSecretManager,
    });

    const workers = new WorkerInstanceGroup(scope, "workers", {
      project: cloud.project,
      region: cloud.region,
      groups: workerGroups,
      machineType: shard.workers.machine_type,
      diskSizeGb: shard.workers.disk_size_gb,
      image: shardImages(model, shard).workers,
      subnetwork: this.network.subnetwork,
      networkTags: [workerNetworkTag(model, shard)],
      labels: { ...labels, "runner-role": "worker" },
      spot: shard.workers.spot,
      startupScript: renderWorkerStartupScript(model, shard),
    });

    return { shard, scope, iam, cache, managers, workers };
  }

  /** Outputs named after their resources, keyed by shard name. */
  private addOutputs(): void {
    const byShard = <T>(value: (fleet: GoogleShardFleet) => T) =>
      Object.fromEntries(this.shards.map((fleet) => [fleet.shard.name, value(fleet)]));
    const outputs: Array<{ name: string; description: string; value: unknown }> = [
      { name: "network_self_link", description: "Network of the fleet (self link or name).", value: this.network.network },
      { name: "subnetwork_self_link", description: "Subnetwork of the fleet (self link or name).", value: this.network.subnetwork },
      {
        name: "manager_group_names",
        description: "Per shard, the runner manager instance groups in slot order (one VM each).",
        value: byShard((fleet) => fleet.managers.groupNames),
      },
      {
        name: "worker_group_names",
        description: "Per shard, the worker instance groups in slot order; group i is driven by manager slot i only.",
        value: byShard((fleet) => fleet.workers.groupNames),
      },
      {
        name: "manager_service_account_emails",
        description: "Per shard, the service account of its runner managers.",
        value: byShard((fleet) => fleet.iam.serviceAccountEmail),
      },
      {
        name: "cache_bucket_names",
        description: "Per shard with a cache, its GCS cache bucket.",
        value: Object.fromEntries(this.shards.flatMap((fleet) => (fleet.cache ? [[fleet.shard.name, fleet.cache.bucketName]] : []))),
      },
    ];
    for (const output of outputs) {
      const terraformOutput = new TerraformOutput(this, `output-${output.name}`, { value: output.value, description: output.description });
      // Output names are what pipelines read: keep them free of construct-path hashes.
      terraformOutput.overrideLogicalId(output.name);
    }
  }
}
