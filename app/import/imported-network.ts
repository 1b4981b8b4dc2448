/**
 * The network the imported runners' machines ran in, as the model's network.existing: the VPC and
 * subnets (AWS) or the network and subnetwork (Google) their MachineOptions name (machine-options.ts).
 * A cell has one network: runners that name different ones are imported into separate cells. Runners
 * that name none ran in the account's default VPC or network, which the files do not identify: with
 * others naming one, they are said to move into it. Without any, the model creates its network, as before.
 */
import { agreeingValue } from "./agreeing-value";
import type { RunnerShard } from "./runner-shard";

export interface ExistingNetwork {
  readonly network: string;
  readonly subnets: readonly string[];
}

export function importedNetwork(runners: readonly RunnerShard[], provider: "google" | "aws", notes: string[]): ExistingNetwork | undefined {
  const network = agreeingValue(runners, (runner) => runner.cloud.network, "network", "the runners use different networks; a cell has one: import them into separate cells");
  if (network === undefined) return undefined;
  // Google's subnetworks are regional: the model's cell uses one (lib/model/cross-checks.ts). An AWS cell
  // takes a subnet per availability zone.
  const subnets =
    provider === "google"
      ? [agreeingValue(runners, (runner) => runner.cloud.subnet, "subnetwork", "the runners use different subnetworks of one network; a cell on Google Cloud uses one: import them into separate cells")!]
      : [...new Set(runners.flatMap((runner) => (runner.cloud.subnet === undefined ? [] : [runner.cloud.subnet])))];
  notes.push(
    `network.existing: ${network}, ${provider === "aws" ? "subnets" : "subnetwork"} ${subnets.join(", ")}, where docker+machine ran the machines (MachineOptions); ` +
      "the managers and workers get no public address there, so it must already route their egress (a NAT)",
  );
  // docker-autoscaler keeps its network in the instance group, not in config.toml: nothing to say of those.
  const elsewhere = runners.filter((runner) => runner.executor === "docker+machine" && runner.cloud.network === undefined);
  if (elsewhere.length > 0) {
    notes.push(
      `${elsewhere.map((runner) => runner.where).join(", ")}: ${elsewhere.length === 1 ? "names" : "name"} no network (docker+machine used the account's default one); in the model ${elsewhere.length === 1 ? "it runs" : "they run"} in ${network} too: check it`,
    );
  }
  return { network, subnets };
}
