/**
 * The stacks the real-engine tests check: both examples, and variants generated from
 * them that reach the other branches of the constructs (arm64 machine types, several
 * shards, an existing network, model values that look like Terraform syntax). Each
 * variant goes through the real model loader, so it is a model `prepare` accepts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { parseModel, type LoadedModel } from "../../../lib/model/load";
import { MODELS_DIR } from "../models";

/** Values in Terraform's template syntax: each must reach the stack as written. */
export const TEMPLATE_LOOKING_VALUES = {
  image: '${file("/etc/passwd")}',
  network: "net-${var.network}",
  subnet: "sub-%{ if true }x%{ endif }",
  dockerImage: "registry.example.com/${CI_PROJECT_PATH}:%{latest}",
} as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ModelData = any;

function example(name: "cell-1" | "cell-2"): ModelData {
  return parse(readFileSync(join(MODELS_DIR, `${name}.yaml`), "utf8"));
}

function load(name: string, data: ModelData): LoadedModel {
  return parseModel(stringify(data), `generated/${name}.yaml`);
}

export function exampleCell(name: "cell-1" | "cell-2"): LoadedModel {
  return load(name, example(name));
}

function renamedShard(shard: ModelData, name: string, change: (shard: ModelData) => void): ModelData {
  const copy = structuredClone(shard);
  copy.name = name;
  copy.tags = [`${name}-tag`];
  change(copy);
  return copy;
}

/**
 * AWS: the other branches in one stack (each real plan costs seconds): an existing VPC
 * and subnets instead of a created network, and three shards, two of them on Graviton
 * (arm64) managers and workers.
 */
export function awsVariant(): LoadedModel {
  const data = example("cell-2");
  data.cell.id = "cell-aws-variant";
  delete data.network.cidr;
  // An existing VPC brings its own NAT: per-zone NAT gateways are only made with a created network.
  data.network.nat = true;
  data.network.existing = {
    network: "vpc-0a1b2c3d4e5f60718",
    subnets: ["subnet-0a1b2c3d4e5f60711", "subnet-0a1b2c3d4e5f60722", "subnet-0a1b2c3d4e5f60733"],
  };
  const [base] = data.shards;
  data.shards.push(
    renamedShard(base, "graviton", (shard) => {
      shard.managers.machine_type = "t4g.medium";
      shard.workers.machine_type = "m7g.large";
      shard.workers.alternative_machine_types = ["m6g.large", "m8g.large"];
    }),
    renamedShard(base, "graviton-big", (shard) => {
      shard.managers.machine_type = "m7g.large";
      shard.managers.count = 3;
      shard.workers.machine_type = "c7g.2xlarge";
      shard.workers.spot = false;
      delete shard.workers.alternative_machine_types;
    }),
  );
  return load(data.cell.id, data);
}

/**
 * Google Cloud: three shards (one on Arm t2a machines), an existing network, and
 * model values written in Terraform's template syntax.
 */
export function googleVariant(): LoadedModel {
  const data = example("cell-1");
  data.cell.id = "cell-gcp-variant";
  data.cloud.project = "acme-runners-variant";
  delete data.network.cidr;
  data.network.existing = { network: TEMPLATE_LOOKING_VALUES.network, subnets: [TEMPLATE_LOOKING_VALUES.subnet] };
  data.shards[0].managers.image = TEMPLATE_LOOKING_VALUES.image;
  data.shards[0].docker.image = TEMPLATE_LOOKING_VALUES.dockerImage;
  data.shards.push(renamedShard(data.shards[0], "arm", (shard) => {
    delete shard.managers.image;
    shard.managers.machine_type = "t2a-standard-2";
    shard.workers.machine_type = "t2a-standard-4";
  }));
  return load(data.cell.id, data);
}
