/**
 * A runner's [runners.docker] and [runners.cache] as the shard's docker and cache settings
 * (docs.gitlab.com/runner/configuration/advanced-configuration.html). The model creates the
 * shard's own cache bucket, so only whether there is a cache and whether it is shared carry over.
 *
 * Where the file says nothing, the runner's own default is written into the model (or the change is
 * noted), not the model's: gitlab-runner v19.3.0 common/config.go DockerConfig.GetPullPolicies pulls
 * "always" when pull_policy is empty (the model derives its own default: lib/model/pull-policy.ts); the Docker
 * executor mounts only the volumes listed (executors/docker/docker.go createVolumes; the model's
 * default adds /cache); and with no image a job that names none fails ("no Docker image specified to
 * run the build in", executors/docker/docker.go expandImageName), where the model's default image runs it.
 */
import type { KeyLedger } from "./key-ledger";
import type { TomlPath } from "./toml-source";

type Note = (text: string) => void;

export function readDocker(ledger: KeyLedger, at: TomlPath, note: Note): Record<string, unknown> {
  const docker: Record<string, unknown> = {};
  const image = ledger.string([...at, "image"]);
  if (image) docker.image = image;
  else note('no [runners.docker] image: gitlab-runner failed every job that names no image ("no Docker image specified to run the build in"); the model\'s default image (docker.image, ubuntu:24.04) now runs them: set the one they should use');
  const privileged = ledger.boolean([...at, "privileged"]);
  if (privileged !== undefined) docker.privileged = privileged;
  const volumes = ledger.strings([...at, "volumes"]);
  docker.volumes = volumes ?? [];
  if (!volumes) note("no [runners.docker] volumes: the jobs had no /cache volume; kept as volumes: [] (the model's default adds /cache)");
  const pull = ledger.take([...at, "pull_policy"]);
  if (pull !== undefined) {
    const policies = typeof pull === "string" ? [pull] : pull;
    const known = ["always", "if-not-present", "never"];
    if (!Array.isArray(policies) || !policies.every((policy) => typeof policy === "string" && known.includes(policy))) {
      ledger.refuse([...at, "pull_policy"], `one of ${known.join(", ")}, or a list of them`, pull);
    }
    docker.pull_policy = policies;
  } else {
    docker.pull_policy = ["always"];
    note("no [runners.docker] pull_policy: gitlab-runner's default, always, is written into the model (which would otherwise derive one from how its workers are shared)");
  }
  // runner-fleet's config.toml sets allowed_pull_policies to the shard's pull_policy (lib/model/pull-policy.ts), so
  // a job asks for no other: the same list is carried over by pull_policy itself, any other is not.
  const allowed = ledger.peek([...at, "allowed_pull_policies"]);
  if (allowed !== undefined) {
    const list = typeof allowed === "string" ? [allowed] : allowed;
    if (JSON.stringify(list) === JSON.stringify(docker.pull_policy)) ledger.take([...at, "allowed_pull_policies"]);
    else ledger.explain([...at, "allowed_pull_policies"], "runner-fleet allows exactly the shard's pull_policy (docs/security.md, \"What shares a worker\")");
  }
  const cpusText = ledger.take([...at, "cpus"]);
  const memoryText = ledger.take([...at, "memory"]);
  if (cpusText !== undefined || memoryText !== undefined) {
    const cpus = typeof cpusText === "string" ? Number(cpusText) : NaN;
    const memoryMb = typeof memoryText === "string" ? memoryInMb(memoryText) : undefined;
    if (cpusText !== undefined && !(cpus > 0)) ledger.refuse([...at, "cpus"], 'a number of CPUs as a string, such as "2" or "1.5"', cpusText);
    if (memoryText !== undefined && memoryMb === undefined) ledger.refuse([...at, "memory"], 'a Docker memory size such as "2g" or "512m"', memoryText);
    if (cpusText !== undefined && memoryMb !== undefined) docker.job_limits = { cpus, memory_mb: memoryMb };
    else {
      note("docker cpus and memory are imported only together (the model's job_limits needs both); the one given is not");
      ledger.explain([...at, cpusText !== undefined ? "cpus" : "memory"], "the model's job_limits needs both cpus and memory");
    }
  }
  return docker;
}

/** Docker's memory sizes ("512m", "2g", "1073741824"): a number and an optional b/k/m/g unit, in MiB. */
function memoryInMb(text: string): number | undefined {
  const match = /^([0-9]+)([bkmg])?$/i.exec(text.trim());
  if (!match) return undefined;
  const bytes = Number(match[1]) * { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match[2] ?? "b").toLowerCase() as "b" | "k" | "m" | "g"];
  return Math.floor(bytes / 1024 ** 2);
}

/**
 * The runner has a distributed cache only when [runners.cache] names its Type: gitlab-runner looks the
 * adapter up by Type (v19.3.0 cache/adapter.go getCreateAdapter: "cache factory not found" otherwise, and
 * the job runs without one), and Type is s3, gcs or azure (cache/cacheconfig/cacheconfig.go Config; in
 * common/config.go CacheConfig before 16.x). `gitlab-runner register` writes an empty [runners.cache].
 * The S3 keys directly under [runners.cache] (ServerAddress, AccessKey, BucketName, ...) were removed in
 * 12.0 (commit d319e9432, "Remove support for deprecated S3 cache configuration"): the runner ignores them.
 * Shared left out is false (cacheconfig.Config.Shared, a bool).
 */
const CACHE_TYPES = ["s3", "gcs", "azure"];
const LEGACY_CACHE_KEYS = ["ServerAddress", "AccessKey", "SecretKey", "BucketName", "BucketLocation", "Insecure"];

export function readCache(ledger: KeyLedger, at: TomlPath, note: Note): Record<string, unknown> {
  if (!ledger.has(at)) {
    note("no [runners.cache]: the runner had no distributed cache; imported with cache.enabled false");
    return { enabled: false };
  }
  for (const key of LEGACY_CACHE_KEYS) ledger.explain([...at, key], "a [runners.cache] key gitlab-runner 12.0 removed (the S3 settings moved to [runners.cache.s3]): the runner ignores it");
  const type = ledger.string([...at, "Type"]);
  const shared = ledger.boolean([...at, "Shared"]);
  for (const store of ["s3", "gcs", "azure"]) ledger.explain([...at, store], "the model creates the shard's own cache bucket (GCS or S3) and its access");
  ledger.explain([...at, "Path"], "the model's cache bucket belongs to the shard; no path prefix is needed");
  if (type === undefined || !CACHE_TYPES.includes(type)) {
    ledger.explain(at, "a [runners.cache] without a Type gitlab-runner has an adapter for (gitlab-runner register writes it empty): the runner had no distributed cache");
    note(
      type === undefined
        ? "[runners.cache] names no Type (s3, gcs or azure): the runner had no distributed cache; imported with cache.enabled false"
        : `[runners.cache] Type ${JSON.stringify(type)} is none of s3, gcs, azure: the runner found no cache adapter and ran without a cache; imported with cache.enabled false`,
    );
    return { enabled: false };
  }
  if (type === "azure") note('cache Type "azure": the model\'s cache is the cloud\'s own bucket (GCS or S3), which starts empty');
  if (shared === undefined) note("[runners.cache] Shared not set: gitlab-runner's default, false (each manager's cache its own), is kept as cache.shared false");
  return { enabled: true, shared: shared ?? false };
}
