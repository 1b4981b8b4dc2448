/**
 * The fleeting plugin a shard's managers install and run, pinned to an exact version.
 *
 * A reference is `<name>:<version>` (registry.gitlab.com/gitlab-org/fleeting/plugins/<name>) or a full OCI
 * reference `<registry>/<repository>/<name>:<version>` ("Fleeting: plugin formats", GitLab Runner docs),
 * for a mirror where the managers cannot reach registry.gitlab.com. A floating constraint (`aws:1`) makes
 * every boot ask the registry for the newest 1.x and lands a new plugin release on a reboot; an exact
 * version is installed once and found again: `gitlab-runner fleeting install` puts it at
 * `<FLEETING_PLUGIN_PATH>/<registry>/<repository>/<name>/<version>/plugin` (the path gitlab-runner issue
 * 38247 shows: .../registry.gitlab.com/gitlab-org/fleeting/plugins/aws/1.0.0/plugin).
 */
/** The clouds with a plugin of GitLab's (the schema's cloud.provider; not imported from it: the schema imports this file). */
type Provider = "google" | "aws";

/** The registry and repository a short reference (`aws:1.1.0`) resolves to. */
export const DEFAULT_PLUGIN_REPOSITORY = "registry.gitlab.com/gitlab-org/fleeting/plugins";

/**
 * Default versions, per cloud: fleeting-plugin-aws 1.1.0 (its newest release when this was written; 1.0.1 ->
 * 1.1.0 is the latest bump packagers carry) and fleeting-plugin-googlecloud 1.0.0, its generally available
 * release. Raise them on purpose, with the runner version, after reading the plugin's changelog.
 */
export const DEFAULT_FLEETING_PLUGIN_VERSIONS = { aws: "1.1.0", google: "1.0.0" } as const;
/** Plugin names in GitLab's repository. */
export const FLEETING_PLUGIN_NAMES = { aws: "aws", google: "googlecloud" } as const;

/** An exact version (semver, optional pre-release): no range, no `latest`. */
export const EXACT_VERSION = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/;
/** `<registry host[:port]>/<repository path>/<name>:<exact version>`; the registry host has a dot or a port. */
export const MIRROR_REFERENCE = /^[a-z0-9-]+(\.[a-z0-9-]+)*(\.[a-z0-9-]+|:[0-9]+)(\/[a-z0-9._-]+)+:[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/;

export interface FleetingPlugin {
  /** What config.toml's `plugin` says, and what `gitlab-runner fleeting install` resolves. */
  readonly reference: string;
  /** Where the installed plugin sits under FLEETING_PLUGIN_PATH (`<registry>/<repository>/<name>/<version>/plugin`). */
  readonly installedPath: string;
}

/** A shard's plugin: the model's `managers.fleeting_plugin` (a version or a mirror reference), or the cloud's default. */
export function fleetingPlugin(provider: Provider, setting: string | undefined): FleetingPlugin {
  const chosen = setting ?? DEFAULT_FLEETING_PLUGIN_VERSIONS[provider];
  if (EXACT_VERSION.test(chosen)) {
    const name = FLEETING_PLUGIN_NAMES[provider];
    return { reference: `${name}:${chosen}`, installedPath: `${DEFAULT_PLUGIN_REPOSITORY}/${name}/${chosen}/plugin` };
  }
  if (!MIRROR_REFERENCE.test(chosen)) {
    throw new TypeError(`fleeting plugin must be an exact version or <registry>/<repository>/<name>:<version>, received ${JSON.stringify(chosen)}`);
  }
  const colon = chosen.lastIndexOf(":");
  return { reference: chosen, installedPath: `${chosen.slice(0, colon)}/${chosen.slice(colon + 1)}/plugin` };
}
