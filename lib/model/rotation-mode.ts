/**
 * How a manager takes a rotated token, by runner version.
 *
 * gitlab-runner's docker-autoscaler keeps one taskscaler per runner. Up to 19.1 its key is the runner's
 * token: a changed token in config.toml starts a new taskscaler and shuts the old one down, with its
 * workers and the jobs running on them. From 19.2 the key is the URL and the runner ID (gitlab-runner
 * issue 39380), so with `id` in config.toml a live token change keeps the workers.
 * - live: the new token is written under the running runner (it reloads config.toml by itself).
 * - drain: the runner is stopped gracefully (running jobs finish), then started with the new token.
 */
// One function's module, not the package's index: the index loads all of semver (its ranges build comparators as they load), ~10 ms of every command's start.
import lt from "semver/functions/lt";

export type RotationMode = "live" | "drain";

/** The first gitlab-runner release whose taskscaler survives a token change. */
export const LIVE_ROTATION_SINCE = "19.2.0";

export function rotationMode(runnerVersion: string): RotationMode {
  return lt(runnerVersion, LIVE_ROTATION_SINCE) ? "drain" : "live";
}
