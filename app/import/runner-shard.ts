/**
 * One `[[runners]]` entry of a config.toml as a model shard (without its cloud, which the whole
 * import decides: ./imported-model.ts). Keys follow GitLab's config.toml reference
 * (docs.gitlab.com/runner/configuration/advanced-configuration.html): [[runners]], [runners.docker],
 * [runners.cache], [runners.machine] with [[runners.machine.autoscaling]], and [runners.autoscaler]
 * with [[runners.autoscaler.policy]], plugin_config and connector_config
 * (docs.gitlab.com/runner/executors/docker_autoscaler.html).
 *
 * How docker+machine's settings become the autoscaler's (docs.gitlab.com/runner/configuration/autoscale.html):
 * - a machine runs one job at a time: capacity_per_instance 1; MaxBuilds is max_use_count (0: unlimited
 *   in both); the machines are bounded by the runner's `limit`, else the global `concurrent`: max_instances.
 * - IdleCount, IdleTime (seconds) are the idle_count and idle_time of a policy that always applies
 *   ("* * * * *"), and each [[runners.machine.autoscaling]] is one more policy after it; the last matching
 *   one wins in both executors.
 * - the IdleScaleFactor strategy keeps max(IdleCountMin, min(IdleCount, in-use x IdleScaleFactor)) machines
 *   idle; the autoscaler's policy keeps max(idle_count, min(scale_factor_limit, in-use x scale_factor)):
 *   IdleCountMin (default 1) is idle_count, IdleScaleFactor scale_factor and IdleCount scale_factor_limit.
 * - idle counts above the slots (max_instances x capacity) are capped there, as docker+machine caps idle
 *   machines at `limit`.
 */
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { closestTimeZone, isValidTimeZone } from "../../lib/model/value-checks";
import type { KeyLedger } from "./key-ledger";
import { readMachineOptions, type MachineCloud } from "./machine-options";
import { translateMachinePeriod } from "./period-translation";
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

export function readRunnerShard(ledger: KeyLedger, index: number, executor: Executor): RunnerShard {
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
  const jobs = limit > 0 ? Math.min(limit, concurrent) : concurrent;
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
    cloud = { provider, zones: [], ...(project ? { project } : {}), ...zoneAndRegion(zone, note) };
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

function duration(seconds: number): string {
  if (seconds > 0 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

function readMachinePolicies(ledger: KeyLedger, machine: TomlPath, slots: number, note: (text: string) => void): Array<Record<string, unknown>> {
  const policy = (at: TomlPath, periods: string[] | undefined): Record<string, unknown> => {
    const idleCount = ledger.integer([...at, "IdleCount"], 0) ?? 0;
    const idleTime = ledger.integer([...at, "IdleTime"], 0);
    const factor = ledger.number([...at, "IdleScaleFactor"], 0);
    const minimum = ledger.integer([...at, "IdleCountMin"], 0);
    const timezone = modelTimeZone(ledger, [...at, "Timezone"], note);
    const scaled = factor !== undefined && factor > 0;
    const idle = scaled ? (minimum ?? 1) : idleCount;
    const capped = Math.min(idle, slots);
    if (capped < idle) note(`${formatAt(at)}: idle count ${idle} is above the ${slots} machines the runner may run; capped at ${capped}`);
    if (minimum !== undefined && !scaled) ledger.explain([...at, "IdleCountMin"], "IdleCountMin applies only with IdleScaleFactor, which is not set");
    return {
      ...(periods ? { periods } : {}),
      ...(timezone ? { timezone } : {}),
      idle_count: capped,
      ...(idleTime === undefined ? {} : { idle_time: duration(idleTime) }),
      ...(scaled ? { scale_factor: factor, scale_factor_limit: Math.min(idleCount, slots) } : {}),
    };
  };
  const policies = [policy(machine, ["* * * * *"])];
  const count = ledger.tables([...machine, "autoscaling"]);
  for (let index = 0; index < count; index++) {
    const at = [...machine, "autoscaling", index];
    const periods = (ledger.strings([...at, "Periods"]) ?? []).map((period, periodIndex) => {
      const translated = translateMachinePeriod(period);
      if (!translated.ok) ledger.refuse([...at, "Periods", periodIndex], translated.reason, period);
      if (translated.note) note(translated.note);
      return translated.period;
    });
    if (periods.length === 0) ledger.refuse([...at, "Periods"], "at least one period", undefined);
    if (!ledger.has([...at, "Timezone"])) note(`${formatAt(at)}: no Timezone; gitlab-runner used the manager's local time zone, the model uses UTC`);
    policies.push(policy(at, periods));
  }
  return policies;
}

/** Go's time.LoadLocation reads "Local" (and "") as the manager's own zone, which the model cannot name: UTC. */
function modelTimeZone(ledger: KeyLedger, path: TomlPath, note: (text: string) => void): string | undefined {
  const zone = ledger.string(path);
  if (zone === undefined) return undefined;
  if (zone === "" || zone === "Local") {
    note(`${formatAt(path)}: time zone ${JSON.stringify(zone)} is the old manager's own; the model uses UTC: set the zone it was`);
    return undefined;
  }
  if (!isValidTimeZone(zone)) {
    const nearest = closestTimeZone(zone);
    ledger.refuse(path, `an IANA time zone such as "Europe/Berlin"${nearest ? ` (did you mean "${nearest}"?)` : ""}`, zone);
  }
  return zone;
}

function readAutoscalerPolicies(ledger: KeyLedger, autoscaler: TomlPath, slots: number, note: (text: string) => void): Array<Record<string, unknown>> {
  const count = ledger.tables([...autoscaler, "policy"]);
  const policies: Array<Record<string, unknown>> = [];
  for (let index = 0; index < count; index++) {
    const at = [...autoscaler, "policy", index];
    const periods = ledger.strings([...at, "periods"])?.map((period, periodIndex) => {
      const translated = translateMachinePeriod(period);
      if (!translated.ok) ledger.refuse([...at, "periods", periodIndex], translated.reason, period);
      if (translated.note) note(translated.note);
      return translated.period;
    });
    const timezone = modelTimeZone(ledger, [...at, "timezone"], note);
    const idleCount = ledger.integer([...at, "idle_count"], 0) ?? 0;
    const idleTime = ledger.string([...at, "idle_time"]);
    if (idleTime !== undefined && parseGoDurationSeconds(idleTime) === undefined) ledger.refuse([...at, "idle_time"], 'a Go duration such as "20m" or "1h30m"', idleTime);
    const factor = ledger.number([...at, "scale_factor"], 0);
    const factorLimit = ledger.integer([...at, "scale_factor_limit"], 0);
    const capped = Math.min(idleCount, slots);
    if (capped < idleCount) note(`${formatAt(at)}: idle_count ${idleCount} is above the ${slots} slots (max_instances x capacity_per_instance); capped at ${capped}`);
    policies.push({
      ...(periods ? { periods } : {}),
      ...(timezone ? { timezone } : {}),
      idle_count: capped,
      ...(idleTime ? { idle_time: idleTime } : {}),
      ...(factor === undefined ? {} : { scale_factor: factor }),
      ...(factorLimit === undefined ? {} : { scale_factor_limit: factorLimit }),
    });
  }
  return policies.length > 0 ? policies : [{ periods: ["* * * * *"], idle_count: 0 }];
}

function readDocker(ledger: KeyLedger, at: TomlPath, note: (text: string) => void): Record<string, unknown> {
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

function readCache(ledger: KeyLedger, at: TomlPath, note: (text: string) => void): Record<string, unknown> {
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

function formatAt(path: TomlPath): string {
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}
