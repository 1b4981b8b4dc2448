/**
 * `simulate` on a model: routes a trace's jobs to the model's shards (./route-jobs.ts), replays each
 * shard's jobs against its autoscaling (./simulate-fleet.ts), and reports per shard the queue wait,
 * the instance-hours and their cost at the prices the dry run uses (lib/cost/estimate.ts).
 */
import { estimateCellCost, pricesUsed } from "../cost/estimate";
import { cellTag } from "../model/cell-tag";
import type { RunnerModel, Shard } from "../model/schema";
import { UserInputError } from "../process/errors";
import { DEFAULT_BOOT_SECONDS, DEFAULT_CHECK_INTERVAL_SECONDS, DEFAULT_DELETE_SECONDS, fleetConfigOf, type FleetConfig } from "./fleet-config";
import type { JobTrace } from "./job-trace";
import { routeJobs, type JobRouting, type RoutableShard } from "./route-jobs";
import { SIMULATION_ASSUMPTIONS, simulateFleet, type FleetRun, type SimulationWindow } from "./simulate-fleet";
import { summariseWaits, worstHourByP95, type WaitSummary } from "./wait-statistics";

export interface SimulateOptions {
  /** Shards simulated, by name. @default every shard */
  readonly shards?: readonly string[];
  /** @default DEFAULT_BOOT_SECONDS of the model's cloud */
  readonly bootSeconds?: number;
  /** @default DEFAULT_DELETE_SECONDS of the model's cloud */
  readonly deleteSeconds?: number;
  /** @default 3 (check_interval as rendered) */
  readonly checkIntervalSeconds?: number;
  /** Unix seconds; jobs created before are left out. @default the first job's hour */
  readonly fromSeconds?: number;
  /** Unix seconds; jobs created at or after are left out. @default the end of the last job's hour */
  readonly toSeconds?: number;
  /** Spot workers' reclaims per instance-hour (shards with workers.spot only). @default 0 */
  readonly spotInterruptionsPerHour?: number;
  /** Seeds the spot lifetimes. @default 1 */
  readonly seed?: number;
  /** Changes the fleet of a shard before it is simulated (the advice tries other idle counts). */
  readonly adjustFleet?: (shard: Shard, fleet: FleetConfig) => FleetConfig;
  /** Called as each shard is done (progress on long runs). */
  readonly onShard?: (name: string, index: number, total: number) => void;
}

export interface ShardSimulation {
  readonly name: string;
  readonly jobs: number;
  /** Jobs a later shard in the model matches too (given to this one, the first match). */
  readonly jobs_also_matching_later_shards: number;
  /** From a job's creation until it started running. */
  readonly wait_seconds: WaitSummary;
  /** From a job's creation until a manager took it: what GitLab records as queued_duration. */
  readonly pickup_wait_seconds: WaitSummary;
  /** queued_duration as the trace recorded it, where it has one. */
  readonly recorded_queued_seconds: (WaitSummary & { readonly jobs: number }) | null;
  readonly worst_hour: { readonly start: string; readonly jobs: number; readonly p95_wait_seconds: number } | null;
  readonly instance_hours: { readonly busy: number; readonly idle: number; readonly total: number };
  readonly peak_instances: number;
  readonly instances_created: number;
  readonly jobs_waited_on: { readonly max_instances: number; readonly concurrent: number };
  /** Spot workers reclaimed (with --spot-interruptions) and the job attempts that ended with them (each retried). */
  readonly spot: { readonly interruptions: number; readonly jobs_interrupted: number } | null;
  /** Workers' instance-hours and the managers over the window, priced; null when a price is unknown. */
  readonly cost_usd: number | null;
  /** cost_usd scaled from the window to a month of the price table's hours. */
  readonly monthly_cost_usd: number | null;
  readonly prices: { readonly worker_hourly: number | null; readonly manager_hourly: number | null; readonly managers: number };
  /** Per hour of the window: average jobs running or waiting, and job slots of live instances. */
  readonly hourly: { readonly demand: readonly number[]; readonly capacity: readonly number[] };
}

export interface SimulationReport {
  readonly cell: string;
  readonly window: { readonly from: string; readonly to: string; readonly hours: number };
  readonly boot_seconds: number;
  readonly delete_seconds: number;
  readonly check_interval_seconds: number;
  /** Where gitlab-runner's source does not say how taskscaler behaves, what the simulation assumed. */
  readonly assumptions: typeof SIMULATION_ASSUMPTIONS;
  readonly trace: { readonly jobs: number; readonly in_window: number; readonly unmatched: number; readonly unmatched_tag_sets: ReadonlyArray<{ readonly tags: readonly string[]; readonly jobs: number }> };
  readonly shards: readonly ShardSimulation[];
  /** The table's date and file, and each price used with its own date and source; the machine types nobody priced. */
  readonly prices: { readonly as_of: string; readonly file: string; readonly hours_per_month: number; readonly used: readonly string[]; readonly unpriced: readonly string[] };
}

export interface ShardLoad {
  readonly shard: Shard;
  /** The shard's place in the model. */
  readonly index: number;
  readonly fleet: FleetConfig;
  readonly createdAt: Float64Array;
  readonly duration: Float64Array;
  readonly recorded: Float64Array;
  readonly sharedWithLater: number;
  readonly workerHourly: number | null;
  readonly managerHourly: number | null;
}

export interface PreparedSimulation {
  readonly window: SimulationWindow;
  readonly windowHours: number;
  readonly hoursPerMonth: number;
  readonly bootSeconds: number;
  readonly deleteSeconds: number;
  readonly checkIntervalSeconds: number;
  readonly inWindow: number;
  readonly routing: JobRouting;
  readonly loads: readonly ShardLoad[];
  readonly prices: { readonly asOf: string; readonly file: string; readonly used: readonly string[]; readonly unpriced: readonly string[] };
}

/** Everything a run needs before the first event: the window, each selected shard's jobs, fleet and prices. */
export function prepareSimulation(model: RunnerModel, trace: JobTrace, options: SimulateOptions = {}): PreparedSimulation {
  const selected = selectShards(model, options.shards);
  const window = simulationWindow(trace, options);
  const inWindow = jobsInWindow(trace, window);
  const routing = routeJobs(inWindow, routableShards(model));
  const bootSeconds = options.bootSeconds ?? DEFAULT_BOOT_SECONDS[model.cloud.provider];
  const deleteSeconds = options.deleteSeconds ?? DEFAULT_DELETE_SECONDS[model.cloud.provider];
  const checkIntervalSeconds = options.checkIntervalSeconds ?? DEFAULT_CHECK_INTERVAL_SECONDS;
  const cost = estimateCellCost(model);
  const loads = selected.map((shard): ShardLoad => {
    const index = model.shards.indexOf(shard);
    const jobs = routing.jobsOf[index];
    const createdAt = new Float64Array(jobs.length);
    const duration = new Float64Array(jobs.length);
    const recorded = new Float64Array(jobs.length);
    for (let at = 0; at < jobs.length; at += 1) {
      createdAt[at] = inWindow.createdAt[jobs[at]];
      duration[at] = inWindow.duration[jobs[at]];
      recorded[at] = inWindow.queuedDuration[jobs[at]];
    }
    let fleet = fleetConfigOf(shard, { bootSeconds, deleteSeconds, checkIntervalSeconds, spotInterruptionsPerHour: options.spotInterruptionsPerHour, seed: options.seed });
    if (options.adjustFleet) fleet = options.adjustFleet(shard, fleet);
    const shardCost = cost.shards[index];
    return { shard, index, fleet, createdAt, duration, recorded, sharedWithLater: routing.sharedWithLater[index], workerHourly: shardCost.workers.hourly, managerHourly: shardCost.managers.hourly };
  });
  return {
    window,
    windowHours: (window.endSeconds - window.startSeconds) / 3600,
    hoursPerMonth: cost.hoursPerMonth,
    bootSeconds,
    deleteSeconds,
    checkIntervalSeconds,
    inWindow: inWindow.count,
    routing,
    loads,
    prices: { asOf: cost.prices.asOf, file: cost.prices.file, used: pricesUsed(cost), unpriced: cost.unpriced },
  };
}

export function simulateModel(model: RunnerModel, trace: JobTrace, options: SimulateOptions = {}): SimulationReport {
  const prepared = prepareSimulation(model, trace, options);
  const shards = prepared.loads.map((load, position): ShardSimulation => {
    const run = simulateFleet(load.fleet, load, prepared.window);
    options.onShard?.(load.shard.name, position, prepared.loads.length);
    return shardReport(load, run, prepared);
  });
  return {
    cell: model.cell.id,
    window: { from: new Date(prepared.window.startSeconds * 1000).toISOString(), to: new Date(prepared.window.endSeconds * 1000).toISOString(), hours: prepared.windowHours },
    boot_seconds: prepared.bootSeconds,
    delete_seconds: prepared.deleteSeconds,
    check_interval_seconds: prepared.checkIntervalSeconds,
    assumptions: SIMULATION_ASSUMPTIONS,
    trace: { jobs: trace.count, in_window: prepared.inWindow, unmatched: prepared.routing.unmatched, unmatched_tag_sets: prepared.routing.unmatchedTagSets.slice(0, 10) },
    shards,
    prices: { as_of: prepared.prices.asOf, file: prepared.prices.file, hours_per_month: prepared.hoursPerMonth, used: prepared.prices.used, unpriced: prepared.prices.unpriced },
  };
}

/** Workers' instance-hours and the managers over the window, priced; null when a price is unknown. */
export function windowCost(load: ShardLoad, instanceSeconds: number, windowHours: number): number | null {
  if (load.workerHourly === null || load.managerHourly === null) return null;
  return (instanceSeconds / 3600) * load.workerHourly + load.fleet.managers * windowHours * load.managerHourly;
}

function shardReport(load: ShardLoad, run: FleetRun, prepared: PreparedSimulation): ShardSimulation {
  const total = run.instanceSeconds / 3600;
  const busy = run.busyInstanceSeconds / 3600;
  const recordedJobs = load.recorded.reduce((count, value) => (Number.isNaN(value) ? count : count + 1), 0);
  const worst = worstHourByP95(load.createdAt, run.waitSeconds, prepared.window.startSeconds);
  const cost = windowCost(load, run.instanceSeconds, prepared.windowHours);
  return {
    name: load.shard.name,
    jobs: load.createdAt.length,
    jobs_also_matching_later_shards: load.sharedWithLater,
    wait_seconds: summariseWaits(run.waitSeconds),
    pickup_wait_seconds: summariseWaits(run.pickupSeconds),
    recorded_queued_seconds: recordedJobs === 0 ? null : { ...summariseWaits(load.recorded), jobs: recordedJobs },
    worst_hour: worst ? { start: new Date(worst.startSeconds * 1000).toISOString(), jobs: worst.jobs, p95_wait_seconds: worst.p95 } : null,
    instance_hours: { busy, idle: total - busy, total },
    peak_instances: run.peakInstances,
    instances_created: run.instancesCreated,
    jobs_waited_on: { max_instances: run.waitedOnMaxInstances, concurrent: run.waitedOnConcurrent },
    spot: load.fleet.spotInterruptionsPerHour ? { interruptions: run.spotInterruptions, jobs_interrupted: run.jobsInterrupted } : null,
    cost_usd: cost,
    monthly_cost_usd: cost === null ? null : (cost * prepared.hoursPerMonth) / prepared.windowHours,
    prices: { worker_hourly: load.workerHourly, manager_hourly: load.managerHourly, managers: load.fleet.managers },
    hourly: { demand: Array.from(run.hourlyDemand), capacity: Array.from(run.hourlyCapacity) },
  };
}

/** The shards as GitLab matches jobs to their runners: the model's tags and the cell's own, which onboard adds (lib/model/cell-tag.ts). */
export function routableShards(model: RunnerModel): RoutableShard[] {
  return model.shards.map((shard) => ({ name: shard.name, tags: [...shard.tags, cellTag(model)], runUntagged: shard.run_untagged }));
}

/** The shards --shard names (every shard without it); a UserInputError for a name the model lacks. */
export function selectShards(model: RunnerModel, names: readonly string[] | undefined): Shard[] {
  if (!names || names.length === 0) return model.shards;
  return names.map((name) => {
    const shard = model.shards.find((candidate) => candidate.name === name);
    if (!shard) throw new UserInputError(`--shard ${JSON.stringify(name)}: cell ${model.cell.id} has no such shard; expected one of ${model.shards.map((known) => known.name).join(", ")}`);
    return shard;
  });
}

/** [from, to): by default the hours the trace's jobs were created in. */
export function simulationWindow(trace: JobTrace, options: Pick<SimulateOptions, "fromSeconds" | "toSeconds">): SimulationWindow {
  const first = trace.count > 0 ? trace.createdAt[0] : 0;
  const last = trace.count > 0 ? trace.createdAt[trace.count - 1] : 0;
  const startSeconds = options.fromSeconds ?? Math.floor(first / 3600) * 3600;
  const endSeconds = options.toSeconds ?? Math.max(startSeconds + 3600, (Math.floor(last / 3600) + 1) * 3600);
  if (endSeconds <= startSeconds) throw new UserInputError(`--to (${new Date(endSeconds * 1000).toISOString()}) must be after --from (${new Date(startSeconds * 1000).toISOString()})`);
  if (startSeconds % 60 !== 0) throw new UserInputError(`--from must be a whole minute; got ${new Date(startSeconds * 1000).toISOString()}`);
  return { startSeconds, endSeconds };
}

function jobsInWindow(trace: JobTrace, window: SimulationWindow): JobTrace {
  let first = 0;
  while (first < trace.count && trace.createdAt[first] < window.startSeconds) first += 1;
  let end = first;
  while (end < trace.count && trace.createdAt[end] < window.endSeconds) end += 1;
  if (first === 0 && end === trace.count) return trace;
  return {
    count: end - first,
    createdAt: trace.createdAt.subarray(first, end),
    duration: trace.duration.subarray(first, end),
    tagSet: trace.tagSet.subarray(first, end),
    tagSets: trace.tagSets,
    queuedDuration: trace.queuedDuration.subarray(first, end),
  };
}
