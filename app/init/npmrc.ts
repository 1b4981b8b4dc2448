/**
 * A models repository's `.npmrc` for a runner-fleet installed from a GitLab project's npm registry
 * (`init --npm-registry`, where this repository's release pipeline publishes it): the registry, and its
 * token read from $RUNNER_FLEET_NPM_TOKEN, which the CI/CD component sets to the job's own token.
 *
 * - `registry=`, not `@scope:registry=`: the package name is unscoped, so every package is asked of
 *   that registry, and GitLab forwards the others to npmjs.org (docs/development/releasing.md).
 * - `${RUNNER_FLEET_NPM_TOKEN?}`: npm (11) sends an unset `${NAME}` as the literal text, a bearer token
 *   GitLab refuses even for a public project; with `?` an unset one sends no token at all. Checked with
 *   the real npm against a registry stand-in (test/commands/init-npm-registry.test.ts).
 * - The token's own name, not NPM_TOKEN: the component sets it in every job, and a models repository's
 *   NPM_TOKEN of its own (for another registry) stays its own. A CI/CD variable of that name (a deploy
 *   token with read_package_registry) takes precedence over the component's.
 */
import { UserInputError } from "../../lib/process/errors";

export const NPM_TOKEN_VARIABLE = "RUNNER_FLEET_NPM_TOKEN";

/** The registry URL as npm keys it (with a trailing slash); a UserInputError for anything else. */
export function npmRegistryUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const expected = `--npm-registry: expected a registry's URL such as https://gitlab.example.com/api/v4/projects/42/packages/npm/`;
  // A URL with a user or password in it is not echoed: it may be a token.
  if (url && (url.username || url.password)) throw new UserInputError(`${expected}, received one with credentials in it (the token goes in $${NPM_TOKEN_VARIABLE})`);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash) throw new UserInputError(`${expected}, received ${JSON.stringify(value)}`);
  return url.href.endsWith("/") ? url.href : `${url.href}/`;
}

/** The lines init writes: a comment, the registry, its token. */
export function npmrcLines(registry: string): string[] {
  return [
    "# runner-fleet comes from this registry (runner-fleet init --npm-registry). Its token: the job's own in",
    `# the pipeline (the CI/CD component sets $${NPM_TOKEN_VARIABLE}); at a desk, export a token with`,
    "# read_package_registry (or read_api) as that; none for a public project.",
    `registry=${registry}`,
    `${authKey(registry)}=\${${NPM_TOKEN_VARIABLE}?}`,
  ];
}

/** `existing` with its registry and that registry's token replaced by these; every other line kept. */
export function mergeNpmrc(existing: string, registry: string): string {
  const ours = npmrcLines(registry);
  const replaced = new Set(ours.filter((line) => line.startsWith("#")));
  const kept = existing
    .split("\n")
    .filter((line) => !/^\s*registry\s*=/.test(line) && !line.trim().startsWith(`${authKey(registry)}=`) && !replaced.has(line));
  while (kept.length > 0 && kept[kept.length - 1].trim() === "") kept.pop();
  return `${[...kept, ...ours].join("\n")}\n`;
}

/** npm's key for a registry's token: the URL without its scheme (`//host/path/:_authToken`). */
function authKey(registry: string): string {
  return `${registry.replace(/^https?:/, "")}:_authToken`;
}
