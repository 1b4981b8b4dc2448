/**
 * A monthly cost estimate of a cell's compute, per shard and for the cell:
 * - managers run all month;
 * - workers "at idle": the idle instances the autoscaling policies keep, weighted by
 *   how long each policy is in force in a week (./policy-time.ts);
 * - workers "at maximum": every manager's max_instances running all month (the ceiling).
 * Spot workers are priced at the on-demand price less the spot discount (the model's
 * cost.spot_discount, else the price table's). Prices come from the model's
 * cost.hourly_prices, else the dated table (data/prices.json). A machine type
 * neither knows is named as unpriced and leaves the affected sums unknown: never 0. Zero
 * instances of an unpriced type cost 0, and `priced` holds the sums of what is priced, so a
 * partly priced cell still shows a figure (a lower bound) beside the names of what is not.
 * Disks, network (NAT, egress), storage and monitoring are not included.
 */
import type { RunnerModel, Shard } from "../model/schema";
import { policyShares } from "./policy-time";
import { listPrice, PRICE_TABLE, PRICE_TABLE_FILE, type PriceTable } from "./price-table";
import { preemptiveModeEnabled, REQUESTS_IN_FLIGHT } from "../model/job-reservations";

export type PriceSource = "model" | "table";

export interface MachinePrice {
  readonly machineType: string;
  /** On-demand hourly price; null when unknown. */
  readonly onDemandHourly: number | null;
  /** What is paid per hour after any spot discount; null when unknown. */
  readonly hourly: number | null;
  readonly source: PriceSource | null;
  /** The day or month the price was read ("2026-11-29"), null when the model gives a bare number or nothing priced it. */
  readonly asOf: string | null;
  /** Where it was read (data/prices.json, which names its sources, or a dated model entry's source), null when unknown. */
  readonly from: string | null;
  readonly spot: boolean;
  /** Share of the on-demand price saved, for spot workers. */
  readonly spotDiscount?: number;
}

export interface ShardCost {
  readonly shard: string;
  readonly managers: MachinePrice & { readonly count: number; readonly monthly: number | null };
  readonly workers: MachinePrice & {
    /** Idle worker instances of the shard, averaged over a week of autoscaling policies. */
    readonly averageIdleInstances: number;
    readonly maxInstances: number;
    readonly idleMonthly: number | null;
    readonly maxMonthly: number | null;
  };
  /** Managers plus workers at idle capacity, and at their maximum. */
  readonly monthly: { readonly idle: number | null; readonly max: number | null };
}

export interface CellCost {
  readonly currency: "USD";
  readonly hoursPerMonth: number;
  readonly cloud: "aws" | "google";
  readonly region: string;
  /** Date and file of the price table, and its source for this cloud. */
  readonly prices: { readonly asOf: string; readonly file: string; readonly source: string };
  readonly shards: readonly ShardCost[];
  readonly total: { readonly idle: number | null; readonly max: number | null };
  /** The sums of the priced parts only: equal to total when everything is priced, a lower bound otherwise. */
  readonly priced: { readonly idle: number; readonly max: number };
  /** "m9.huge (workers of shard x) in eu-west-1": prices nobody gave; their sums are unknown. */
  readonly unpriced: readonly string[];
  readonly excludes: string;
}

export const COST_EXCLUDES = "compute only: disks, network (NAT, egress), storage and monitoring are not included";

export function estimateCellCost(model: RunnerModel, table: PriceTable = PRICE_TABLE): CellCost {
  const cloud = model.cloud.provider;
  const region = model.cloud.region;
  const hours = table.hours_per_month;
  const unpriced: string[] = [];
  const priceOf = (machineType: string, role: string, shard: Shard, { spot }: { readonly spot: boolean }): MachinePrice => {
    const override = modelPrice(model.cost.hourly_prices[machineType]);
    const listed = listPrice(table, cloud, region, machineType);
    const onDemand = override?.usd ?? listed ?? null;
    if (onDemand === null) unpriced.push(`${machineType} (${role} of shard ${shard.name}) in ${region}`);
    const source: PriceSource | null = override !== undefined ? "model" : listed !== undefined ? "table" : null;
    const dated =
      override !== undefined
        ? { asOf: override.asOf, from: override.from }
        : listed !== undefined
          ? { asOf: table.as_of, from: PRICE_TABLE_FILE }
          : { asOf: null, from: null };
    if (!spot) return { machineType, onDemandHourly: onDemand, hourly: onDemand, source, ...dated, spot };
    const spotDiscount = model.cost.spot_discount ?? table.spot_discount[cloud];
    return { machineType, onDemandHourly: onDemand, hourly: onDemand === null ? null : onDemand * (1 - spotDiscount), source, ...dated, spot, spotDiscount };
  };

  const shards = model.shards.map((shard): ShardCost => {
    const managerPrice = priceOf(shard.managers.machine_type, "managers", shard, { spot: false });
    const workerPrice = priceOf(shard.workers.machine_type, "workers", shard, { spot: shard.workers.spot });
    const count = shard.managers.count;
    const averageIdleInstances = averageIdleWorkers(shard);
    const maxInstances = count * shard.workers.max_instances;
    const managersMonthly = times(managerPrice.hourly, count * hours);
    const idleMonthly = times(workerPrice.hourly, averageIdleInstances * hours);
    const maxMonthly = times(workerPrice.hourly, maxInstances * hours);
    return {
      shard: shard.name,
      managers: { ...managerPrice, count, monthly: managersMonthly },
      workers: { ...workerPrice, averageIdleInstances, maxInstances, idleMonthly, maxMonthly },
      monthly: { idle: plus(managersMonthly, idleMonthly), max: plus(managersMonthly, maxMonthly) },
    };
  });
  return {
    currency: table.currency,
    hoursPerMonth: hours,
    cloud,
    region,
    prices: { asOf: table.as_of, file: PRICE_TABLE_FILE, source: table.sources[cloud] },
    shards,
    total: {
      idle: shards.reduce<number | null>((sum, shard) => plus(sum, shard.monthly.idle), 0),
      max: shards.reduce<number | null>((sum, shard) => plus(sum, shard.monthly.max), 0),
    },
    priced: {
      idle: shards.reduce((sum, shard) => sum + (shard.managers.monthly ?? 0) + (shard.workers.idleMonthly ?? 0), 0),
      max: shards.reduce((sum, shard) => sum + (shard.managers.monthly ?? 0) + (shard.workers.maxMonthly ?? 0), 0),
    },
    unpriced,
    excludes: COST_EXCLUDES,
  };
}

type ModelPriceEntry = RunnerModel["cost"]["hourly_prices"][string];

/** A model's price: a bare number is the team's own and undated; a dated entry keeps its day and source. */
function modelPrice(entry: ModelPriceEntry | undefined): { usd: number; asOf: string | null; from: string } | undefined {
  if (entry === undefined) return undefined;
  if (typeof entry === "number") return { usd: entry, asOf: null, from: "the model's cost.hourly_prices (undated)" };
  return { usd: entry.usd, asOf: entry.as_of, from: entry.source };
}

/** Where the estimate's prices came from, one entry per source and date, naming the machine types each priced. */
export function pricesUsed(cost: CellCost): string[] {
  const bySource = new Map<string, string[]>();
  for (const price of cost.shards.flatMap((shard) => [shard.managers, shard.workers])) {
    if (price.onDemandHourly === null) continue;
    const key = price.asOf === null ? String(price.from) : `${price.from}, as of ${price.asOf}`;
    const types = bySource.get(key) ?? [];
    if (!types.includes(price.machineType)) types.push(price.machineType);
    bySource.set(key, types);
  }
  return [...bySource].map(([source, types]) => `${types.join(", ")} from ${source}`);
}

/**
 * Idle worker instances of the whole shard, averaged over the week. Each manager keeps its idle slots, and
 * its job request in flight holds a reservation (gitlab-runner commands/multi.go processRunner reserves
 * before it asks for a job; lib/model/job-reservations.ts, which the simulator follows too). A
 * preemptive policy reserves one of its idle slots; any other keeps that reservation's slot warm on top: at idle_count 0,
 * one instance a manager, not none.
 */
export function averageIdleWorkers(shard: Shard): number {
  const shares = policyShares(shard.autoscaling.policies);
  const perManager = shard.autoscaling.policies.map((policy) => {
    const reserved = preemptiveModeEnabled(policy.preemptive_mode, policy.idle_count) ? 0 : REQUESTS_IN_FLIGHT;
    return Math.ceil((policy.idle_count + reserved) / shard.workers.capacity_per_instance);
  });
  return shard.managers.count * shares.reduce((sum, share, index) => sum + share * perManager[index], 0);
}

/** Zero of anything costs nothing, priced or not (no idle workers of an unpriced type: 0, not unknown). */
function times(price: number | null, factor: number): number | null {
  if (factor === 0) return 0;
  return price === null ? null : price * factor;
}

function plus(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}
