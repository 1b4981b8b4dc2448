/**
 * Defaults that depend on other values of the model (the cell id, the cloud, the machine
 * type's architecture), so the schema can only describe them. They are filled in here, in one
 * place, for the stack (state backend) and for `prepare --json` (the model as resolved).
 */
import { runnerDescription, shardImages } from "./names";
import { effectivePullPolicy } from "./pull-policy";
import type { RunnerModel, StateConfig } from "./schema";

/** Local state lives outside cdktf.out so that wiping synth output never loses state. */
export const DEFAULT_LOCAL_STATE_DIR = ".state/terraform";

type StateOf<B extends StateConfig["backend"]> = Extract<StateConfig, { backend: B }>;

/** A state backend whose derived names are all set. */
export type ResolvedState =
  | (StateOf<"local"> & { readonly path: string })
  | (StateOf<"gcs"> & { readonly prefix: string })
  | (StateOf<"http"> & { readonly state_name: string; readonly api_url: string })
  | Exclude<StateConfig, { backend: "local" | "gcs" | "http" }>;

/** The state backend with its derived defaults: local path, gcs prefix, http state name and API URL. */
export function stateWithDefaults(model: RunnerModel): ResolvedState {
  const { state } = model;
  const cell = model.cell.id;
  switch (state.backend) {
    case "local":
      return { ...state, path: state.path ?? `${DEFAULT_LOCAL_STATE_DIR}/${cell}.tfstate` };
    case "gcs":
      return { ...state, prefix: state.prefix ?? `runner-fleet/${cell}` };
    case "http":
      return { ...state, state_name: state.state_name ?? cell, api_url: state.api_url ?? `${model.gitlab.url.replace(/\/+$/, "")}/api/v4` };
    default:
      return state;
  }
}

/**
 * The model with every default filled in, derived ones included: each shard's runner description
 * and images, and the state backend's names. Only the AWS account id stays unset when omitted: it
 * is the caller's, known only with credentials.
 */
export function withDerivedDefaults(model: RunnerModel): RunnerModel {
  return {
    ...model,
    state: stateWithDefaults(model),
    shards: model.shards.map((shard) => {
      const images = shardImages(model, shard);
      return {
        ...shard,
        description: runnerDescription(model, shard),
        managers: { ...shard.managers, image: images.managers },
        workers: { ...shard.workers, image: images.workers },
        docker: { ...shard.docker, pull_policy: [...effectivePullPolicy(shard)] },
      };
    }),
  };
}
