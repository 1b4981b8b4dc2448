/**
 * The secrets a provision run knows from the start, and the GitLab credentials it keeps from the engine.
 */
import type { LoadedModel } from "../../lib/model/load";
import { KnownSecrets } from "../../lib/secrets/known-secrets";

/** Every secret value this run knows from the start: the GitLab tokens, the state password, secret-looking variables. */
export function knownSecrets(loaded: readonly LoadedModel[], env: NodeJS.ProcessEnv, tokenEnv: string | undefined): KnownSecrets {
  const names = [...withheldVariables(loaded, tokenEnv)];
  for (const { model } of loaded) if (model.state.backend === "http") names.push(model.state.password_env);
  return new KnownSecrets(env, names);
}

/** Variables holding GitLab credentials of this tool: the admin token each model names, the review token. */
export function withheldVariables(loaded: readonly LoadedModel[], tokenEnv: string | undefined): string[] {
  return [...new Set([...loaded.map(({ model }) => model.gitlab.token_env), ...(tokenEnv ? [tokenEnv] : [])])];
}
