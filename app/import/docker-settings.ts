/**
 * A runner's [runners.docker] and [runners.cache] as the shard's docker and cache settings
 * (docs.gitlab.com/runner/configuration/advanced-configuration.html). The model creates the
 * shard's own cache bucket, so only whether there is a cache and whether it is shared carry over.
 */
import type { KeyLedger } from "./key-ledger";
import type { TomlPath } from "./toml-source";

type Note = (text: string) => void;

export function readDocker(ledger: KeyLedger, at: TomlPath, note: Note): Record<string, unknown> {
  const docker: Record<string, unknown> = {};
  const image = ledger.string([...at, "image"]);
  if (image) docker.image = image;
  const privileged = ledger.boolean([...at, "privileged"]);
  if (privileged !== undefined) docker.privileged = privileged;
  const volumes = ledger.strings([...at, "volumes"]);
  if (volumes) docker.volumes = volumes;
  const pull = ledger.take([...at, "pull_policy"]);
  if (pull !== undefined) {
    const policies = typeof pull === "string" ? [pull] : pull;
    const known = ["always", "if-not-present", "never"];
    if (!Array.isArray(policies) || !policies.every((policy) => typeof policy === "string" && known.includes(policy))) {
      ledger.refuse([...at, "pull_policy"], `one of ${known.join(", ")}, or a list of them`, pull);
    }
    docker.pull_policy = policies;
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

export function readCache(ledger: KeyLedger, at: TomlPath, note: Note): Record<string, unknown> {
  if (!ledger.has(at)) {
    note("no [runners.cache]: the runner had no distributed cache; imported with cache.enabled false");
    return { enabled: false };
  }
  const type = ledger.string([...at, "Type"]);
  const shared = ledger.boolean([...at, "Shared"]);
  for (const store of ["s3", "gcs", "azure"]) ledger.explain([...at, store], "the model creates the shard's own cache bucket (GCS or S3) and its access");
  ledger.explain([...at, "Path"], "the model's cache bucket belongs to the shard; no path prefix is needed");
  if (type !== undefined && type !== "s3" && type !== "gcs") note(`cache Type ${JSON.stringify(type)}: the model's cache is the cloud's own bucket`);
  return { enabled: true, ...(shared === undefined ? {} : { shared }) };
}
