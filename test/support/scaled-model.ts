/**
 * A cell of many shards, as a GitLab-scale fleet has them, for the request-budget tests and
 * the bench (bench/gitlab-bench.ts): cell-1's first shard repeated `shards` times, every
 * copy carrying the same single tag `docker` (the worst case for lookups by tag: each
 * shard's tag listing holds every other shard's runner) and the tool's default description.
 */
import type { RunnerModel } from "../../lib/model/schema";
import { STATE_DIR_ENV } from "../../lib/state/cell-lock";
import { exampleModel } from "./models";

export const SHARED_TAG = "docker";

export function scaledModel(options: { readonly cellId: string; readonly gitlabUrl: string; readonly shards: number; readonly secretsDir: string }): RunnerModel {
  // A copy of cell-1, which ./models.ts loads once per process.
  const model = exampleModel("cell-1");
  model.cell.id = options.cellId;
  model.gitlab.url = options.gitlabUrl;
  model.secrets.store = "local";
  model.secrets.local_dir = options.secretsDir;
  const template = model.shards[0];
  model.shards = Array.from({ length: options.shards }, (_, index) => {
    const shard = structuredClone(template);
    shard.name = `s${index + 1}`;
    delete shard.description;
    shard.tags = [SHARED_TAG];
    return shard;
  });
  return model;
}

/** The environment a run needs: the admin token in the model's variable, the lock's state directory. */
export function scaledEnv(model: RunnerModel, token: string, stateDir: string): NodeJS.ProcessEnv {
  return { [model.gitlab.token_env]: token, [STATE_DIR_ENV]: stateDir };
}

/**
 * Runners of other teams on the same instance: `count` instance runners, each with a team's
 * tag, and every tenth also carrying the shared tag (they are read when a lookup falls back
 * to the tags, never on a re-run).
 */
export function seedUnrelatedRunners(fake: { seedRunner(fields: Record<string, unknown>): unknown }, count: number): void {
  for (let index = 0; index < count; index += 1) {
    fake.seedRunner({ description: `team-${index % 40} runner ${index}`, tag_list: index % 10 === 0 ? [`team-${index % 40}`, SHARED_TAG] : [`team-${index % 40}`] });
  }
}
