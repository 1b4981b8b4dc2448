/**
 * The environment the engine (terraform/tofu and its providers) runs with: only what
 * it needs, never the secrets this tool holds for itself.
 *
 * The engine and its providers are third-party code that reads its whole environment
 * and may print or log it (TF_LOG=trace prints much of it). The GitLab admin token,
 * the review token and any other secret in our environment have no business there, so
 * the engine gets an allowlist: its own settings (TF_*, including TF_HTTP_* for the
 * state backend), the cloud SDKs' credentials and settings (AWS_*, GOOGLE_*,
 * CLOUDSDK_*), and what any process needs (PATH, HOME, locale, temporary directory,
 * proxies, CA bundles). Operators pass more names with $RUNNER_FLEET_ENGINE_ENV.
 */

/** Extra names for the engine, comma- or space-separated; `NAME*` passes a prefix. */
export const ENGINE_ENV_PASSTHROUGH = "RUNNER_FLEET_ENGINE_ENV";

const PASSED_PREFIXES = ["TF_", "AWS_", "GOOGLE_", "CLOUDSDK_", "LC_", "XDG_"];

const PASSED_NAMES = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "NO_COLOR",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CHECKPOINT_DISABLE",
]);

export interface EngineEnvironmentOptions {
  /** Variables the engine needs that are not in `env` under their own name (TF_HTTP_USERNAME/PASSWORD). */
  readonly add?: Readonly<Record<string, string>>;
  /** Names never passed, even when allowed or listed in $RUNNER_FLEET_ENGINE_ENV (the GitLab tokens). */
  readonly withhold?: readonly string[];
}

export function engineEnvironment(env: NodeJS.ProcessEnv, options: EngineEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const withheld = new Set(options.withhold ?? []);
  const extra = (env[ENGINE_ENV_PASSTHROUGH] ?? "").split(/[\s,]+/).filter(Boolean);
  const extraNames = new Set(extra.filter((name) => !name.endsWith("*")));
  const extraPrefixes = extra.filter((name) => name.endsWith("*")).map((name) => name.slice(0, -1));
  const allowed = (name: string) =>
    PASSED_NAMES.has(name) ||
    extraNames.has(name) ||
    [...PASSED_PREFIXES, ...extraPrefixes].some((prefix) => prefix !== "" && name.startsWith(prefix));

  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && allowed(name) && !withheld.has(name)) out[name] = value;
  }
  return { ...out, ...options.add };
}

/** Variables that hold GitLab credentials of this tool, whatever else the model names. */
export const GITLAB_CREDENTIAL_NAMES = ["GITLAB_TOKEN", "GITLAB_REVIEW_TOKEN", "CI_JOB_TOKEN"] as const;
