/** The simulation report as a person reads it in a terminal. */
import type { PeriodAdvice } from "./idle-count-advice";
import type { SimulationReport, ShardSimulation } from "./simulate-model";
import type { WaitSummary } from "./wait-statistics";
import { counted } from "../text/counted";

export function formatSeconds(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${(seconds / 60).toFixed(1)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

export function formatUsd(value: number | null): string {
  if (value === null) return "unknown (unpriced machine type)";
  return `$${value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

const count = (value: number) => value.toLocaleString("en-US");
const hoursText = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 1 });

function waits(summary: WaitSummary): string {
  return `mean ${formatSeconds(summary.mean)}  p50 ${formatSeconds(summary.p50)}  p95 ${formatSeconds(summary.p95)}  p99 ${formatSeconds(summary.p99)}  max ${formatSeconds(summary.max)}`;
}

function shardLines(shard: ShardSimulation): string[] {
  const lines = [`  ${shard.name}  ${counted(shard.jobs, "job")}${shard.jobs_also_matching_later_shards > 0 ? ` (${count(shard.jobs_also_matching_later_shards)} of them match a later shard too)` : ""}`];
  // A shard no job went to has no waits: "p95 0.0 s" would read as a fast queue.
  if (shard.jobs === 0) {
    lines.push("    wait            none: no job of the trace went to this shard");
  } else {
    lines.push(`    wait to start   ${waits(shard.wait_seconds)}`);
    lines.push(`    wait to pickup  ${waits(shard.pickup_wait_seconds)}  (GitLab's queued_duration)`);
  }
  if (shard.recorded_queued_seconds) lines.push(`    recorded        ${waits(shard.recorded_queued_seconds)}  (queued_duration of ${counted(shard.recorded_queued_seconds.jobs, "job")} in the trace)`);
  if (shard.worst_hour) lines.push(`    worst hour      ${shard.worst_hour.start.slice(0, 16).replace("T", " ")} UTC: p95 ${formatSeconds(shard.worst_hour.p95_wait_seconds)} over ${counted(shard.worst_hour.jobs, "job")}`);
  const hours = shard.instance_hours;
  lines.push(`    instances       ${hoursText(hours.total)} instance-hours (${hoursText(hours.busy)} busy, ${hoursText(hours.idle)} idle or booting), peak ${shard.peak_instances}, ${count(shard.instances_created)} created`);
  lines.push(`    waited on       max_instances: ${counted(shard.jobs_waited_on.max_instances, "job")}, concurrent: ${counted(shard.jobs_waited_on.concurrent, "job")}`);
  if (shard.spot) lines.push(`    spot reclaims   ${counted(shard.spot.interruptions, "instance")}, ${counted(shard.spot.jobs_interrupted, "job")} retried`);
  lines.push(`    cost            ${formatUsd(shard.cost_usd)} over the window, ${formatUsd(shard.monthly_cost_usd)} a month (workers and ${shard.prices.managers} managers)`);
  return lines;
}

/** What the simulation assumed where gitlab-runner's source does not say (docs/operations/simulate.md). */
function assumptionsLine(assumptions: SimulationReport["assumptions"]): string {
  return `  assumed: ${counted(assumptions.requests_in_flight_per_manager, "job request")} in flight per manager, each reserving a slot; idle removals checked every ${formatSeconds(assumptions.removal_check_seconds)}, ${assumptions.removal_order}; reservation throttling ${assumptions.reservation_throttling}`;
}

export function formatSimulationReport(report: SimulationReport, advice: readonly PeriodAdvice[] = [], targetWaitSeconds?: number): string {
  const lines = [
    `${report.cell}: ${counted(report.trace.in_window, "job")} from ${report.window.from.slice(0, 16)}Z to ${report.window.to.slice(0, 16)}Z (${hoursText(report.window.hours)} h); boot ${formatSeconds(report.boot_seconds)}, delete ${formatSeconds(report.delete_seconds)}, check_interval ${formatSeconds(report.check_interval_seconds)}`,
    assumptionsLine(report.assumptions),
  ];
  if (report.trace.unmatched > 0) {
    const examples = report.trace.unmatched_tag_sets.slice(0, 3).map((entry) => `[${entry.tags.join(", ") || "untagged"}] ${count(entry.jobs)}`);
    lines.push(`  ${counted(report.trace.unmatched, "job")} no shard takes (they stay pending in GitLab): ${examples.join("; ")}`);
  }
  for (const shard of report.shards) lines.push(...shardLines(shard));
  if (advice.length > 0 && targetWaitSeconds !== undefined) {
    lines.push(`  advice: the smallest idle_count per policy keeping p95 wait under ${formatSeconds(targetWaitSeconds)}`);
    for (const entry of advice) {
      const where = `${entry.shard} policy ${entry.policy} [${entry.periods.join(", ")}] ${entry.timezone}`;
      if (entry.advised_idle_count === null) {
        lines.push(`    ${where}: no idle_count does (p95 ${formatSeconds(entry.p95_wait_seconds)} now); look at max_instances, concurrent and the boot time`);
        continue;
      }
      const delta = entry.monthly_cost_delta_usd;
      const change = delta === null ? "cost change unknown" : `${delta >= 0 ? "+" : "-"}${formatUsd(Math.abs(delta))} a month`;
      lines.push(`    ${where}: idle_count ${entry.idle_count} -> ${entry.advised_idle_count} (p95 ${formatSeconds(entry.p95_wait_seconds)} -> ${formatSeconds(entry.advised_p95_wait_seconds ?? 0)}, ${change})`);
    }
  }
  // Each figure's date and source (docs/operations/cost.md); a type nobody priced is named, and its costs read "unknown".
  lines.push(`  prices (compute only): ${report.prices.used.length > 0 ? report.prices.used.join("; ") : "none known"}`);
  if (report.prices.unpriced.length > 0) lines.push(`  unpriced: ${report.prices.unpriced.join(", ")}; runner-fleet prices --write reads them from the cloud's price API`);
  return `${lines.join("\n")}\n`;
}
