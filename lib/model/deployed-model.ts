/**
 * A model as its cloud resources know it: each renamed shard under the name it had before
 * (`renamed_from`). The synth renders the VMs' files and derives every cloud name from this model, so a
 * rename changes no boot script, label, alarm, metric label or resource name: nearly all of those are
 * fixed at creation (a Google instance template, a bucket name, an IAM role name, a log group), and a
 * new value would replace the resource. Only the Terraform addresses follow the new name, through moved
 * blocks (constructs/shard-fleet.ts moveShardResources), and the runner in GitLab, which onboard renames.
 */
import { cloudShardName } from "./names";
import type { RunnerModel, Shard } from "./schema";

export function deployedModel<Model extends RunnerModel>(model: Model): Model {
  if (!model.shards.some((shard) => shard.renamed_from !== undefined)) return model;
  return { ...model, shards: model.shards.map(deployedShard) };
}

function deployedShard(shard: Shard): Shard {
  if (shard.renamed_from === undefined) return shard;
  const { renamed_from: _former, ...rest } = shard;
  return { ...rest, name: cloudShardName(shard) };
}
