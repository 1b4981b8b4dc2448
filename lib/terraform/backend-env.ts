/**
 * Environment the engine needs for the cell's state backend. Credentials are
 * handed over in the environment only: never in files, backend config or argv,
 * so they end up neither in `.terraform/` nor in process listings.
 */
import { UserInputError } from "../process/errors";
import type { RunnerModel } from "../model/schema";

/**
 * GitLab-managed Terraform state (the http backend) reads its user and token
 * from TF_HTTP_USERNAME / TF_HTTP_PASSWORD; they are copied from the variables
 * the model names. Other backends use the cloud's own credentials: nothing to add.
 */
export function backendEnvironment(model: RunnerModel, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const state = model.state;
  if (state.backend !== "http") return {};

  const wanted = [
    ...(state.username === undefined ? [{ variable: state.username_env, key: "state.username_env", holds: "the state user name" }] : []),
    { variable: state.password_env, key: "state.password_env", holds: "a token with access to the project's Terraform state" },
  ];
  const missing = wanted.filter(({ variable }) => !env[variable]);
  if (missing.length > 0) {
    const list = missing.map(({ variable, key, holds }) => `${variable} (${key}: ${holds})`).join(" and ");
    throw new UserInputError(
      `cell ${model.cell.id} keeps its state in GitLab (state.backend: http, project ${state.project_id}), which needs ${list} in the environment; ${missing.length === 1 ? "it is" : "they are"} not set`,
    );
  }
  return {
    TF_HTTP_USERNAME: state.username ?? (env[state.username_env] as string),
    TF_HTTP_PASSWORD: env[state.password_env] as string,
  };
}
