/**
 * Which images a job may take from a worker's Docker cache instead of its registry.
 *
 * gitlab-runner tries the pull policies in order and moves to the next after any failed pull, an
 * authentication failure included (executors/docker/internal/pull/manager.go, GetDockerImage), so
 * ["always", "if-not-present"] runs a cached image the job's credentials could not pull. A job may
 * also name its own policies (`image: pull_policy:`); gitlab-runner keeps those in allowed_pull_policies,
 * and with that unset it allows whatever pull_policy lists (common/config.go GetAllowedPullPolicies;
 * helpers/pull_policies/pull_policies.go ComputeEffectivePullPolicies). On a worker whose cache another
 * job filled, that is another project's private image. GitLab's runner security docs say the same:
 * https://docs.gitlab.com/runner/security/#usage-of-private-docker-images-with-if-not-present-pull-policy
 */
import type { Shard } from "./schema";

export type PullPolicy = "always" | "if-not-present" | "never";

/** The pull policies that read the worker's cache rather than ask the registry with the job's credentials. */
export const CACHE_READING_POLICIES: readonly PullPolicy[] = ["if-not-present", "never"];

/** On a single-use, single-job worker the cache holds only the image's own and this job's pulls. */
const SINGLE_USE_DEFAULT: readonly PullPolicy[] = ["always", "if-not-present"];
/** Where jobs share a worker's cache, every image is pulled with the job's own credentials. */
const SHARED_CACHE_DEFAULT: readonly PullPolicy[] = ["always"];

/**
 * True when a worker's image cache is seen by more than one job: it runs several jobs one after the
 * other (max_use_count other than 1, 0 being unlimited) or at once (capacity_per_instance above 1).
 */
export function sharesImageCache(shard: Shard): boolean {
  return shard.workers.max_use_count !== 1 || shard.workers.capacity_per_instance > 1;
}

/** docker.pull_policy as written, or the default for the shard's workers. */
export function effectivePullPolicy(shard: Shard): readonly PullPolicy[] {
  return shard.docker.pull_policy ?? (sharesImageCache(shard) ? SHARED_CACHE_DEFAULT : SINGLE_USE_DEFAULT);
}

/**
 * config.toml's allowed_pull_policies: exactly the shard's pull policies, so a job's own
 * `pull_policy: if-not-present` is refused (the job fails) unless the model chose to allow it.
 */
export function allowedPullPolicies(shard: Shard): readonly PullPolicy[] {
  return effectivePullPolicy(shard);
}
