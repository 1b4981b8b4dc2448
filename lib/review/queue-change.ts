/**
 * What a change to a shard's autoscaling, workers or managers does to its queue wait and cost: the
 * model at the base and at the head simulated (lib/simulate/) on the same load. The load is the
 * models repository's committed trace of the cell, `<models dir>/traces/<cell>.csv` at the head,
 * where there is one, and the synthetic office week of the head model otherwise. Only the shards
 * whose simulated settings changed are simulated; a model either side cannot read is left out (the
 * review says what it can).
 */
import { parseModel } from "../model/load";
import type { RunnerModel, Shard } from "../model/schema";
import type { JobTrace } from "../simulate/job-trace";
import { syntheticTraceFor } from "../simulate/model-synthetic-week";
import { parseTrace } from "../simulate/read-trace";
import { simulateModel, type ShardSimulation } from "../simulate/simulate-model";
import { chartSeries, mermaidWeekChart } from "../simulate/week-chart";
import type { ChangedCellsResult, ChangedTrace } from "./changed-cells";
import { repositoryRoot } from "./changed-cells";
import { cellSidesOf, committedFilesOf, headModelText, type ReviewReadOptions } from "./model-sides";
import type { CommittedFiles } from "./committed-files";
import { cellTraceFile } from "./reviewed-files";
import { counted } from "../text/counted";

/** The p95 wait a review calls out when a change raises a shard above it (simulate's --target-wait default). */
export const REVIEW_TARGET_WAIT_SECONDS = 30;

export interface QueueSide {
  /** Jobs of the trace the shard took: with none, its p95 wait is no wait at all but nothing to say. */
  readonly jobs: number;
  readonly p95WaitSeconds: number;
  readonly monthlyCostUsd: number | null;
}

export interface ShardQueueChange {
  readonly shard: string;
  /** null: the shard is not there at that side. */
  readonly before: QueueSide | null;
  readonly after: QueueSide | null;
  /** The head's p95 is above the target, and the base's (the same shard before the change) was not. */
  readonly raisedAboveTarget: boolean;
}

export interface CellQueueChange {
  readonly cell: string;
  /** "models/traces/cell-1.csv (12,345 jobs)" or "the synthetic office week (10,220 jobs)". */
  readonly load: string;
  readonly targetWaitSeconds: number;
  readonly shards: readonly ShardQueueChange[];
  /** Mermaid xychart-beta blocks of the head's simulated week, one per changed shard. */
  readonly charts: readonly string[];
}

export async function queueChanges(changed: ChangedCellsResult, options: ReviewReadOptions & { readonly targetWaitSeconds?: number }): Promise<CellQueueChange[]> {
  const files = committedFilesOf(options);
  const root = await repositoryRoot(options.cwd);
  const target = options.targetWaitSeconds ?? REVIEW_TARGET_WAIT_SECONDS;
  const out: CellQueueChange[] = [];
  for (const sides of await cellSidesOf(changed, options)) {
    const { cell } = sides;
    const before = sides.base.loaded?.model;
    const after = sides.head.loaded?.model;
    if (!before || !after) continue;
    const shards = changedShards(before, after);
    if (shards.length === 0) continue;
    const traceFile = cellTraceFile(cell.file, cell.cell);
    const traceText = await headModelText(files, root, traceFile, options.head);
    const trace: JobTrace = traceText ? parseTrace(traceText, traceFile) : syntheticTraceFor(after);
    const load = `${traceText ? traceFile : "the synthetic office week"} (${counted(trace.count, "job")})`;
    const simulate = (model: RunnerModel) => {
      const names = shards.filter((name) => model.shards.some((shard) => shard.name === name));
      return names.length === 0 ? undefined : simulateModel(model, trace, { shards: names });
    };
    const base = simulate(before);
    const head = simulate(after);
    out.push({
      cell: cell.cell,
      load,
      targetWaitSeconds: target,
      shards: shards.map((name) => shardChange(name, sideOf(base, name), sideOf(head, name), target)),
      charts: head ? chartSeries(head).map(mermaidWeekChart) : [],
    });
  }
  for (const trace of changed.traces ?? []) {
    // A cell simulated above (its model changed too) ran on the head's trace already.
    if (out.some((entry) => entry.cell === trace.cell)) continue;
    const change = await loadChange(files, root, changed.baseSha, trace, options.head, target);
    if (change) out.push(change);
  }
  return out;
}

/**
 * A trace that changes alone: the head's model on the base's load (its committed trace then, or the
 * synthetic week) and on the head's, every shard. What the team learns is whether the fleet as it
 * is still meets the target on the load it now records.
 */
async function loadChange(files: CommittedFiles, root: string, baseSha: string, trace: ChangedTrace, head: string | undefined, target: number): Promise<CellQueueChange | undefined> {
  const model = readModel(await headModelText(files, root, trace.modelFile, head), trace.modelFile);
  if (!model) return undefined;
  const baseText = await files.text(baseSha, trace.file);
  const before = baseText ? parseTrace(baseText, trace.file) : syntheticTraceFor(model);
  const after = parseTrace(await headModelText(files, root, trace.file, head), trace.file);
  const shards = model.shards.map((shard) => shard.name);
  const baseRun = simulateModel(model, before, { shards });
  const headRun = simulateModel(model, after, { shards });
  const count = (load: JobTrace) => counted(load.count, "job");
  return {
    cell: trace.cell,
    load: `${trace.file}, which this change ${baseText ? "edits" : "adds"}: the head's model on ${baseText ? "the base's trace" : "the synthetic office week"} (${count(before)}) and on the head's (${count(after)})`,
    targetWaitSeconds: target,
    shards: shards.map((name) => shardChange(name, sideOf(baseRun, name), sideOf(headRun, name), target)),
    charts: chartSeries(headRun).map(mermaidWeekChart),
  };
}

/** A shard's p95 wait and monthly cost in a simulation; null where the shard is not simulated. */
function sideOf(report: { readonly shards: readonly ShardSimulation[] } | undefined, name: string): QueueSide | null {
  const shard = report?.shards.find((entry) => entry.name === name);
  return shard ? { jobs: shard.jobs, p95WaitSeconds: shard.wait_seconds.p95, monthlyCostUsd: shard.monthly_cost_usd } : null;
}

function shardChange(shard: string, before: QueueSide | null, after: QueueSide | null, target: number): ShardQueueChange {
  // A warning is for what needs a decision: a shard this change makes slower. A new shard's figure on a load it
  // never ran (often the synthetic week) is information, shown in the table, not a warning.
  return { shard, before, after, raisedAboveTarget: before !== null && after !== null && after.p95WaitSeconds > target && before.p95WaitSeconds <= target };
}

function readModel(text: string, file: string): RunnerModel | undefined {
  if (!text) return undefined;
  try {
    return parseModel(text, file).model;
  } catch {
    return undefined;
  }
}

/** What the simulation reads of a shard: a change to any of it is worth simulating. */
function simulatedSettings(shard: Shard): string {
  return JSON.stringify([shard.tags, shard.run_untagged, shard.autoscaling, shard.workers, shard.managers.count, shard.managers.concurrent, shard.managers.machine_type]);
}

/**
 * Shards added, removed, or with changed simulated settings, in the head's order then the base's. A shard
 * renamed with renamed_from is compared with the base's shard of its former name: a rename alone is no
 * change to the queue, and its former name no removed shard.
 */
export function changedShards(before: RunnerModel, after: RunnerModel): string[] {
  const formerName = (name: string) => {
    const now = after.shards.find((shard) => shard.name === name);
    const has = (candidate: string) => before.shards.some((shard) => shard.name === candidate);
    return now?.renamed_from !== undefined && !has(name) && has(now.renamed_from) ? now.renamed_from : undefined;
  };
  const renamedAway = new Set(after.shards.flatMap((shard) => formerName(shard.name) ?? []));
  const names = [...new Set([...after.shards.map((shard) => shard.name), ...before.shards.map((shard) => shard.name)])];
  return names.filter((name) => {
    if (renamedAway.has(name)) return false;
    const was = before.shards.find((shard) => shard.name === (formerName(name) ?? name));
    const now = after.shards.find((shard) => shard.name === name);
    return !was || !now || simulatedSettings(was) !== simulatedSettings(now);
  });
}
