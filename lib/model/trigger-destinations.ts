/**
 * Where a triggered pipeline's secrets go is decided by the project, never by the trigger.
 *
 * Three trigger variables name a destination or a credential:
 * - STATE_API_URL: where the state backend sends the CI job token (as TF_HTTP_PASSWORD). Only this
 *   project's own GitLab API, $CI_API_V4_URL, is accepted.
 * - GITLAB_TOKEN_ENV: which variable's value is sent as the admin token. Only the variable the project
 *   configured (the component's input `gitlab_token_env`, passed as --admin-token-env) is accepted:
 *   not a denylist, which RUNNER_FLEET_NPM_TOKEN (the job token, set by the component), NPM_TOKEN or
 *   CLOUDSDK_AUTH_ACCESS_TOKEN passed.
 * - GITLAB_URL: where the admin token is sent. Only a GitLab the project lists (the component's input
 *   `trigger_gitlab_urls`, passed as --allowed-gitlab-urls) is accepted, when a list is given.
 *
 * The lists come from the command line, which the component writes from its inputs: GitLab interpolates
 * inputs into the job's script when it creates the pipeline, so a trigger's variables cannot change
 * them. A CI/CD variable could not hold them: a trigger's (pipeline) variables take precedence over
 * project variables, protected or not (GitLab docs, CI/CD variable precedence).
 */
import { redactSecrets } from "../text/redact";
import type { TriggerVariables } from "./trigger-variables";

export interface TriggerDestinationPolicy {
  /** The variable the project keeps the admin token in. @default "GITLAB_TOKEN" */
  readonly adminTokenEnv?: string;
  /** GitLab root URLs a trigger may name; undefined: no list (a person at a terminal chooses). */
  readonly allowedGitlabUrls?: readonly string[];
  /** This project's GitLab API ($CI_API_V4_URL), the only state API a trigger may name. */
  readonly projectApiUrl?: string;
}

export const DEFAULT_ADMIN_TOKEN_ENV = "GITLAB_TOKEN";

/** The problems of the variables that point a secret elsewhere; none when every destination is the project's. */
export function triggerDestinationProblems(variables: TriggerVariables, policy: TriggerDestinationPolicy): string[] {
  const problems: string[] = [];
  const received = (value: string) => redactSecrets(JSON.stringify(value));

  const adminTokenEnv = policy.adminTokenEnv ?? DEFAULT_ADMIN_TOKEN_ENV;
  if (variables.GITLAB_TOKEN_ENV !== undefined && variables.GITLAB_TOKEN_ENV !== adminTokenEnv) {
    problems.push(
      `GITLAB_TOKEN_ENV: expected the variable this project keeps the GitLab admin token in, ${adminTokenEnv} (the component's input gitlab_token_env), or nothing; received ${received(variables.GITLAB_TOKEN_ENV)}`,
    );
  }

  if (variables.STATE_API_URL !== undefined) {
    const own = policy.projectApiUrl;
    if (!own) {
      problems.push(`STATE_API_URL: expected this project's own GitLab API ($CI_API_V4_URL), which is not set here; received ${received(variables.STATE_API_URL)}; leave it unset`);
    } else if (normalizedUrl(variables.STATE_API_URL) !== normalizedUrl(own)) {
      problems.push(`STATE_API_URL: expected this project's own GitLab API, ${own} ($CI_API_V4_URL), or nothing; received ${received(variables.STATE_API_URL)} (the CI job token would be sent there)`);
    }
  }

  if (policy.allowedGitlabUrls !== undefined && variables.GITLAB_URL !== undefined) {
    const allowed = policy.allowedGitlabUrls.map(normalizedUrl);
    if (!allowed.includes(normalizedUrl(variables.GITLAB_URL))) {
      const listed = policy.allowedGitlabUrls.length > 0 ? `one of ${policy.allowedGitlabUrls.join(", ")}` : "a GitLab this project lists, and it lists none";
      problems.push(
        `GITLAB_URL: expected ${listed} (the component's input trigger_gitlab_urls); received ${received(variables.GITLAB_URL)} (the admin token would be sent there)`,
      );
    }
  }
  return problems;
}

/** A URL without a trailing slash, with its scheme and host as URL parsing writes them; the text itself when it does not parse. */
function normalizedUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}${url.search}`;
  } catch {
    return text;
  }
}

/** The list of --allowed-gitlab-urls: separated by spaces or commas, empty entries dropped. */
export function parseGitlabUrlList(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}
