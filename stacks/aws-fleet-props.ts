/**
 * An AWS model as AwsCellFleet's props: every name from lib/model (names.ts, aws-names.ts), every VM's
 * startup script from the files rendered once for the synth. The model passed every rule when it was
 * loaded (lib/model/load.ts), so nothing is checked again here.
 */
import { awsShardMetricNamespace } from "../lib/contract/fleet-contract";
import type { AwsCellFleetProps, AwsShardProps } from "../constructs/aws/aws-cell-fleet";
import {
  alertTopicName,
  fleetDashboardName,
  jobMetricFilterName,
  jobsFailingAlarmName,
  bootFailedAlarmName,
  jobRequestsFailingAlarmName,
  managerRoleName,
  managerHeartbeatAlarmName,
  managerUnhealthyAlarmName,
  natAlarmName,
  natGatewayZones,
  securityGroupName,
  workersNearMaxAlarmName,
} from "../lib/model/aws-names";
import { parseGoDurationSeconds } from "../lib/model/duration";
import { cacheBucketName, liveConfigLocation, logGroupName, managerName, secretLocation, shardImages, shardLabels, workerGroupName } from "../lib/model/names";
import { liveConfigContent } from "../lib/render/live-config";
import type { AwsCloudConfig, RunnerModel, Shard } from "../lib/model/schema";
import { awsRootDeviceName } from "../lib/model/worker-image";
import { drainHookHeartbeatSeconds } from "../lib/render/graceful-stop";
import { deployedModel } from "../lib/model/deployed-model";
import type { RenderedShardFiles } from "../lib/render/rendered-files";

export type AwsRunnerModel = RunnerModel & { readonly cloud: AwsCloudConfig };

/** `rendered` holds the model's shards' files, in model order (lib/render/rendered-files.ts). */
export function awsFleetProps(model: AwsRunnerModel, rendered: readonly RenderedShardFiles[]): AwsCellFleetProps {
  // Every cloud name from the model as the cloud knows it (lib/model/deployed-model.ts); the shards' construct
  // scopes and outputs from the model's names, a renamed shard's resources moved from its former scope.
  const props = cloudProps(deployedModel(model), rendered);
  return {
    ...props,
    shards: props.shards.map((shard, index) => ({ ...shard, name: model.shards[index].name, renamedFrom: model.shards[index].renamed_from })),
  };
}

function cloudProps(model: AwsRunnerModel, rendered: readonly RenderedShardFiles[]): AwsCellFleetProps {
  const { cloud, network } = model;
  return {
    network: {
      namePrefix: model.cell.id,
      securityGroupNames: {
        managers: securityGroupName(model.cell.id, "runner-managers"),
        workers: securityGroupName(model.cell.id, "runner-workers"),
        ssmEndpoints: securityGroupName(model.cell.id, "ssm-endpoints"),
      },
      region: cloud.region,
      availabilityZones: cloud.availability_zones,
      vpcCidr: network.existing ? undefined : network.cidr,
      existing: network.existing && { vpcId: network.existing.network, privateSubnetIds: network.existing.subnets },
      natGateway: network.nat !== false,
      natGatewayPerAvailabilityZone: network.nat === "per-zone",
      monitoringCidrs: network.monitoring_cidrs,
      tags: shardLabels(model),
    },
    shards: model.shards.map((shard, index) => shardProps(model, shard, rendered[index])),
    monitoring: model.monitoring.enabled ? monitoringProps(model) : undefined,
  };
}

function shardProps(model: AwsRunnerModel, shard: Shard, files: RenderedShardFiles): AwsShardProps {
  const { cloud } = model;
  const tags = shardLabels(model, shard);
  const images = shardImages(model, shard);
  const slots = Array.from({ length: shard.managers.count }, (_, slot) => slot);
  const managerNames = slots.map((slot) => managerName(model, shard, slot));
  return {
    name: shard.name,
    liveConfig: {
      slots: slots.map((slot) => ({ parameterName: liveConfigLocation(model, shard, slot).awsParameterName, content: liveConfigContent(files.managers[slot].configToml.content) })),
      tags,
    },
    workers: {
      groups: slots.map((slot) => ({ name: workerGroupName(model, shard, slot) })),
      imageId: images.workers,
      rootDeviceName: awsRootDeviceName(images.workers),
      instanceType: shard.workers.machine_type,
      userData: files.workerStartupScript.content,
      maxInstances: shard.workers.max_instances,
      spot: shard.workers.spot,
      additionalSpotInstanceTypes: [...shard.workers.alternative_machine_types],
      rootVolumeSizeGib: shard.workers.disk_size_gb,
      tags,
    },
    cache: shard.cache.enabled ? { bucketName: cacheBucketName(model, shard), expirationDays: shard.cache.expiry_days, tags } : undefined,
    iam: {
      roleName: managerRoleName(model, shard),
      region: cloud.region,
      accountId: cloud.account_id,
      workerUsername: shard.workers.username,
      managerGroupNames: managerNames,
      tokenParameterName: model.secrets.store === "aws-ssm" ? secretLocation(model, shard).awsParameterName : undefined,
      logGroupName: model.monitoring.enabled ? logGroupName(model, shard) : undefined,
      bootMetricNamespace: awsShardMetricNamespace(model.cell.id, shard.name),
      tags,
    },
    managers: {
      slots: managerNames.map((name, slot) => ({ name, userData: files.managers[slot].startupScript.content })),
      imageId: images.managers,
      instanceType: shard.managers.machine_type,
      rootVolumeSizeGib: shard.managers.disk_size_gb,
      drainTimeoutSeconds: drainHookHeartbeatSeconds(shard),
      associatePublicIpAddress: model.network.public_ips,
      tags,
    },
  };
}

function monitoringProps(model: AwsRunnerModel): AwsCellFleetProps["monitoring"] {
  const { thresholds, notifications } = model.monitoring;
  const absentSeconds = parseGoDurationSeconds(thresholds.manager_absent_for) ?? 300;
  const cell = model.cell.id;
  return {
    namePrefix: cell,
    topicName: alertTopicName(cell),
    dashboardName: fleetDashboardName(cell),
    region: model.cloud.region,
    shards: model.shards.map((shard) => {
      const slots = Array.from({ length: shard.managers.count }, (_, slot) => slot);
      const managerGroupNames = slots.map((slot) => managerName(model, shard, slot));
      const workerGroupNames = slots.map((slot) => workerGroupName(model, shard, slot));
      return {
        name: shard.name,
        logGroupName: logGroupName(model, shard),
        managerGroupNames,
        workerGroupNames,
        maxInstances: shard.workers.max_instances,
        names: {
          jobsFailedFilter: jobMetricFilterName(cell, shard.name, "jobs-failed"),
          jobsFinishedFilter: jobMetricFilterName(cell, shard.name, "jobs-finished"),
          jobsFailingAlarm: jobsFailingAlarmName(cell, shard.name),
          bootFailedAlarm: bootFailedAlarmName(cell, shard.name),
          jobRequestsFailedFilter: jobMetricFilterName(cell, shard.name, "job-requests-failed"),
          jobRequestsFailingAlarm: jobRequestsFailingAlarmName(cell, shard.name),
          managerUnhealthyAlarms: managerGroupNames.map(managerUnhealthyAlarmName),
          managerHeartbeatAlarms: managerGroupNames.map(managerHeartbeatAlarmName),
          workersNearMaxAlarms: workerGroupNames.map(workersNearMaxAlarmName),
        },
      };
    }),
    natAlarmNames: Object.fromEntries(
      natGatewayZones(model).map((zone) => [zone, { portAllocationErrors: natAlarmName(cell, zone, "port-allocation-errors"), packetsDropped: natAlarmName(cell, zone, "packets-dropped") }]),
    ),
    // Group metrics come once a minute: round the model's duration up to whole minutes.
    managerAbsentForSeconds: Math.max(60, Math.ceil(absentSeconds / 60) * 60),
    jobFailureRatio: thresholds.job_failure_ratio,
    workersNearMax: thresholds.workers_near_max,
    emails: notifications.emails,
    webhooks: notifications.webhooks,
    topicArns: notifications.channels,
    tags: shardLabels(model),
  };
}
