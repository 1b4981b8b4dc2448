/**
 * One or more config.toml files as one cell's model: a shard per [[runners]] entry, entries that
 * differ only in their token (and name) merged into one shard with a manager per entry. The cloud,
 * region, zones and project come from the files (MachineOptions, plugin_config) where they say,
 * from the flags otherwise; a value neither gives is an error naming the flag (exit 2).
 *
 * Pure: no GitLab, no files written. The runners' tokens come back beside the model, never in it.
 */
import { UserInputError } from "../../lib/process/errors";
import { agreeingValue } from "./agreeing-value";
import { importedNetwork } from "./imported-network";
import { KeyLedger, type UnmappedKey } from "./key-ledger";
import type { MachineCloud } from "./machine-options";
import { jobShares, readRunnerShard, runnerExecutor, type Executor, type RunnerShard, type RunnerToken } from "./runner-shard";
import type { TomlSource } from "./toml-source";

export interface ImportFlags {
  readonly cell: string;
  readonly cloud: "google" | "aws";
  readonly region?: string;
  readonly project?: string;
  readonly accountId?: string;
  /** @default the cloud's own store: google-secret-manager or aws-ssm */
  readonly secretsStore?: "local" | "google-secret-manager" | "aws-ssm";
}

export interface ImportedShard {
  readonly name: string;
  /** The [[runners]] entries merged into this shard, in file order. */
  readonly entries: readonly string[];
  /** Their tokens, in the same order (never written into the model). */
  readonly tokens: readonly RunnerToken[];
  /** The shard as the model writes it. */
  readonly shard: Record<string, unknown>;
}

export interface ImportedModel {
  /** The model as data, keys in the order the model is read. */
  readonly model: Record<string, unknown>;
  readonly shards: readonly ImportedShard[];
  readonly unmapped: readonly UnmappedKey[];
  /** Values the import chose or changed: each says why. */
  readonly notes: readonly string[];
}

/** gitlab-runner release the imported managers run; the same default as prepare --generate. */
export const IMPORT_RUNNER_VERSION = "19.5.0";
const DEFAULT_MACHINE_TYPES = {
  google: { managers: "e2-standard-2", workers: "n2d-standard-2" },
  aws: { managers: "t3.medium", workers: "m7i.large" },
} as const;
const MAX_MANAGERS = 10;

export function importModel(sources: readonly TomlSource[], flags: ImportFlags): ImportedModel {
  const notes: string[] = [];
  const runners: RunnerShard[] = [];
  const ledgers = sources.map((source) => new KeyLedger(source));
  for (const ledger of ledgers) {
    const count = ledger.tables(["runners"]);
    const importable: Array<{ index: number; executor: Executor }> = [];
    for (let index = 0; index < count; index++) {
      const executor = runnerExecutor(ledger, index);
      if (executor) importable.push({ index, executor });
    }
    const { shares, note } = jobShares(ledger, importable.map((runner) => runner.index));
    if (note) notes.push(note);
    for (const { index, executor } of importable) runners.push(readRunnerShard(ledger, index, executor, shares.get(index)));
  }
  if (runners.length === 0) {
    throw new UserInputError(
      `${sources.map((source) => source.file).join(", ")}: no [[runners]] entry with a docker+machine, docker-autoscaler or docker executor; nothing to import`,
    );
  }
  const gitlabUrl = agreeingValue(runners, (runner) => runner.gitlabUrl.replace(/\/+$/, ""), "url", "the runners talk to different GitLab instances; import each instance's runners into its own cell");
  const cloneUrl = agreeingValue(runners, (runner) => runner.cloneUrl, "clone_url", "the runners clone from different addresses");
  const cloud = resolveCloud(runners, flags, notes);
  const network = importedNetwork(runners, cloud.provider, notes);

  const groups = new Map<string, RunnerShard[]>();
  for (const runner of runners) {
    const key = JSON.stringify({ executor: runner.executor, shard: { ...runner.shard, description: undefined }, cloud: runner.cloud });
    groups.set(key, [...(groups.get(key) ?? []), runner]);
  }
  const taken = new Set<string>();
  const shards = [...groups.values()].map((group): ImportedShard => {
    const [first] = group;
    notes.push(...first.notes);
    const name = uniqueName(shardName(first.name), taken);
    const managers = first.shard.managers as Record<string, unknown>;
    const count = Math.min(group.length, MAX_MANAGERS);
    if (group.length > 1) notes.push(`shard ${name}: ${group.map((runner) => runner.where).join(", ")} differ only in token and name; merged into one shard with ${count} managers`);
    if (group.length > MAX_MANAGERS) notes.push(`shard ${name}: ${group.length} entries, but a shard has at most ${MAX_MANAGERS} managers`);
    const workers = first.shard.workers as Record<string, unknown>;
    if (!workers.machine_type) {
      const why = first.executor === "docker" ? "a Docker host's config.toml does not say what machine it ran on" : "docker-autoscaler keeps it in the instance group or launch template";
      notes.push(`shard ${name}: the config.toml does not name the workers' machine type (${why}); set to ${DEFAULT_MACHINE_TYPES[cloud.provider].workers}: check it`);
    }
    const shard = {
      name,
      ...first.shard,
      managers: { machine_type: DEFAULT_MACHINE_TYPES[cloud.provider].managers, runner_version: IMPORT_RUNNER_VERSION, ...managers, count },
      workers: { machine_type: DEFAULT_MACHINE_TYPES[cloud.provider].workers, ...workers },
    };
    return { name, entries: group.map((runner) => runner.where), tokens: group.flatMap((runner) => (runner.token ? [runner.token] : [])), shard };
  });
  notes.push(
    `managers: ${DEFAULT_MACHINE_TYPES[cloud.provider].managers} running gitlab-runner ${IMPORT_RUNNER_VERSION} (a config.toml does not say what its manager runs on)`,
    "tags, run_untagged, locked, paused and maximum_timeout live in GitLab, not in config.toml: import --adopt reads them from each runner; without it every shard runs untagged jobs: set its tags",
    // lib/terraform/local-state-guard.ts: under CI=true, provision refuses local state (lost with the job).
    `state: none given, so the cell's Terraform state is local (.state/terraform/${flags.cell}.tfstate), which provision refuses in CI (CI=true): before provisioning from a pipeline, add a remote state, for example ` +
      `state: {backend: http, project_id: <the models project>} (GitLab-managed Terraform state), or {backend: ${cloud.provider === "google" ? "gcs, bucket: <an existing bucket>" : `s3, bucket: <an existing bucket>, region: ${String(cloud.model.region)}`}}`,
  );

  const model = {
    cell: { id: flags.cell },
    gitlab: { url: gitlabUrl, ...(cloneUrl ? { clone_url: cloneUrl } : {}) },
    cloud: cloud.model,
    ...(network ? { network: { existing: network } } : {}),
    secrets: { store: flags.secretsStore ?? (cloud.provider === "google" ? "google-secret-manager" : "aws-ssm") },
    shards: shards.map((shard) => shard.shard),
  };
  const unmapped = ledgers.flatMap((ledger) => ledger.unmapped());
  return { model, shards, unmapped, notes };
}

interface ResolvedCloud {
  readonly provider: "google" | "aws";
  readonly model: Record<string, unknown>;
}

function resolveCloud(runners: readonly RunnerShard[], flags: ImportFlags, notes: string[]): ResolvedCloud {
  const provider = flags.cloud;
  for (const runner of runners) {
    if (runner.cloud.provider && runner.cloud.provider !== provider) {
      throw new UserInputError(`--cloud ${provider}, but ${runner.where} runs on ${runner.cloud.provider} (its MachineDriver, MachineOptions or plugin): import it with --cloud ${runner.cloud.provider}`);
    }
  }
  const fromFiles = (pick: (cloud: MachineCloud) => string | undefined, what: string): string | undefined =>
    agreeingValue(runners, (runner) => pick(runner.cloud), what, `the runners name different ${what}s; a cell has one: import them into separate cells`);
  const fileRegion = fromFiles((cloud) => cloud.region, "region");
  if (flags.region && fileRegion && flags.region !== fileRegion) {
    throw new UserInputError(
      `--region ${flags.region}, but the runners ran in ${fileRegion} (as the config.toml says, or docker-machine's driver default where its MachineOptions name no region): leave out --region, or import into a cell of that region`,
    );
  }
  const region = flags.region ?? fileRegion;
  if (!region) {
    const why = runners.every((runner) => runner.executor === "docker")
      ? "a Docker host's config.toml names no cloud"
      : provider === "aws"
        ? "no plugin_config.region: the aws fleeting plugin read it from the AWS profile"
        : "no google-zone or plugin_config.zone";
    throw new UserInputError(`--region is needed: the config.toml files name no region (${why})`);
  }
  const zones = [...new Set(runners.flatMap((runner) => runner.cloud.zones))].filter((zone) => zone.startsWith(region));
  if (provider === "google") {
    const project = flags.project ?? fromFiles((cloud) => cloud.project, "project");
    if (!project) throw new UserInputError("--project is needed: the config.toml files name no Google Cloud project (google-project, plugin_config.project)");
    const chosen = zones.length > 0 ? zones : [`${region}-b`, `${region}-c`];
    if (zones.length === 0) notes.push(`cloud.zones: the files name no zone; set to ${chosen.join(", ")}: check them`);
    return { provider, model: { provider, project, region, zones: chosen } };
  }
  const chosen = zones.length > 0 ? zones : [`${region}a`, `${region}b`];
  if (zones.length === 0) notes.push(`cloud.availability_zones: the files name no zone; set to ${chosen.join(", ")}: check them`);
  return { provider, model: { provider, region, availability_zones: chosen, ...(flags.accountId ? { account_id: flags.accountId } : {}) } };
}

/** A runner's name as a shard name: a DNS label without "--" (lib/model/schema.ts storeSafeLabel). */
export function shardName(name: string): string {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return label || "runner";
}

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let suffix = 2; taken.has(candidate); suffix++) candidate = `${name}-${suffix}`;
  taken.add(candidate);
  return candidate;
}
