/**
 * Google-only names derived from a model, next to the shared contract in lib/model/names.ts.
 * Like those, they are plain strings known at synth time and renaming one replaces
 * real infrastructure: treat them as a public contract of the Google constructs.
 *
 * `googleDerivedNames` lists every name a Google model derives with the rule Google applies to it
 * (lib/names/cloud-name-rules.ts); `prepare` checks them, so the constructs never meet a name Google refuses.
 */
import { GOOGLE_NAME_RULES, type DerivedName } from "../names/cloud-name-rules";
import { fitName } from "../names/fit-name";
import {
  cacheBucketName,
  managerName,
  managerServiceAccountId,
  workerServiceAccountId,
  secretLocation,
  shardPrefix,
  workerGroupName,
} from "./names";
import type { RunnerModel, Shard } from "./schema";

/** The VPC network created for a cell (when the model names no existing one). */
export function fleetNetworkName(model: RunnerModel): string {
  return fitName(`${model.cell.id}-runners`, 63);
}

/** The subnetwork, Cloud Router and Cloud NAT of the created network. */
export function createdNetworkNames(model: RunnerModel): { subnetwork: string; router: string; nat: string } {
  const network = fleetNetworkName(model);
  return {
    subnetwork: fitName(`${network}-${model.cloud.region}`, 63),
    router: fitName(`${network}-router`, 63),
    nat: fitName(`${network}-nat`, 63),
  };
}

/** Reserved Cloud NAT addresses, network.nat_addresses of them: <network>-nat-1, -2, ... */
export function natAddressNames(model: RunnerModel): string[] {
  const network = fleetNetworkName(model);
  return Array.from({ length: model.network.nat_addresses }, (_, index) => fitName(`${network}-nat-${index + 1}`, 63));
}

/** The firewall rules of a shard: who may reach its managers and workers. */
export function shardFirewallNames(
  model: RunnerModel,
  shard: Shard,
): { workerSsh: string; managerMetrics: string; managerSsh: string; denyOtherIngress: string } {
  const rule = (suffix: string) => fitName(`${shardPrefix(model, shard)}-${suffix}`, 63);
  return {
    workerSsh: rule("worker-ssh"),
    managerMetrics: rule("manager-metrics"),
    managerSsh: rule("manager-ssh"),
    denyOtherIngress: rule("deny-other-ingress"),
  };
}

/** Network tag on every runner manager VM of a shard; the worker SSH firewall rule admits only this tag. */
export function managerNetworkTag(model: RunnerModel, shard: Shard): string {
  return fitName(`${shardPrefix(model, shard)}-manager`, 63);
}

/** Network tag on every worker VM of a shard; the target of the shard's SSH firewall rule. */
export function workerNetworkTag(model: RunnerModel, shard: Shard): string {
  return fitName(`${shardPrefix(model, shard)}-worker`, 63);
}

/** Health check (port 9252) that autoheals a shard's manager groups. */
export function managerHealthCheckName(model: RunnerModel, shard: Shard): string {
  return fitName(`${shardPrefix(model, shard)}-mgr-health`, 63);
}

/**
 * Custom role holding exactly the fleeting permissions of a shard's managers.
 * Role ids allow letters, digits, '_' and '.', so the dashes of the names become underscores.
 */
export function fleetingRoleId(model: RunnerModel, shard: Shard): string {
  return fitName(`gitlabRunnerFleeting_${shardPrefix(model, shard)}`, 64).replace(/-/g, "_");
}

/**
 * Template names must be unique while the group still uses the old template, so templates
 * take a prefix (Terraform appends a suffix) and are created before the old one is destroyed.
 * Prefixes longer than 37 characters get a shorter, collision-prone suffix.
 */
export function templateNamePrefix(groupName: string): string {
  return `${fitName(groupName, GOOGLE_NAME_RULES.templateNamePrefix.maxLength - 1)}-`;
}

/** Every name a Google Cloud model derives, with the rule Google applies to it. */
export function googleDerivedNames(model: RunnerModel): DerivedName[] {
  const names: DerivedName[] = [];
  const rules = GOOGLE_NAME_RULES;
  if (!model.network.existing) {
    names.push({ name: fleetNetworkName(model), rule: rules.computeName, from: [["cell", "id"]] });
    for (const name of Object.values(createdNetworkNames(model))) names.push({ name, rule: rules.computeName, from: [["cell", "id"], ["cloud", "region"]] });
    for (const name of natAddressNames(model)) names.push({ name, rule: rules.computeName, from: [["cell", "id"], ["network", "nat_addresses"]] });
  }
  model.shards.forEach((shard, index) => {
    const from = [["shards", index, "name"], ["cell", "id"]];
    for (let slot = 0; slot < shard.managers.count; slot++) {
      for (const group of [managerName(model, shard, slot), workerGroupName(model, shard, slot)]) {
        // The group's name is also the base name of its instances and the prefix of its templates.
        names.push({ name: group, rule: rules.computeName, from });
        names.push({ name: group, rule: rules.baseInstanceName, from });
        names.push({ name: templateNamePrefix(group), rule: rules.templateNamePrefix, from });
      }
    }
    names.push({ name: managerHealthCheckName(model, shard), rule: rules.computeName, from });
    for (const name of Object.values(shardFirewallNames(model, shard))) names.push({ name, rule: rules.computeName, from });
    names.push({ name: managerNetworkTag(model, shard), rule: rules.computeName, from });
    names.push({ name: workerNetworkTag(model, shard), rule: rules.computeName, from });
    names.push({ name: managerServiceAccountId(model, shard), rule: rules.serviceAccountId, from });
    names.push({ name: workerServiceAccountId(model, shard), rule: rules.serviceAccountId, from });
    names.push({ name: fleetingRoleId(model, shard), rule: rules.customRoleId, from });
    if (shard.cache.enabled) {
      names.push({ name: cacheBucketName(model, shard), rule: rules.bucketName, from: [...from, ["cloud", "project"]] });
    }
    if (model.secrets.store === "google-secret-manager") {
      names.push({ name: secretLocation(model, shard).googleSecretId, rule: rules.secretId, from: [["secrets", "prefix"], ...from] });
    }
  });
  return names;
}
