/** The simulated queue wait and cost of a review (./queue-change.ts), as text and as Markdown. */
import { formatMoney } from "./render-cost";
import type { CellQueueChange, QueueSide, ShardQueueChange } from "./queue-change";
import { runningToolkit, toolkitCommand } from "../ci/toolkit-invocation";

function seconds(value: number): string {
  return value < 10 ? `${value.toFixed(1)} s` : value < 120 ? `${Math.round(value)} s` : `${(value / 60).toFixed(1)} min`;
}

const wait = (side: QueueSide | null) => (side === null ? "none" : side.jobs === 0 ? "no jobs" : seconds(side.p95WaitSeconds));
const money = (side: QueueSide | null) => (side === null ? "none" : formatMoney(side.monthlyCostUsd));

function callout(change: CellQueueChange, shard: ShardQueueChange): string {
  return `p95 wait of shard ${shard.shard} rises above the ${seconds(change.targetWaitSeconds)} target: ${wait(shard.before)} → ${wait(shard.after)}`;
}

export function queueTextLines(change: CellQueueChange): string[] {
  const lines = [`simulated on ${change.load}:`];
  for (const shard of change.shards) lines.push(`  ${shard.shard}: p95 wait ${wait(shard.before)} → ${wait(shard.after)}, simulated cost ${money(shard.before)} → ${money(shard.after)} a month`);
  for (const shard of change.shards.filter((entry) => entry.raisedAboveTarget)) lines.push(`WARNING: ${callout(change, shard)}`);
  return lines;
}

export function queueMarkdown(change: CellQueueChange): string[] {
  const out = [
    `**Simulated queue wait** on ${change.load}, base → head (\`${toolkitCommand(runningToolkit(), "simulate")}\`; p95 target ${seconds(change.targetWaitSeconds)}):`,
    "",
    "| Shard | p95 wait | Monthly cost (simulated) |",
    "|---|---|---|",
    ...change.shards.map((shard) => `| \`${shard.shard}\` | ${wait(shard.before)} → ${wait(shard.after)} | ${money(shard.before)} → ${money(shard.after)} |`),
  ];
  for (const shard of change.shards.filter((entry) => entry.raisedAboveTarget)) out.push("", `> :warning: **${callout(change, shard)}**.`);
  if (change.charts.length > 0) out.push("", "<details><summary>Jobs and job slots, hour by hour (head)</summary>", "", ...change.charts.flatMap((chart) => [chart, ""]), "</details>");
  return out;
}
