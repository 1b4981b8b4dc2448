/**
 * Renders cell reviews as plain text (terminal, job logs) and as Markdown for a
 * merge request note. The note starts with a fixed HTML comment marker so a
 * pipeline can find its earlier note and update it instead of adding another.
 * Every rendered string passes through redactSecrets as a last guard.
 */
import { redactSecrets } from "../text/redact";
import type { CellCapacity, PolicyCapacity, ShardCapacity } from "./capacity";
import { LIVE_ROTATION_SINCE } from "../model/rotation-mode";
import type { CellChangeSummary } from "./cell-summary";
import { costMarkdown, costText } from "./render-cost";
import { CHANGE_KINDS, type ChangeCounts, type ChangeKind, type ChangeSummary, type ResourceChangeSummary, type ShardChanges } from "./change-summary";
import { counted } from "../text/counted";

/**
 * First line of every plan summary. Distinct from the stack review's marker
 * (lib/review/render-review.ts), so the review note and the plan notes never
 * overwrite each other.
 */
export const PLAN_NOTE_MARKER = "<!-- runner-fleet-plan -->";

/** Marks one cell's part of a summary: each cell's plan job keeps its own note by this marker. */
export function cellMarker(cell: string): string {
  return `<!-- runner-fleet-plan:${cell} -->`;
}

/** Addresses listed in a note at most; GitLab notes are limited to 1,000,000 characters. */
const MAX_LISTED_RESOURCES = 500;

const KIND_LABELS: Record<ChangeKind, string> = { add: "Add", change: "Change", replace: "Replace", destroy: "Destroy", forget: "Forget" };
const KIND_VERBS: Record<ChangeKind, string> = { add: "to add", change: "to change", replace: "to replace", destroy: "to destroy", forget: "to forget" };
const KIND_SIGNS: Record<ChangeKind, string> = { add: "+", change: "~", replace: "-/+", destroy: "-", forget: "forget" };

type Cells = CellChangeSummary | readonly CellChangeSummary[];

export function renderSummaryText(summaries: Cells): string {
  return redactSecrets(asList(summaries).map(cellText).join("\n\n") + "\n");
}

export function renderSummaryMarkdown(summaries: Cells): string {
  const body = asList(summaries).map(cellMarkdown).join("\n\n");
  return redactSecrets(`${PLAN_NOTE_MARKER}\n${body}\n`);
}

function asList(summaries: Cells): readonly CellChangeSummary[] {
  return Array.isArray(summaries) ? summaries : [summaries as CellChangeSummary];
}

/** The kinds shown: the four of Terraform's own summary, plus forget when something is forgotten. */
function shownKinds(changes: ChangeSummary): ChangeKind[] {
  return CHANGE_KINDS.filter((kind) => kind !== "forget" || changes.counts.forget > 0);
}

function countsSentence(counts: ChangeCounts, kinds: readonly ChangeKind[]): string {
  return kinds.map((kind) => `${counts[kind]} ${KIND_VERBS[kind]}`).join(", ");
}

function sourceLine(summary: CellChangeSummary): string {
  if (summary.changes.source === "synth") return "Dry run: synthesized only, nothing was planned against real state; every resource counts as new.";
  const engine = summary.engine ? `${summary.engine.name}${summary.engine.version ? ` ${summary.engine.version}` : ""}` : "the engine";
  return `Planned with ${engine}${summary.planFile ? `, plan file ${summary.planFile}` : ""}.`;
}

function shardTitle(group: ShardChanges): string {
  return group.shard === null ? "cell-wide" : `shard ${group.shard}`;
}

// ---------------------------------------------------------------- text

function cellText(summary: CellChangeSummary): string {
  const { changes } = summary;
  const kinds = shownKinds(changes);
  const lines = [`Cell ${summary.cell}`, `  ${sourceLine(summary)}`];
  lines.push(changes.hasChanges ? `  Changes: ${countsSentence(changes.counts, kinds)}.` : "  No changes: the infrastructure matches the model.");
  for (const group of changes.byShard) {
    lines.push("", `  ${shardTitle(group)}: ${countsSentence(group.counts, kinds)}`);
    const rows = group.byType.map((entry) => [entry.type, ...kinds.map((kind) => signed(kind, entry.counts[kind]))]);
    lines.push(...alignColumns(rows).map((row) => `    ${row}`));
  }
  if (changes.outputs.length > 0) {
    lines.push("", `  outputs: ${changes.outputs.map((output) => `${KIND_SIGNS[output.kind]}${output.name}`).join(", ")}`);
  }
  lines.push("", "  Capacity:", ...capacityText(summary.capacity).map((row) => `    ${row}`));
  lines.push("", ...costText(summary.capacity.cost).map((row) => `  ${row}`));
  return lines.join("\n");
}

function signed(kind: ChangeKind, count: number): string {
  return count === 0 ? "" : `${KIND_SIGNS[kind]}${count}`;
}

function capacityText(capacity: CellCapacity): string[] {
  const rows = [
    ["shard", "managers", "max jobs", "max workers"],
    ...capacity.shards.map((shard) => [shard.shard, String(shard.managers), String(shard.maxConcurrentJobs), String(shard.maxWorkers)]),
    ["total", String(capacity.total.managers), String(capacity.total.maxConcurrentJobs), String(capacity.total.maxWorkers)],
  ];
  const table = alignColumns(rows);
  const policies = capacity.shards.flatMap((shard) =>
    shard.policies.map((policy) => `${shard.shard} idle ${policyWhen(policy)}: ${counted(policy.idleJobs, "job")} on ${counted(policy.idleInstances, "instance")}`),
  );
  return [...table, ...policies, ...capacity.shards.map((shard) => `${shard.shard} token rotation: ${rotationText(shard)}`)];
}

function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column].length))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd());
}

function policyWhen(policy: PolicyCapacity): string {
  return `${policy.periods.map((period) => `"${period}"`).join(", ")} ${policy.timezone}`;
}

// ---------------------------------------------------------------- markdown

function cellMarkdown(summary: CellChangeSummary): string {
  const { changes } = summary;
  const kinds = shownKinds(changes);
  const parts = [cellMarker(summary.cell), `## Runner fleet \`${summary.cell}\``, "", sourceLine(summary), ""];
  parts.push(changes.hasChanges ? `**${countsSentence(changes.counts, kinds)}**` : "**No changes**: the infrastructure matches the model.");

  for (const group of changes.byShard) {
    const heading = group.shard === null ? "Cell-wide" : `Shard \`${group.shard}\``;
    parts.push("", `### ${heading}`, "", markdownRow(["Resource type", ...kinds.map((kind) => KIND_LABELS[kind])]));
    parts.push(markdownRow(["---", ...kinds.map(() => "---:")]));
    for (const entry of group.byType) parts.push(markdownRow([code(entry.type), ...kinds.map((kind) => String(entry.counts[kind] || ""))]));
  }
  if (changes.outputs.length > 0) {
    parts.push("", `Outputs: ${changes.outputs.map((output) => `${KIND_SIGNS[output.kind]}${code(output.name)}`).join(", ")}`);
  }

  parts.push("", "### Capacity", "", ...capacityMarkdown(summary.capacity));
  parts.push("", ...costMarkdown(summary.capacity.cost));
  if (changes.resources.length > 0) parts.push("", ...resourceDetails(changes.resources));
  return parts.join("\n");
}

function capacityMarkdown(capacity: CellCapacity): string[] {
  const rows = capacity.shards.map((shard) =>
    markdownRow([
      code(shard.shard),
      String(shard.managers),
      `${shard.maxConcurrentJobs} (${shard.managers} × ${shard.maxJobsPerManager})`,
      `${shard.maxWorkers} (${shard.managers} × ${shard.maxInstancesPerManager})`,
      shard.policies.map((policy) => `${policy.periods.map(code).join(" ")} ${policy.timezone}: ${policy.idleJobs} / ${policy.idleInstances}`).join("<br>"),
    ]),
  );
  return [
    markdownRow(["Shard", "Managers", "Max concurrent jobs", "Max workers", "Idle by policy (jobs / instances)"]),
    markdownRow(["---", "---:", "---:", "---:", "---"]),
    ...rows,
    markdownRow(["**Total**", String(capacity.total.managers), String(capacity.total.maxConcurrentJobs), String(capacity.total.maxWorkers), ""]),
    "",
    ...capacity.shards.map((shard) => `Token rotation of ${code(shard.shard)}: ${rotationText(shard)}.`),
  ];
}

/** What `onboard --rotate` does to the shard's managers with their runner version. */
export function rotationText(shard: Pick<ShardCapacity, "runnerVersion" | "tokenRotation">): string {
  return shard.tokenRotation === "live"
    ? `live (gitlab-runner ${shard.runnerVersion} keeps its workers and running jobs on a new token)`
    : `drain (gitlab-runner ${shard.runnerVersion} is before ${LIVE_ROTATION_SINCE}: each manager finishes its running jobs, then starts with the new token; no new jobs meanwhile)`;
}

function resourceDetails(resources: readonly ResourceChangeSummary[]): string[] {
  const listed = resources.slice(0, MAX_LISTED_RESOURCES);
  const lines = listed.map((resource) => {
    const shard = resource.shard === null ? "" : ` (${resource.shard})`;
    const attributes = resource.attributes && resource.attributes.length > 0 ? `: ${resource.attributes.map(attributeText).join("; ")}` : "";
    // People read where a resource comes from; the logical id (with its hash suffix) is the engine's name for it.
    const name = resource.constructPath ? `${code(resource.constructPath)} ${resource.type}${instanceSuffix(resource.address)}` : code(resource.address);
    return `- **${resource.kind}** ${name}${shard}${attributes}`;
  });
  if (resources.length > listed.length) lines.push(`- … and ${resources.length - listed.length} more`);
  return [`<details><summary>All ${resources.length} resource changes</summary>`, "", ...lines, "", "</details>"];
}

/** `[0]` or `["key"]` of an instance address, so counted instances stay apart. */
function instanceSuffix(address: string): string {
  return /\[[^\]]*\]$/.exec(address)?.[0] ?? "";
}

function attributeText(attribute: NonNullable<ResourceChangeSummary["attributes"]>[number]): string {
  const parts = [code(attribute.name)];
  if (attribute.sensitive) parts.push("(sensitive)");
  else {
    if (attribute.before !== undefined) parts.push(code(attribute.before));
    if (attribute.after !== undefined || attribute.unknown) parts.push("→", attribute.unknown ? "(known after apply)" : code(attribute.after as string));
  }
  if (attribute.forcesReplacement) parts.push("(forces replacement)");
  return parts.join(" ");
}

function code(text: string): string {
  const fence = text.includes("`") ? "``" : "`";
  return `${fence}${text}${fence}`;
}

function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replace(/\|/g, "\\|").replace(/\n/g, " ")).join(" | ")} |`;
}

