/**
 * AWS names: the ones only the AWS constructs use, next to the shared contract in lib/model/names.ts,
 * and `awsDerivedNames`, every name an AWS model derives with the rule AWS applies to it
 * (lib/names/cloud-name-rules.ts). The constructs build their names with these functions and `prepare`
 * checks the same names, so the two never drift. Renaming one replaces real infrastructure.
 */
import { AWS_NAME_RULES, type DerivedName } from "../names/cloud-name-rules";
import { fitName } from "../names/fit-name";
import { cacheBucketName, logGroupName, managerName, secretLocation, shardPrefix, workerGroupName } from "./names";
import type { RunnerModel, Shard } from "./schema";

/** IAM role (and instance profile) of a shard's managers; IAM names are account-wide, so the cell is in it. */
export function managerRoleName(model: RunnerModel, shard: Shard): string {
  return fitName(`${shardPrefix(model, shard)}-runner-manager`, AWS_NAME_RULES.iamRoleName.maxLength);
}

/** Security groups of the network (`namePrefix` is the cell id). */
export function securityGroupName(namePrefix: string, role: "runner-managers" | "runner-workers" | "ssm-endpoints"): string {
  return `${namePrefix}-${role}`;
}

/** Alarm: a manager slot's group has no instance in service. */
export function managerUnhealthyAlarmName(managerGroupName: string): string {
  return `${managerGroupName}-unhealthy`;
}

/** Alarm: a manager slot's heartbeat says no gitlab-runner runs there, or is missing. */
export function managerHeartbeatAlarmName(managerGroupName: string): string {
  return `${managerGroupName}-heartbeat`;
}

/** Alarm of the NAT gateway in `zone` (one per zone with `nat: per-zone`, else the first zone's). */
export function natAlarmName(namePrefix: string, zone: string, kind: "port-allocation-errors" | "packets-dropped"): string {
  return `${namePrefix}-nat-${zone}-${kind}`;
}

/** The zones whose NAT gateway the stack creates: none for an existing network or `nat: false`. */
export function natGatewayZones(model: RunnerModel): string[] {
  if (model.cloud.provider !== "aws" || model.network.existing || model.network.nat === false) return [];
  return model.network.nat === "per-zone" ? [...model.cloud.availability_zones] : model.cloud.availability_zones.slice(0, 1);
}

/** Alarm: a worker group is near its max instances. */
export function workersNearMaxAlarmName(workerGroupName: string): string {
  return `${workerGroupName}-near-max`;
}

/** Alarm: a shard's jobs fail for system reasons. `namePrefix` is the cell id. */
export function jobsFailingAlarmName(namePrefix: string, shardName: string): string {
  return `${namePrefix}-${shardName}-jobs-failing`;
}

/** Alarm: a shard's managers fail to get jobs from GitLab (403, transport errors, 5xx). */
export function jobRequestsFailingAlarmName(namePrefix: string, shardName: string): string {
  return `${namePrefix}-${shardName}-job-requests-failing`;
}

/** Alarm: a manager of the shard reported a failed boot (BootFailures). */
export function bootFailedAlarmName(namePrefix: string, shardName: string): string {
  return `${namePrefix}-${shardName}-boot-failed`;
}

/** Metric filter of a shard's log group. */
export function jobMetricFilterName(namePrefix: string, shardName: string, suffix: "jobs-failed" | "jobs-finished" | "job-requests-failed"): string {
  return `${namePrefix}-${shardName}-${suffix}`;
}

export function alertTopicName(namePrefix: string): string {
  return `${namePrefix}-runner-alerts`;
}

export function fleetDashboardName(namePrefix: string): string {
  return `${namePrefix}-runner-fleet`;
}

/** Every name an AWS model derives, with the rule AWS applies to it. */
export function awsDerivedNames(model: RunnerModel): DerivedName[] {
  const rules = AWS_NAME_RULES;
  const cell = model.cell.id;
  const cellFrom = [["cell", "id"]];
  const names: DerivedName[] = [];
  if (!model.network.existing) {
    for (const role of ["runner-managers", "runner-workers", "ssm-endpoints"] as const) {
      names.push({ name: securityGroupName(cell, role), rule: rules.securityGroupName, from: cellFrom });
    }
  }
  if (model.monitoring.enabled) {
    names.push({ name: alertTopicName(cell), rule: rules.snsTopicName, from: cellFrom });
    names.push({ name: fleetDashboardName(cell), rule: rules.dashboardName, from: cellFrom });
    for (const zone of natGatewayZones(model)) {
      for (const kind of ["port-allocation-errors", "packets-dropped"] as const) {
        names.push({ name: natAlarmName(cell, zone, kind), rule: rules.alarmName, from: [...cellFrom, ["cloud", "availability_zones"]] });
      }
    }
  }
  model.shards.forEach((shard, index) => {
    const from = [["shards", index, "name"], ["cell", "id"]];
    for (let slot = 0; slot < shard.managers.count; slot++) {
      const manager = managerName(model, shard, slot);
      const workers = workerGroupName(model, shard, slot);
      for (const group of [manager, workers]) {
        names.push({ name: group, rule: rules.autoScalingGroupName, from });
        names.push({ name: group, rule: rules.launchTemplateName, from });
      }
      if (model.monitoring.enabled) {
        names.push({ name: managerUnhealthyAlarmName(manager), rule: rules.alarmName, from });
        names.push({ name: managerHeartbeatAlarmName(manager), rule: rules.alarmName, from });
        names.push({ name: workersNearMaxAlarmName(workers), rule: rules.alarmName, from });
      }
    }
    names.push({ name: managerRoleName(model, shard), rule: rules.iamRoleName, from });
    names.push({ name: managerRoleName(model, shard), rule: rules.instanceProfileName, from });
    if (shard.cache.enabled) {
      const owner = model.cloud.provider === "aws" && model.cloud.account_id ? ["cloud", "account_id"] : ["cloud", "region"];
      names.push({ name: cacheBucketName(model, shard), rule: rules.bucketName, from: [...from, owner] });
    }
    if (model.monitoring.enabled) {
      names.push({ name: logGroupName(model, shard), rule: rules.logGroupName, from });
      names.push({ name: jobsFailingAlarmName(cell, shard.name), rule: rules.alarmName, from });
      names.push({ name: bootFailedAlarmName(cell, shard.name), rule: rules.alarmName, from });
      names.push({ name: jobRequestsFailingAlarmName(cell, shard.name), rule: rules.alarmName, from });
      for (const suffix of ["jobs-failed", "jobs-finished", "job-requests-failed"] as const) {
        names.push({ name: jobMetricFilterName(cell, shard.name, suffix), rule: rules.metricFilterName, from });
      }
    }
    if (model.secrets.store === "aws-ssm") {
      names.push({ name: secretLocation(model, shard).awsParameterName, rule: rules.ssmParameterName, from: [["secrets", "prefix"], ...from] });
    }
  });
  return names;
}
