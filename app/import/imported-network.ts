/**
 * The network the imported runners' machines ran in, as the model's network.existing: the VPC and
 * subnets (AWS) or the network and subnetwork (Google) their MachineOptions name (machine-options.ts).
 * A cell has one network: runners that name different ones are imported into separate cells. Runners
 * that name none ran in the account's default VPC or network, which the files do not identify: with
 * others naming one, they are said to move into it. Without any, the model creates its network, as before.
 */
import { UserInputError } from "../../lib/process/errors";
import type { RunnerShard } from "./runner-shard";

export interface ExistingNetwork {
  readonly network: string;
  readonly subnets: readonly string[];
}

export function importedNetwork(runners: readonly RunnerShard[], provider: "google" | "aws", notes: string[]): ExistingNetwork | undefined {
  const naming = runners.filter((runner) => runner.cloud.network !== undefined && runner.cloud.subnet !== undefined);
  if (naming.length === 0) return undefined;
  const networks = new Map(naming.map((runner) => [runner.cloud.network!, runner.where]));
  if (networks.size > 1) {
    throw new UserInputError(
      `the runners use different networks; a cell has one: import them into separate cells (${[...networks].map(([network, where]) => `${where}: ${network}`).join("; ")})`,
    );
  }
  const subnets = [...new Map(naming.map((runner) => [runner.cloud.subnet!, runner.where]))];
  // Google's subnetworks are regional: the model's cell uses one (lib/model/cross-checks.ts).
  if (provider === "google" && subnets.length > 1) {
    throw new UserInputError(
      `the runners use different subnetworks of one network; a cell on Google Cloud uses one: import them into separate cells (${subnets.map(([subnet, where]) => `${where}: ${subnet}`).join("; ")})`,
    );
  }
  const [network] = [...networks.keys()];
  const existing = { network: network!, subnets: subnets.map(([subnet]) => subnet) };
  notes.push(
    `network.existing: ${existing.network}, ${provider === "aws" ? "subnets" : "subnetwork"} ${existing.subnets.join(", ")}, where docker+machine ran the machines (MachineOptions); ` +
      "the managers and workers get no public address there, so it must already route their egress (a NAT)",
  );
  // docker-autoscaler keeps its network in the instance group, not in config.toml: nothing to say of those.
  const elsewhere = runners.filter((runner) => runner.executor === "docker+machine" && !naming.includes(runner));
  if (elsewhere.length > 0) {
    notes.push(
      `${elsewhere.map((runner) => runner.where).join(", ")}: ${elsewhere.length === 1 ? "names" : "name"} no network (docker+machine used the account's default one); in the model ${elsewhere.length === 1 ? "it runs" : "they run"} in ${existing.network} too: check it`,
    );
  }
  return existing;
}
