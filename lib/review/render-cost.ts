/**
 * The monthly cost estimate of a cell (lib/cost/estimate.ts) as text rows and as
 * Markdown, for the capacity part of the plan summary. Unknown prices read "unknown"; the prices used are
 * named with their source and date.
 */
import { pricesUsed, type CellCost, type ShardCost } from "../cost/estimate";
import { formatGroupedDecimal } from "../text/grouped-decimal";

/** Dollars and cents as en-US writes them ("$1,234.50"), without an Intl formatter: lib/text/grouped-decimal.ts says why. */
export function formatMoney(amount: number | null): string {
  if (amount === null) return "unknown";
  return `$${formatGroupedDecimal(amount, 2)}`;
}

/**
 * The total; for a partly priced cell what is priced, as a lower bound ("unknown: at least $12.00 priced");
 * for a cell with nothing priced (a region the table lacks), "unknown", never $0.00.
 */
function totalMoney(cost: CellCost, pick: "idle" | "max"): string {
  const total = cost.total[pick];
  if (total !== null) return formatMoney(total);
  return cost.priced[pick] > 0 ? `unknown: at least ${formatMoney(cost.priced[pick])} priced` : "unknown";
}

function heading(cost: CellCost): string {
  return `Monthly cost estimate (${cost.currency}, ${cost.hoursPerMonth} h a month; ${cost.cloud} ${cost.region} on-demand prices; ${cost.excludes})`;
}

function managersCell(shard: ShardCost): string {
  return `${shard.managers.count} × ${shard.managers.machineType}: ${formatMoney(shard.managers.monthly)}`;
}

function workersCell(shard: ShardCost, instances: number, amount: number | null): string {
  const spot = shard.workers.spot ? ` spot −${Math.round((shard.workers.spotDiscount ?? 0) * 100)}%` : "";
  return `${roundInstances(instances)} × ${shard.workers.machineType}${spot}: ${formatMoney(amount)}`;
}

function roundInstances(count: number): string {
  return Number.isInteger(count) ? String(count) : count.toFixed(1);
}

/** Where every price came from, with its date (data/prices.json, or the model's own), then what nobody priced. */
function notes(cost: CellCost): string[] {
  const used = pricesUsed(cost);
  const lines = used.length > 0 ? [`prices: ${used.join("; ")}`] : [];
  lines.push(...cost.unpriced.map((what) => `unpriced: ${what}; runner-fleet prices --write reads it from the cloud's price API, or add it to cost.hourly_prices in the model`));
  return lines;
}

export function costText(cost: CellCost): string[] {
  const rows = [
    ["shard", "managers", "workers at idle", "workers at max", "month at idle", "month at max"],
    ...cost.shards.map((shard) => [
      shard.shard,
      managersCell(shard),
      workersCell(shard, shard.workers.averageIdleInstances, shard.workers.idleMonthly),
      workersCell(shard, shard.workers.maxInstances, shard.workers.maxMonthly),
      formatMoney(shard.monthly.idle),
      formatMoney(shard.monthly.max),
    ]),
    ["total", "", "", "", totalMoney(cost, "idle"), totalMoney(cost, "max")],
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return [`${heading(cost)}:`, ...rows.map((row) => `  ${row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd()}`), ...notes(cost)];
}

export function costMarkdown(cost: CellCost): string[] {
  const row = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, "\\|")).join(" | ")} |`;
  return [
    `${heading(cost)}.`,
    "",
    row(["Shard", "Managers", "Workers at idle", "Workers at max", "Month at idle", "Month at max"]),
    row(["---", "---", "---", "---", "---:", "---:"]),
    ...cost.shards.map((shard) =>
      row([
        `\`${shard.shard}\``,
        managersCell(shard),
        workersCell(shard, shard.workers.averageIdleInstances, shard.workers.idleMonthly),
        workersCell(shard, shard.workers.maxInstances, shard.workers.maxMonthly),
        formatMoney(shard.monthly.idle),
        formatMoney(shard.monthly.max),
      ]),
    ),
    row(["**Total**", "", "", "", `**${totalMoney(cost, "idle")}**`, `**${totalMoney(cost, "max")}**`]),
    ...notes(cost).map((line) => `\n${line}`),
  ];
}
