/**
 * Rules that involve more than one field of a model whose shape is already valid.
 * Each finding names the path to point the user at; the loader adds file and line:col.
 */
import { awsDerivedNames } from "./aws-names";
import { googleDerivedNames } from "./google-names";
import { advisoryChecks } from "./advisory-checks";
import { checkCellLabels } from "./label-checks";
import { classChecks } from "./class-checks";
import { checkGitLabWire } from "./gitlab-wire-checks";
import { exampleMachineType, imageArchitecture, machineArchitecture } from "./architecture";
import { parseGoDurationSeconds } from "./duration";
import { nameProblem } from "../names/cloud-name-rules";
import type { CrossCheckFinding } from "./finding";
import type { ModelPath } from "./issues";
import type { RunnerModel, Shard } from "./schema";
import { cidrContains, cidrsOverlap } from "../network/cidr";
import { cellTagProblem } from "./cell-tag";
import { checkWorkerGroupPrefixes } from "./worker-group-prefixes";
import { regionTypoFinding } from "./region-typo";
import { checkAlternativeMachineTypes, checkJobLimits, checkPolicyCoverage } from "./worker-checks";


/** GitLab rejects shorter maximum timeouts ("Maximum timeout needs to be at least 10 minutes"). */
const MIN_MAXIMUM_TIMEOUT_SECONDS = 600;
const GOOGLE_MACHINE_TYPE = /^[a-z][a-z0-9]*-[a-z0-9-]+$/;
const AWS_INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/; // sizes include metal-24xl
const AWS_IMAGE = /^(ami-[0-9a-f]{8,17}|resolve:ssm:\/.+)$/;

export function crossCheck(model: RunnerModel): CrossCheckFinding[] {
  return [
    ...checkZones(model),
    ...checkCellLabels(model),
    ...checkGitLabWire(model),
    ...checkNetwork(model),
    ...checkSecretStore(model),
    ...checkState(model),
    ...checkShardNames(model),
    ...checkWorkerGroupPrefixes(model),
    ...checkDerivedNames(model),
    ...model.shards.flatMap((shard, index) => checkShard(model, shard, ["shards", index])),
    ...classChecks(model),
    ...advisoryChecks(model),
  ];
}

function error(path: ModelPath, expected: string, received?: unknown): CrossCheckFinding {
  return { severity: "error", path, expected, received: received === undefined ? undefined : JSON.stringify(received) };
}

function checkZones(model: RunnerModel): CrossCheckFinding[] {
  const { cloud } = model;
  const regionTypo = regionTypoFinding(model);
  if (regionTypo) return [regionTypo];
  const zones = cloud.provider === "google" ? cloud.zones : cloud.availability_zones;
  const key = cloud.provider === "google" ? "zones" : "availability_zones";
  const zonePattern =
    cloud.provider === "google" ? new RegExp(`^${cloud.region}-[a-z]$`) : new RegExp(`^${cloud.region}[a-z]$`);
  const example = cloud.provider === "google" ? `${cloud.region}-a` : `${cloud.region}a`;
  const findings = zones.flatMap((zone, index) =>
    zonePattern.test(zone) ? [] : [error(["cloud", key, index], `a zone of region ${cloud.region}, such as ${example}`, zone)],
  );
  const seen = new Set<string>();
  zones.forEach((zone, index) => {
    if (seen.has(zone)) findings.push(error(["cloud", key, index], "each zone listed once", zone));
    seen.add(zone);
  });
  return findings;
}

function checkNetwork(model: RunnerModel): CrossCheckFinding[] {
  const { network, cloud } = model;
  const findings: CrossCheckFinding[] = [];
  if (network.existing && network.cidr) {
    findings.push(error(["network", "cidr"], "either `cidr` (create a network) or `existing` (use one), not both", network.cidr));
  }
  if (network.cidr) {
    const prefix = Number(network.cidr.split("/")[1]);
    if (cloud.provider === "aws") {
      // AWS VPCs are /16 to /28, and we carve one private and one public subnet per zone out of it.
      const needed = Math.ceil(Math.log2(cloud.availability_zones.length * 2));
      if (prefix < 16 || prefix + needed > 28) {
        findings.push(error(["network", "cidr"], `a VPC range from /16 to /${28 - needed} (room for the subnets of ${cloud.availability_zones.length} zone(s))`, network.cidr));
      }
    } else if (prefix < 8 || prefix > 29) {
      findings.push(error(["network", "cidr"], "a subnetwork range from /8 to /29", network.cidr));
    }
  }
  if (network.existing && cloud.provider === "google" && network.existing.subnets.length !== 1) {
    findings.push(error(["network", "existing", "subnets"], "exactly one subnetwork on Google Cloud (subnets are regional)", network.existing.subnets));
  }
  if (network.existing && cloud.provider === "aws") {
    if (!network.existing.network.startsWith("vpc-")) {
      findings.push(error(["network", "existing", "network"], "an AWS VPC id such as vpc-0123456789abcdef0", network.existing.network));
    }
    network.existing.subnets.forEach((subnet, index) => {
      if (!subnet.startsWith("subnet-")) {
        findings.push(error(["network", "existing", "subnets", index], "an AWS subnet id such as subnet-0123456789abcdef0", subnet));
      }
    });
  }
  if (network.nat === "per-zone" && cloud.provider === "google") {
    findings.push({
      severity: "warning",
      path: ["network", "nat"],
      expected: "true on Google Cloud: Cloud NAT is regional and already serves every zone, so \"per-zone\" is the same as true",
      received: JSON.stringify(network.nat),
    });
  }
  if (network.nat === "per-zone" && network.existing) {
    findings.push(error(["network", "nat"], "true or false with an existing network (its NAT is its own; per-zone NAT gateways are created only with the network)", network.nat));
  }
  if (network.nat === false && !network.public_ips) {
    findings.push({
      severity: "warning",
      path: ["network", "nat"],
      expected: "NAT or public IPs: without either, managers cannot reach GitLab unless the existing network routes egress",
      received: "false",
    });
  }
  network.monitoring_cidrs.forEach((range, index) => {
    if (range === "0.0.0.0/0") {
      findings.push(error(["network", "monitoring_cidrs", index], "a monitoring range narrower than the whole internet", range));
    } else if (network.cidr && !network.existing && cidrsOverlap(network.cidr, range)) {
      // Workers and managers share the created network's subnets, so such a range admits the workers, where job
      // code runs, to gitlab-runner's :9252, which also serves /debug/pprof and /debug/jobs/list (commands/multi.go
      // serves the debug handlers on the metrics listener). A scraper lives outside the fleet's own range.
      findings.push(
        error(
          ["network", "monitoring_cidrs", index],
          `a range outside network.cidr ${network.cidr}, such as the monitoring network's own (security: the workers have addresses in ${network.cidr}, and job code on them would reach gitlab-runner's /debug/pprof and /debug/jobs/list on the managers' :9252)`,
          range,
        ),
      );
    } else if (!(network.cidr && cidrContains(network.cidr, range)) && !isPrivateRange(range)) {
      findings.push({
        severity: "warning",
        path: ["network", "monitoring_cidrs", index],
        expected: "a private range (metrics are scraped inside the network)",
        received: JSON.stringify(range),
      });
    }
  });
  return findings;
}

function isPrivateRange(range: string): boolean {
  return ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"].some((privateRange) => cidrContains(privateRange, range));
}

function checkSecretStore(model: RunnerModel): CrossCheckFinding[] {
  const { store } = model.secrets;
  if (store === "google-secret-manager" && model.cloud.provider !== "google") {
    return [error(["secrets", "store"], `a secret store the ${model.cloud.provider} managers can read: aws-ssm or local`, store)];
  }
  if (store === "aws-ssm" && model.cloud.provider !== "aws") {
    return [error(["secrets", "store"], `a secret store the ${model.cloud.provider} managers can read: google-secret-manager or local`, store)];
  }
  return [];
}

function checkState(model: RunnerModel): CrossCheckFinding[] {
  const { state } = model;
  if (state.backend === "s3" && state.locking === "dynamodb" && !state.dynamodb_table) {
    return [error(["state", "dynamodb_table"], "a DynamoDB table name when locking is dynamodb")];
  }
  if (state.backend === "s3" && state.locking === "s3" && state.dynamodb_table) {
    return [error(["state", "dynamodb_table"], "no table when locking is s3 (set locking: dynamodb to use one)", state.dynamodb_table)];
  }
  return [];
}

function checkShardNames(model: RunnerModel): CrossCheckFinding[] {
  const firstIndex = new Map<string, number>();
  const findings: CrossCheckFinding[] = [];
  model.shards.forEach((shard, index) => {
    const earlier = firstIndex.get(shard.name);
    if (earlier === undefined) firstIndex.set(shard.name, index);
    else findings.push(error(["shards", index, "name"], `a shard name unique in the cell (shards[${earlier}] has it already)`, shard.name));
  });
  return [...findings, ...checkRenamedFrom(model)];
}

/**
 * A renamed shard's resources move from `shard-<renamed_from>` (stacks: Terraform moved blocks), and its
 * cloud names are derived from that name: a current shard of the same name would own the same addresses
 * and names (Terraform refuses a moved block whose source is still in the configuration), and two
 * shards renamed from one name would claim the same resources.
 */
function checkRenamedFrom(model: RunnerModel): CrossCheckFinding[] {
  const current = new Map(model.shards.map((shard, index) => [shard.name, index]));
  const claimed = new Map<string, number>();
  return model.shards.flatMap((shard, index): CrossCheckFinding[] => {
    const from = shard.renamed_from;
    if (from === undefined) return [];
    const at: ModelPath = ["shards", index, "renamed_from"];
    if (from === shard.name) return [error(at, `the shard's former name, not its name (remove renamed_from, or set it to the name the shard had before)`, from)];
    const other = current.get(from);
    if (other !== undefined) return [error(at, `a former name no current shard has (shards[${other}] is named ${from}: its resources cannot move while it exists)`, from)];
    const earlier = claimed.get(from);
    if (earlier !== undefined) return [error(at, `a former name of one shard only (shards[${earlier}] was renamed from it already)`, from)];
    claimed.set(from, index);
    return [];
  });
}

/**
 * One architecture per shard: the managers' plugin and helper images and the workers' images must agree,
 * and an image named for one architecture cannot boot a machine type of the other.
 */
function checkArchitectures(model: RunnerModel, shard: Shard, at: ModelPath): CrossCheckFinding[] {
  const { provider } = model.cloud;
  const findings: CrossCheckFinding[] = [];
  const arch = {
    managers: machineArchitecture(provider, shard.managers.machine_type),
    workers: machineArchitecture(provider, shard.workers.machine_type),
  };
  if (arch.managers !== arch.workers) {
    findings.push(
      error(
        [...at, "workers", "machine_type"],
        `a worker machine type of the managers' architecture (${arch.managers}, ${shard.managers.machine_type}), such as ${exampleMachineType(provider, arch.managers)}; this one is ${arch.workers}`,
        shard.workers.machine_type,
      ),
    );
  }
  for (const role of ["managers", "workers"] as const) {
    const image = shard[role].image;
    const imageArch = image === undefined ? undefined : imageArchitecture(image);
    if (imageArch !== undefined && imageArch !== arch[role]) {
      findings.push(
        error(
          [...at, role, "image"],
          `an ${arch[role]} image for machine type ${shard[role].machine_type} (this image is ${imageArch}), or no image for the default ${arch[role]} image`,
          image,
        ),
      );
    }
  }
  return findings;
}

/**
 * Every name the model derives (per cloud, in constructs/<cloud>/<cloud>-names.ts) against the rule its
 * cloud applies. Names that are cut to fit their limit (fitName) always fit; what remains are names a
 * cloud reserves, such as a Cloud Storage bucket containing "google". A finding points at the model
 * value that breaks the rule, or at the most specific value the name is built from.
 */
function checkDerivedNames(model: RunnerModel): CrossCheckFinding[] {
  const derived = model.cloud.provider === "google" ? googleDerivedNames(model) : awsDerivedNames(model);
  const findings: CrossCheckFinding[] = [];
  const reported = new Set<string>();
  for (const { name, rule, from } of derived) {
    const problem = nameProblem(rule, name);
    if (problem === undefined) continue;
    const culprit = from.find((path) => {
      const value = valueAtPath(model, path);
      return typeof value === "string" && nameProblem(rule, value) !== undefined && rule.reserved?.some((entry) => entry.test.test(value));
    }) ?? from[0];
    const key = `${culprit.join(".")}|${problem}`;
    if (reported.has(key)) continue;
    reported.add(key);
    findings.push(error(culprit, `a value whose derived names the cloud accepts: ${problem}`, valueAtPath(model, culprit)));
  }
  return findings;
}

function valueAtPath(model: RunnerModel, path: ModelPath): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], model);
}

function checkShard(model: RunnerModel, shard: Shard, at: ModelPath): CrossCheckFinding[] {
  const findings: CrossCheckFinding[] = [];
  const { provider } = model.cloud;

  if (shard.runner_type === "group" && shard.group_id === undefined) {
    findings.push(error([...at, "group_id"], "a group id when runner_type is group"));
  }
  if (shard.runner_type === "project" && shard.project_id === undefined) {
    findings.push(error([...at, "project_id"], "a project id when runner_type is project"));
  }
  if (shard.runner_type !== "group" && shard.group_id !== undefined) {
    findings.push(error([...at, "group_id"], "no group_id unless runner_type is group", shard.group_id));
  }
  if (shard.runner_type !== "project" && shard.project_id !== undefined) {
    findings.push(error([...at, "project_id"], "no project_id unless runner_type is project", shard.project_id));
  }
  if (shard.tags.length === 0 && !shard.run_untagged) {
    // GitLab answers 400 "Tags list can not be empty when runner is not allowed to pick untagged jobs".
    findings.push(error([...at, "tags"], "at least one tag, or run_untagged: true (GitLab refuses a runner that can pick no job)", []));
  }
  const tagProblem = cellTagProblem(shard.tags);
  if (tagProblem) findings.push(error([...at, "tags"], tagProblem.expected, tagProblem.received));
  const maximumTimeout = parseGoDurationSeconds(shard.maximum_timeout)!;
  if (maximumTimeout < MIN_MAXIMUM_TIMEOUT_SECONDS) {
    findings.push(error([...at, "maximum_timeout"], "at least 10m (GitLab's lower bound)", shard.maximum_timeout));
  }

  const machinePattern = provider === "google" ? GOOGLE_MACHINE_TYPE : AWS_INSTANCE_TYPE;
  const machineExample = provider === "google" ? "a Google Cloud machine type such as e2-standard-4" : "an EC2 instance type such as m7i.large";
  for (const role of ["managers", "workers"] as const) {
    if (!machinePattern.test(shard[role].machine_type)) {
      findings.push(error([...at, role, "machine_type"], machineExample, shard[role].machine_type));
    }
    const image = shard[role].image;
    if (provider === "aws" && image !== undefined && !AWS_IMAGE.test(image)) {
      findings.push(error([...at, role, "image"], "an AMI id (ami-...) or resolve:ssm:/<parameter>", image));
    }
  }

  findings.push(...checkArchitectures(model, shard, at));
  findings.push(...checkAlternativeMachineTypes(model, shard, at));
  findings.push(...checkPolicyCoverage(shard, at));
  findings.push(...checkJobLimits(model, shard, at));

  const slots = shard.workers.max_instances * shard.workers.capacity_per_instance;
  shard.autoscaling.policies.forEach((policy, index) => {
    if (policy.idle_count > slots) {
      findings.push(
        error(
          [...at, "autoscaling", "policies", index, "idle_count"],
          `idle_count <= workers.max_instances x workers.capacity_per_instance = ${slots}`,
          policy.idle_count,
        ),
      );
    }
    if (policy.scale_factor_limit !== undefined && policy.scale_factor === 0) {
      findings.push({
        severity: "warning",
        path: [...at, "autoscaling", "policies", index, "scale_factor_limit"],
        expected: "scale_factor > 0 for scale_factor_limit to matter",
        received: String(policy.scale_factor_limit),
      });
    }
  });

  if (shard.managers.concurrent > slots) {
    findings.push({
      severity: "warning",
      path: [...at, "managers", "concurrent"],
      expected: `concurrent <= max_instances x capacity_per_instance = ${slots}; jobs beyond that wait for workers`,
      received: String(shard.managers.concurrent),
    });
  }
  return findings;
}
