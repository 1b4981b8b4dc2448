/**
 * The week of a shard as a picture: demand (jobs running or waiting) against capacity (job slots of
 * the live instances), hour by hour, averaged over each hour.
 * - Mermaid `xychart-beta` (mermaid.js.org/syntax/xyChart.html), which GitLab renders in merge
 *   request notes: demand as bars, capacity as a line;
 * - SVG, for people outside GitLab (`--chart <file>`): one panel per shard, days marked.
 */
import type { SimulationReport } from "./simulate-model";

export interface ChartSeries {
  readonly name: string;
  /** Unix seconds of the first hour. */
  readonly startSeconds: number;
  readonly demand: readonly number[];
  readonly capacity: readonly number[];
}

/** One series per shard of a report. */
export function chartSeries(report: SimulationReport): ChartSeries[] {
  const startSeconds = Date.parse(report.window.from) / 1000;
  return report.shards.map((shard) => ({ name: `${report.cell}/${shard.name}`, startSeconds, demand: shard.hourly.demand, capacity: shard.hourly.capacity }));
}

const round1 = (value: number) => Math.round(value * 10) / 10;

export function mermaidWeekChart(series: ChartSeries): string {
  const top = Math.max(1, Math.ceil(Math.max(...series.demand, ...series.capacity) * 1.1));
  const start = new Date(series.startSeconds * 1000).toISOString().slice(0, 16).replace("T", " ");
  return [
    "```mermaid",
    "xychart-beta",
    `  title "${series.name}: jobs running or waiting (bars) and job slots (line), hourly averages"`,
    `  x-axis "hours from ${start} UTC" 0 --> ${series.demand.length}`,
    `  y-axis "jobs" 0 --> ${top}`,
    `  bar [${series.demand.map(round1).join(", ")}]`,
    `  line [${series.capacity.map(round1).join(", ")}]`,
    "```",
  ].join("\n");
}

const PANEL_WIDTH = 960;
const PANEL_HEIGHT = 240;
const MARGIN = { left: 50, right: 20, top: 30, bottom: 30 };

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function svgWeekChart(allSeries: readonly ChartSeries[]): string {
  const height = PANEL_HEIGHT * Math.max(1, allSeries.length);
  const panels = allSeries.map((series, index) => svgPanel(series, index * PANEL_HEIGHT));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PANEL_WIDTH}" height="${height}" viewBox="0 0 ${PANEL_WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...panels,
    "</svg>",
    "",
  ].join("\n");
}

function svgPanel(series: ChartSeries, offsetY: number): string {
  const hours = Math.max(1, series.demand.length);
  const top = Math.max(1, Math.max(...series.demand, ...series.capacity) * 1.1);
  const plotWidth = PANEL_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (hour: number) => MARGIN.left + (hour / hours) * plotWidth;
  const y = (value: number) => offsetY + MARGIN.top + plotHeight - (value / top) * plotHeight;
  const barWidth = Math.max(0.5, plotWidth / hours - 0.5);
  const bars = series.demand.map((value, hour) => `<rect x="${x(hour).toFixed(1)}" y="${y(value).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(0) - y(value)).toFixed(1)}" fill="#6b8fd6"/>`);
  const line = series.capacity.map((value, hour) => `${x(hour).toFixed(1)},${y(value).toFixed(1)} ${x(hour + 1).toFixed(1)},${y(value).toFixed(1)}`).join(" ");
  const days: string[] = [];
  for (let hour = 0; hour <= hours; hour += 24) {
    const label = new Date((series.startSeconds + hour * 3600) * 1000).toISOString().slice(0, 10);
    days.push(`<line x1="${x(hour).toFixed(1)}" y1="${y(0).toFixed(1)}" x2="${x(hour).toFixed(1)}" y2="${y(top).toFixed(1)}" stroke="#ddd"/>`);
    if (hour < hours) days.push(`<text x="${(x(hour) + 2).toFixed(1)}" y="${(y(0) + 14).toFixed(1)}">${label}</text>`);
  }
  return [
    `<g>`,
    `<text x="${MARGIN.left}" y="${offsetY + 18}" font-size="13">${escapeXml(series.name)}: jobs running or waiting (bars) and job slots (line), hourly averages, UTC</text>`,
    ...days,
    ...bars,
    `<polyline points="${line}" fill="none" stroke="#d6526b" stroke-width="1.5"/>`,
    `<line x1="${MARGIN.left}" y1="${y(0).toFixed(1)}" x2="${PANEL_WIDTH - MARGIN.right}" y2="${y(0).toFixed(1)}" stroke="#333"/>`,
    `<text x="${MARGIN.left - 6}" y="${y(0).toFixed(1)}" text-anchor="end">0</text>`,
    `<text x="${MARGIN.left - 6}" y="${(y(top) + 10).toFixed(1)}" text-anchor="end">${Math.round(top)}</text>`,
    `</g>`,
  ].join("\n");
}
