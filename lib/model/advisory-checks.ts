/**
 * Findings that do not stop a model but point at a likely mistake: a region the
 * clouds do not list (a typo fails only at apply time), and shards that GitLab
 * cannot tell apart because they carry the same tags.
 */
import { CLOUD_REGIONS_CHECKED_ON } from "./cloud-regions";
import type { CrossCheckFinding } from "./finding";
import type { RunnerModel } from "./schema";
import { checkZonesExist } from "./zone-checks";
import { knownRegions, nearRegion, regionTypoFinding } from "./region-typo";
import { unusedSettings } from "./unused-settings";
import { spotChecks } from "./spot-checks";

export function advisoryChecks(model: RunnerModel): CrossCheckFinding[] {
  return [
    ...checkRegion(model),
    ...checkZonesExist(model),
    ...checkShardTags(model),
    ...checkUntaggedShards(model),
    ...spotChecks(model),
    ...unusedSettings(model),
    ...checkSingleNat(model),
    ...checkNatAddresses(model),
    ...model.shards.flatMap(checkDindMount),
  ];
}

/**
 * One NAT gateway for a VPC over several zones: when its zone fails, every zone loses egress (the managers
 * lose GitLab), and the other zones' traffic to it is billed as cross-zone. AWS recommends a NAT gateway per
 * zone ("create a NAT gateway in each Availability Zone", docs.aws.amazon.com/vpc/latest/userguide/nat-gateway-basics.html).
 * One NAT stays a valid choice (it costs less), so this warns on every run that prints warnings.
 */
function checkSingleNat(model: RunnerModel): CrossCheckFinding[] {
  const { cloud, network } = model;
  if (cloud.provider !== "aws" || network.existing || network.nat !== true || cloud.availability_zones.length < 2) return [];
  return [
    {
      severity: "warning",
      path: ["network", "nat"],
      expected: `"per-zone" for production: one NAT gateway in ${cloud.availability_zones[0]} serves all ${cloud.availability_zones.length} zones, so an outage of that zone cuts every manager off GitLab and the other zones pay cross-zone charges (true keeps one NAT gateway knowingly)`,
      received: "true",
    },
  ];
}

function checkRegion(model: RunnerModel): CrossCheckFinding[] {
  const { provider, region } = model.cloud;
  // A region the zones contradict is an error of its own (cross-checks.ts), said once.
  if (knownRegions(provider).includes(region) || regionTypoFinding(model) !== undefined) return [];
  const nearest = nearRegion(provider, region);
  return [
    {
      severity: "warning",
      path: ["cloud", "region"],
      expected: `a ${provider === "google" ? "Google Cloud" : "AWS"} region (not in the list checked on ${CLOUD_REGIONS_CHECKED_ON}${nearest ? `; did you mean "${nearest}"?` : ""})`,
      received: JSON.stringify(region),
    },
  ];
}

function checkShardTags(model: RunnerModel): CrossCheckFinding[] {
  const firstWithTags = new Map<string, number>();
  const findings: CrossCheckFinding[] = [];
  model.shards.forEach((shard, index) => {
    const key = [...shard.tags].sort().join("\n");
    const earlier = firstWithTags.get(key);
    if (earlier === undefined) {
      firstWithTags.set(key, index);
      return;
    }
    findings.push({
      severity: "warning",
      path: ["shards", index, "tags"],
      expected: `tags that tell this shard from shards[${earlier}] (${model.shards[earlier].name}); with the same tags, GitLab sends a job to either`,
      received: JSON.stringify(shard.tags),
    });
  });
  return findings;
}

/**
 * Untagged jobs go to any runner that takes them (GitLab's "run_untagged"): two shards of a cell that both
 * do split them between shards of different sizes or trust by chance, and a runner picked for them says
 * nothing of why. Warned on the second and later shards, naming the first.
 */
function checkUntaggedShards(model: RunnerModel): CrossCheckFinding[] {
  const untagged = model.shards.flatMap((shard, index) => (shard.run_untagged ? [index] : []));
  if (untagged.length < 2) return [];
  const [first, ...others] = untagged;
  return others.map((index) => ({
    severity: "warning" as const,
    path: ["shards", index, "run_untagged"],
    expected: `run_untagged on one shard of the cell only (shards[${first}] ${model.shards[first].name} takes untagged jobs too; GitLab gives each untagged job to whichever of them asks first)`,
    received: "true",
  }));
}

/**
 * The /certs/client volume exists for Docker-in-Docker with TLS; the docker:dind service it pairs with
 * starts only in privileged mode (docs.gitlab.com/ci/docker/docker_in_docker/). Without privileged the
 * mount is a promise the shard cannot keep: every dind job fails at "Cannot connect to the Docker daemon".
 */
function checkDindMount(shard: RunnerModel["shards"][number], index: number): CrossCheckFinding[] {
  const volume = shard.docker.volumes.findIndex((entry) => entry.split(":")[0] === "/certs/client" || entry.split(":")[1] === "/certs/client");
  if (volume < 0 || shard.docker.privileged) return [];
  return [
    {
      severity: "warning",
      path: ["shards", index, "docker", "volumes", volume],
      expected: "docker.privileged: true with /certs/client (Docker-in-Docker with TLS needs both), or no /certs/client mount",
      received: JSON.stringify(shard.docker.volumes[volume]),
    },
  ];
}

/** Ports of one NAT address Cloud NAT hands to VMs (1024-65535): cloud.google.com/nat/docs/ports-and-addresses. */
const NAT_PORTS_PER_ADDRESS = 64512;

/**
 * Reserved Cloud NAT addresses are a fixed pool: VMs beyond addresses x 64512 / min_per_vm get no NAT
 * mapping and cannot connect out. Count every VM the fleet may run (managers and max_instances workers).
 */
function checkNatAddresses(model: RunnerModel): CrossCheckFinding[] {
  const { network, cloud } = model;
  if (cloud.provider !== "google") {
    return network.nat_addresses > 0
      ? [{ severity: "warning", path: ["network", "nat_addresses"], expected: "0 on AWS (each NAT gateway has its own Elastic IP; nat_addresses is for Cloud NAT)", received: String(network.nat_addresses) }]
      : [];
  }
  if (network.nat_addresses === 0 || network.nat === false || network.existing) return [];
  const vms = model.shards.reduce((sum, shard) => sum + shard.managers.count * (shard.workers.max_instances + 1), 0);
  const capacity = network.nat_addresses * Math.floor(NAT_PORTS_PER_ADDRESS / network.nat_ports.min_per_vm);
  if (vms <= capacity) return [];
  return [
    {
      severity: "warning",
      path: ["network", "nat_addresses"],
      expected: `at least ${Math.ceil(vms / Math.floor(NAT_PORTS_PER_ADDRESS / network.nat_ports.min_per_vm))} addresses (or a smaller nat_ports.min_per_vm): the fleet may run ${vms} VMs, and ${network.nat_addresses} address(es) at ${network.nat_ports.min_per_vm} ports each serve ${capacity}`,
      received: String(network.nat_addresses),
    },
  ];
}
