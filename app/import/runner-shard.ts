/**
 * One `[[runners]]` entry of a config.toml as a model shard (without its cloud, which the whole
 * import decides: ./imported-model.ts). Keys follow GitLab's config.toml reference
 * (docs.gitlab.com/runner/configuration/advanced-configuration.html): [[runners]], [runners.docker],
 * [runners.cache], [runners.machine] with [[runners.machine.autoscaling]], and [runners.autoscaler]
 * with [[runners.autoscaler.policy]], plugin_config and connector_config
 * (docs.gitlab.com/runner/executors/docker_autoscaler.html).
 *
 * A docker+machine machine runs one job at a time: capacity_per_instance 1; MaxBuilds is max_use_count
 * (0: unlimited in both); the machines are bounded by the runner's `limit`, else the global `concurrent`:
 * max_instances. How its idle settings become the autoscaler's policies: ./autoscaling-policies.ts.
 */
import type { KeyLedger } from "./key-ledger";
import { readMachineOptions, type MachineCloud } from "./machine-options";
import { readAutoscalerPolicies, readMachinePolicies } from "./autoscaling-policies";
import { readCache, readDocker } from "./docker-settings";
import type { TomlPath } from "./toml-source";

export type Executor = "docker+machine" | "docker-autoscaler" | "docker";

export interface RunnerToken {
  readonly value: string;
  /** `config.toml:5:3`, for reports (never the value). */
  readonly where: string;
}

export interface RunnerShard {
  readonly executor: Executor;
  /** `config.toml:3:1 runners[0]`. */
  readonly where: string;
  readonly name: string;
  readonly gitlabUrl: string;
  readonly cloneUrl?: string;
  readonly token?: RunnerToken;
  readonly cloud: MachineCloud;
  /** The shard as the model writes it (no name yet, no cloud). */
  readonly shard: Record<string, unknown>;
  /** Choices the import made where the file said nothing, and values it had to change. */
  readonly notes: readonly string[];
}

/** gitlab-runner's executor names that run jobs in Docker on autoscaled or fixed machines. */
const EXECUTORS: Record<string, Executor> = {
  "docker+machine": "docker+machine",
  "docker-autoscaler": "docker-autoscaler",
  // The docker-autoscaler's name while it was an experiment (gitlab-runner MR 3315).
  "docker+autoscaler": "docker-autoscaler",
  docker: "docker",
};

/** gitlab-runner's default `concurrent` (docs: advanced-configuration, [global] concurrent). */
const DEFAULT_CONCURRENT = 1;
const MAX_MANAGER_CONCURRENT = 1000;
const MAX_INSTANCES = 1000;
const MAX_CAPACITY_PER_INSTANCE = 64;

/** The executor of runners[index], or undefined (with every key of the entry left unmapped) when it has no equivalent. */
export function runnerExecutor(ledger: KeyLedger, index: number): Executor | undefined {
  const at: TomlPath = ["runners", index];
  const value = ledger.peek([...at, "executor"]);
  const executor = typeof value === "string" ? value : undefined;
  const known = executor === undefined ? undefined : EXECUTORS[executor];
  if (known) ledger.take([...at, "executor"]);
  else ledger.explain(at, `executor ${executor === undefined ? "(none)" : JSON.stringify(executor)} has no equivalent in runner-fleet (docker-autoscaler): this runner is not imported`);
  return known;
}

/**
 * The jobs each imported runner of one file may run at once. The global `concurrent` bounds all the
 * [[runners]] of one gitlab-runner process together (v19.3.0 commands/multi.go updateWorkers: "`concurrent`
 * defines the upper number of jobs that can be concurrently handled by GitLab Runner process"), and `limit` each one. In the
 * model every shard has managers of its own, so copying `concurrent` into each would multiply what the
 * fleet runs: when the runners' bounds add up to more than `concurrent`, each gets its share of it
 * (in proportion to its bound, at least 1), and a note says so. A runner alone in its file keeps
 * min(limit, concurrent).
 */
export function jobShares(ledger: KeyLedger, indexes: readonly number[]): { readonly shares: ReadonlyMap<number, number>; readonly note?: string } {
  const raw = ledger.peek(["concurrent"]);
  const concurrent = typeof raw === "number" && Number.isInteger(raw) && raw >= 1 ? raw : DEFAULT_CONCURRENT;
  const bounds = indexes.map((index) => {
    const limit = ledger.peek(["runners", index, "limit"]);
    return typeof limit === "number" && Number.isInteger(limit) && limit > 0 ? Math.min(limit, concurrent) : concurrent;
  });
  const total = bounds.reduce((sum, bound) => sum + bound, 0);
  if (total <= concurrent) return { shares: new Map(indexes.map((index, at) => [index, bounds[at]])) };
  const shares = new Map(indexes.map((index, at) => [index, Math.max(1, Math.floor((concurrent * bounds[at]) / total))]));
  return {
    shares,
    note:
      `${ledger.source.file}: concurrent ${concurrent} bounded its ${indexes.length} runners together (one gitlab-runner process), their limits adding up to ${total}; ` +
      `each shard's managers are a process of their own, so each runner gets its share: ${indexes.map((index) => `runners[${index}] ${shares.get(index)}`).join(", ")} ` +
      `(managers.concurrent, and the machines docker+machine may run): raise them if the shards should run more jobs at once together than the old manager did`,
  };
}

export function readRunnerShard(ledger: KeyLedger, index: number, executor: Executor, share?: number): RunnerShard {
  const at: TomlPath = ["runners", index];
  const file = ledger.source.file;
  const position = ledger.source.locate(at);
  const where = `${file}:${position.line}:${position.column} runners[${index}]`;
  const notes: string[] = [];
  const note = (text: string) => notes.push(`runners[${index}] (${file}): ${text}`);

  const name = ledger.string([...at, "name"]) ?? `runner-${index + 1}`;
  const gitlabUrl = ledger.string([...at, "url"]) ?? ledger.refuse([...at, "url"], "the GitLab URL the runner talks to", undefined);
  const cloneUrl = ledger.string([...at, "clone_url"]);
  const rawToken = ledger.peek([...at, "token"]);
  const tokenValue = typeof rawToken === "string" ? rawToken : undefined;
  const tokenPosition = ledger.source.locate([...at, "token"]);
  const token = tokenValue ? { value: tokenValue, where: `${file}:${tokenPosition.line}:${tokenPosition.column}` } : undefined;

  const concurrent = ledger.integer(["concurrent"], 1) ?? DEFAULT_CONCURRENT;
  const limit = ledger.integer([...at, "limit"], 0) ?? 0;
  const jobs = share ?? (limit > 0 ? Math.min(limit, concurrent) : concurrent);
  if (limit > concurrent) note(`limit ${limit} is above the global concurrent ${concurrent}: ${concurrent} jobs at once, as gitlab-runner runs`);
  if (jobs > MAX_MANAGER_CONCURRENT) note(`${jobs} jobs at once is above the ${MAX_MANAGER_CONCURRENT} a manager runs in the model; set to ${MAX_MANAGER_CONCURRENT}: add managers (managers.count) for more`);
  const requestConcurrency = ledger.integer([...at, "request_concurrency"], 1);
  if (requestConcurrency !== undefined && requestConcurrency > 100) ledger.refuse([...at, "request_concurrency"], "at most 100 (the model's bound)", requestConcurrency);
  const managers: Record<string, unknown> = {
    count: 1,
    concurrent: Math.min(jobs, MAX_MANAGER_CONCURRENT),
    ...(requestConcurrency === undefined ? {} : { request_concurrency: requestConcurrency }),
  };

  const docker = readDocker(ledger, [...at, "docker"], note);
  const cache = readCache(ledger, [...at, "cache"], note);
  let cloud: MachineCloud = { zones: [] };
  let workers: Record<string, unknown>;
  let policies: Array<Record<string, unknown>>;

  if (executor === "docker+machine") {
    const machine = [...at, "machine"];
    const reading = readMachineOptions(ledger.string([...machine, "MachineDriver"]), ledger.strings([...machine, "MachineOptions"]) ?? []);
    for (const text of reading.notes) note(text);
    for (const bad of reading.invalid) {
      ledger.refuse([...machine, "MachineOptions", bad.index], `${bad.name}=<${bad.expected}>`, undefined, "another value (not repeated: MachineOptions may hold secrets)");
    }
    for (const entry of reading.unmapped) {
      if (entry.name === "engine-registry-mirror") continue;
      ledger.unmappedPart([...machine, "MachineOptions", entry.index], entry.name, entry.reason);
    }
    const mirror = (ledger.strings([...machine, "MachineOptions"]) ?? []).find((option) => option.startsWith("engine-registry-mirror="));
    if (mirror) docker.registry_mirror = mirror.slice("engine-registry-mirror=".length);
    cloud = reading.cloud;
    if (cloud.diskSizeGb !== undefined && cloud.diskSizeGb < 10) note(`worker disk of ${cloud.diskSizeGb} GB raised to 10 GB, the model's smallest`);
    const maxInstances = Math.min(jobs, MAX_INSTANCES);
    workers = {
      ...(cloud.machineType ? { machine_type: cloud.machineType } : {}),
      ...(cloud.diskSizeGb ? { disk_size_gb: Math.max(10, cloud.diskSizeGb) } : {}),
      capacity_per_instance: 1,
      max_use_count: ledger.integer([...machine, "MaxBuilds"], 0) ?? 0,
      max_instances: maxInstances,
      ...(cloud.spot === undefined ? {} : { spot: cloud.spot }),
    };
    policies = readMachinePolicies(ledger, machine, maxInstances, note);
  } else if (executor === "docker-autoscaler") {
    const autoscaler = [...at, "autoscaler"];
    const plugin = ledger.string([...autoscaler, "plugin"]) ?? "";
    const provider = /aws/.test(plugin) ? "aws" : /google/.test(plugin) ? "google" : undefined;
    if (!provider) ledger.explain([...autoscaler, "plugin"], "a fleeting plugin other than aws and googlecloud has no equivalent in runner-fleet");
    else ledger.explain([...autoscaler, "plugin"], "runner-fleet installs the cloud's fleeting plugin itself (managers.fleeting_plugin pins it)");
    const pluginConfig = [...autoscaler, "plugin_config"];
    const zone = ledger.string([...pluginConfig, "zone"]);
    const project = ledger.string([...pluginConfig, "project"]);
    // The aws plugin's region (fleeting-plugin-aws plugin_config "region"; without it the AWS profile's), as runner-fleet renders it.
    const awsRegion = provider === "aws" ? ledger.string([...pluginConfig, "region"]) : undefined;
    if (awsRegion !== undefined && !/^[a-z]{2}(-gov)?-[a-z]+-[0-9]$/.test(awsRegion)) ledger.refuse([...pluginConfig, "region"], "an AWS region such as eu-west-1", awsRegion);
    cloud = { provider, zones: [], ...(project ? { project } : {}), ...zoneAndRegion(zone, note), ...(awsRegion ? { region: awsRegion } : {}) };
    const capacity = ledger.integer([...autoscaler, "capacity_per_instance"], 1) ?? 1;
    const maxInstances = ledger.integer([...autoscaler, "max_instances"], 0) ?? 0;
    const username = ledger.string([...autoscaler, "connector_config", "username"]);
    if (capacity > MAX_CAPACITY_PER_INSTANCE) ledger.refuse([...autoscaler, "capacity_per_instance"], `at most ${MAX_CAPACITY_PER_INSTANCE} jobs per instance (the model's bound)`, capacity);
    // gitlab-runner reads max_instances 0 as no bound; the model needs one: the jobs this manager runs at once.
    const bound = maxInstances > 0 ? Math.min(maxInstances, MAX_INSTANCES) : Math.min(Math.ceil(jobs / capacity), MAX_INSTANCES);
    if (maxInstances > MAX_INSTANCES) note(`max_instances ${maxInstances} is above the model's ${MAX_INSTANCES} per manager; set to ${MAX_INSTANCES}`);
    if (maxInstances === 0) note(`max_instances is 0 (no bound) in the file; the model needs one: ${bound}, enough for concurrent ${jobs}`);
    workers = {
      capacity_per_instance: capacity,
      max_use_count: ledger.integer([...autoscaler, "max_use_count"], 0) ?? 0,
      max_instances: bound,
      ...(username ? { username } : {}),
    };
    policies = readAutoscalerPolicies(ledger, autoscaler, bound * capacity, note);
  } else {
    // One Docker host runs every job: a worker group of one instance with the jobs as its capacity.
    const capacity = Math.min(jobs, MAX_CAPACITY_PER_INSTANCE);
    workers = { capacity_per_instance: capacity, max_use_count: 0, max_instances: 1 };
    policies = [{ periods: ["* * * * *"], idle_count: capacity, idle_time: "1h" }];
    note(`docker executor: one host ran every job; imported as one always-ready worker (max_instances 1, capacity_per_instance ${capacity}, idle_count ${capacity}): consider autoscaling it`);
  }

  const shard: Record<string, unknown> = {
    description: name,
    tags: [],
    run_untagged: true,
    managers,
    workers,
    autoscaling: { policies },
    docker,
    cache,
  };
  return { executor, where, name, gitlabUrl, ...(cloneUrl ? { cloneUrl } : {}), ...(token ? { token } : {}), cloud, shard, notes };
}

function zoneAndRegion(zone: string | undefined, note: (text: string) => void): Partial<MachineCloud> {
  if (!zone) return {};
  if (/^[a-z]+-[a-z]+[0-9]+-[a-z]$/.test(zone)) return { zones: [zone], region: zone.replace(/-[a-z]$/, "") };
  // GitLab's own googlecloud example names a region as the zone ("europe-west1"); read it as the region.
  if (/^[a-z]+-[a-z]+[0-9]+$/.test(zone)) {
    note(`plugin_config.zone "${zone}" is a region, not a zone; used as the region`);
    return { region: zone };
  }
  return {};
}
