/**
 * A review of synthesized stacks as text (terminal, job log), markdown (the one
 * merge-request note, found again by its marker) and JSON (the diff object).
 * Every value shown was made safe by stack-diff (hashes for scripts, redaction
 * for tokens); the whole output is redacted once more on the way out.
 */
import { describeRollForReview } from "../roll/roll-plan";
import { redactSecrets } from "../text/redact";
import type { ChangedCellsResult } from "./changed-cells";
import { describeCostChange, type CellCostChange } from "./cost-change";
import { formatMoney } from "./render-cost";
import type { CellModelWarnings } from "./model-warnings";
import { describeRunnerChange, type CellGitLabChange } from "./gitlab-changes";
import { cellsHeading, cellsHeadingMarkdown, cellsListMarkdown, sameChanges, type CellSection } from "./same-changes";
import type { CellImportNote } from "./imported-models";
import type { CellQueueChange } from "./queue-change";
import { queueMarkdown, queueTextLines } from "./render-queue";
import { describeManagerChanges } from "./manager-changes";
import type { RenderedFileChange } from "./rendered-diff";
import type { AttributeChange, EntryChange } from "./entry-change";
import { countActions, type CellDiff, type StackDiff } from "./stack-diff";
import { toolkitUpgradeMarkdown, toolkitUpgradeText } from "./render-toolkit-upgrade";
import type { ToolkitUpgrade } from "./toolkit-upgrade";
import { INSTALLED_TOOLKIT, toolkitCommand } from "../ci/toolkit-invocation";
import { rolloutMarkdown, rolloutText, type RolloutReview } from "./rollout-review";

/** First line of the merge-request note: how the note is found and updated instead of duplicated. */
export const REVIEW_MARKER = "<!-- runner-fleet-review -->";

export interface ReviewReport {
  readonly base: { readonly ref: string; readonly sha: string };
  readonly head: { readonly ref: string; readonly sha?: string };
  /** Which cells the change plans, and why; removed models. */
  readonly changedCells: ChangedCellsResult;
  /** True when only the changed cells were synthesized. */
  readonly changedOnly: boolean;
  readonly diff: StackDiff;
  /** What onboarding changes in GitLab after the merge, per cell, derived from the models (./gitlab-changes.ts). */
  readonly gitlab?: readonly CellGitLabChange[];
  /** Monthly cost estimate before and after, per planned cell (today's price table for both). */
  readonly costs?: readonly CellCostChange[];
  /** The model warnings of each planned cell at the head (as `prepare` prints them). */
  readonly modelWarnings?: readonly CellModelWarnings[];
  /** What onboard does with the runners of a model `import` wrote, for models the change adds. */
  readonly importNotes?: readonly CellImportNote[];
  /** The change moves the runner-fleet pin of a models repository (./toolkit-upgrade.ts). */
  readonly toolkitUpgrade?: ToolkitUpgrade;
  /** Queue wait and cost simulated at the base and the head, per cell whose shards' scaling changed. */
  readonly queues?: readonly CellQueueChange[];
  /** How the merge rolls out when it changes several cells (./rollout-review.ts). */
  readonly rollout?: RolloutReview;
}

/** Rows of one table shown before the rest folds into <details>. */
const ROWS_BEFORE_FOLD = 12;
/** Attribute changes listed per resource; the rest are counted. */
const ATTRIBUTES_PER_ENTRY = 25;

export function reviewSummaryLine(report: ReviewReport): string {
  const { summary } = report.diff;
  const changed = summary.changed.length + gitlabOnlyCells(report).length;
  const removed = removedCells(report).length;
  const parts = [
    `${changed} cell${changed === 1 ? "" : "s"} changed`,
    `${summary.added.length} added`,
    // A cell whose stack is gone is never destroyed by the review's change: provision plans the models it has.
    `${removed} removed${removed > 0 ? " (not destroyed)" : ""}`,
    `${unchangedCells(report).length} unchanged`,
  ];
  return parts.join(", ");
}

export function renderReviewText(report: ReviewReport): string {
  const lines = [
    `review: ${describeRef(report.base)} -> ${describeRef(report.head)}`,
    `summary: ${reviewSummaryLine(report)}`,
  ];
  if (report.toolkitUpgrade) lines.push(...toolkitUpgradeText(report.toolkitUpgrade));
  if (report.rollout) lines.push(...rolloutText(report.rollout));
  const changedCells = report.diff.cells.filter((cell) => cell.status !== "unchanged" && cell.status !== "removed");
  for (const group of sameChanges(changedCells, (cell) => cellTextLines(report, cell))) {
    lines.push("", `${cellsHeading(group.cells)}: ${group.section.heading}`, ...group.section.body);
  }
  for (const cell of gitlabOnlyCells(report)) {
    lines.push("", `${cell}: runners change in GitLab, no infrastructure change`, ...gitlabTextLines(report, cell));
    const queue = report.queues?.find((entry) => entry.cell === cell);
    if (queue) lines.push(...queueTextLines(queue).map((line) => `  ${line}`));
  }
  for (const removed of removedCells(report)) lines.push("", `${removed.cell}: ${removedStatement(removed)}`);
  for (const queue of loadOnlyQueues(report)) lines.push("", `${queue.cell}: load changed, no infrastructure change`, ...queueTextLines(queue).map((line) => `  ${line}`));
  const unchanged = unchangedCells(report);
  if (unchanged.length > 0) lines.push("", `no changes: ${unchanged.join(", ")}`);
  return redactSecrets(`${lines.join("\n")}\n`);
}

/** A changed cell's section in the text review: its heading (after the cell's name) and its lines. */
function cellTextLines(report: ReviewReport, cell: CellDiff): CellSection {
  const lines: string[] = [];
  const reasons = reasonsOf(report, cell.cell);
  if (reasons.length > 0) lines.push(`  because ${reasons.join("; ")}`);
  for (const entry of report.importNotes?.filter((note) => note.cell === cell.cell) ?? []) lines.push(`  ${entry.note}`);
  lines.push(...gitlabTextLines(report, cell.cell));
  const cost = costLine(report, cell.cell);
  if (cost) lines.push(`  ${cost}`);
  const queue = report.queues?.find((entry) => entry.cell === cell.cell);
  if (queue) lines.push(...queueTextLines(queue).map((line) => `  ${line}`));
  for (const warning of warningsOf(report, cell.cell)) lines.push(`  ${isSecurityWarning(warning) ? "security-relevant model warning" : "model warning"}: ${warning}`);
  // A warning only for what stops runners; a new cell's managers and a config.toml applied live are information.
  for (const { what, why, stopsRunners } of cell.managers.map(describeManagerChanges)) {
    lines.push(`  ${cell.status === "added" ? "" : stopsRunners ? "WARNING: " : "NOTE: "}${what}${why ? `: ${why}` : ""}`);
  }
  const roll = describeRollForReview(cell.managers);
  if (roll) lines.push(`  ${roll}`);
  const entryLines = (change: EntryChange) => {
    lines.push(`  ${symbol(change)} ${displayAddress(change, cell.cell)}`);
    for (const attribute of change.attributes.slice(0, ATTRIBUTES_PER_ENTRY)) lines.push(`      ${attributeText(attribute)}`);
    if (change.attributes.length > ATTRIBUTES_PER_ENTRY) lines.push(`      ... and ${change.attributes.length - ATTRIBUTES_PER_ENTRY} more`);
  };
  for (const line of movedTogether(cell)) lines.push(`  > ${line}`);
  [...cell.resources.filter((change) => !isPlainMove(change)), ...cell.outputs, ...cell.providers, ...cell.settings].forEach(entryLines);
  if (cell.dataSources.length > 0) {
    lines.push("  data sources (read, not counted as resources):");
    cell.dataSources.forEach(entryLines);
  }
  if (cell.renderedFiles.length > 0) {
    lines.push("  files the VMs boot with:");
    for (const file of cell.renderedFiles) {
      lines.push(`    ${renderedHeading(file)}`);
      for (const line of file.patch) lines.push(`      ${line}`);
      if (file.omittedLines > 0) lines.push(`      ... ${file.omittedLines} more diff lines`);
    }
  }
  return { heading: `${cell.status} (${countsText(cell)})`, body: lines };
}

export function renderReviewMarkdown(report: ReviewReport): string {
  const out: string[] = [REVIEW_MARKER, "### Runner fleet review", ""];
  out.push(`**${reviewSummaryLine(report)}** — ${describeRefMarkdown(report.base)} → ${describeRefMarkdown(report.head)}`);
  if (report.changedOnly) out.push("", "_Only the cells this change plans were synthesized._");
  // First: a new toolkit changes every cell below.
  if (report.toolkitUpgrade) out.push("", ...toolkitUpgradeMarkdown(report.toolkitUpgrade));
  if (report.rollout) out.push(...rolloutMarkdown(report.rollout));

  const changedCells = report.diff.cells.filter((cell) => cell.status !== "unchanged" && cell.status !== "removed");
  for (const group of sameChanges(changedCells, (cell) => cellMarkdownLines(report, cell))) {
    out.push("", `#### ${cellsHeadingMarkdown(group.cells)} — ${group.section.heading}`, ...cellsListMarkdown(group.cells), ...group.section.body);
  }

  for (const cell of gitlabOnlyCells(report)) {
    out.push("", `#### \`${cell}\` — runners change in GitLab, no infrastructure change`, ...gitlabMarkdown(report, cell));
    const queue = report.queues?.find((entry) => entry.cell === cell);
    if (queue) out.push("", ...queueMarkdown(queue));
  }
  const removed = removedCells(report);
  if (removed.length > 0) {
    out.push("", "#### Removed cells", "");
    for (const cell of removed) out.push(`- \`${cell.cell}\`: ${escapeCell(removedStatement(cell)).replace("NOT planned for destroy", "**not planned for destroy**")}`);
  }
  for (const queue of loadOnlyQueues(report)) out.push("", `#### \`${queue.cell}\` — load changed, no infrastructure change`, "", ...queueMarkdown(queue));
  const unchanged = unchangedCells(report);
  if (unchanged.length > 0) out.push("", `No changes: ${unchanged.map((cell) => `\`${cell}\``).join(", ")}.`);
  return redactSecrets(`${out.join("\n")}\n`);
}

/** A changed cell's section in the merge request note: its heading (after the cell's name) and its lines. */
function cellMarkdownLines(report: ReviewReport, cell: CellDiff): CellSection {
  const lines: string[] = [];
  const reasons = reasonsOf(report, cell.cell);
  if (reasons.length > 0) lines.push("", `Planned because ${reasons.map((reason) => escapeCell(reason)).join("; ")}.`);
  for (const entry of report.importNotes?.filter((note) => note.cell === cell.cell) ?? []) lines.push("", `> :information_source: This model was ${escapeCell(entry.note)}.`);
  lines.push(...gitlabMarkdown(report, cell.cell));
  const cost = costLine(report, cell.cell);
  if (cost) lines.push("", `${escapeCell(cost.charAt(0).toUpperCase() + cost.slice(1))}.`);
  const queue = report.queues?.find((entry) => entry.cell === cell.cell);
  if (queue) lines.push("", ...queueMarkdown(queue));
  for (const warning of warningsOf(report, cell.cell)) {
    lines.push("", isSecurityWarning(warning) ? `> :lock: **Security-relevant model warning**: ${escapeCell(warning)}` : `> :warning: Model warning: ${escapeCell(warning)}`);
  }
  // Managers of a new cell are what the cell is, not a decision about running ones: information, not a warning.
  for (const { what, why, stopsRunners } of cell.managers.map(describeManagerChanges)) {
    const callout = stopsRunners ? ":warning:" : ":information_source:";
    lines.push("", cell.status === "added" ? `This change ${escapeCell(what)}${why ? `: ${escapeCell(why)}` : ""}.` : `> ${callout} **This change ${escapeCell(what)}**${why ? `: ${escapeCell(why)}` : ""}.`);
  }
  const roll = describeRollForReview(cell.managers);
  if (roll) lines.push("", `> ${escapeCell(roll.charAt(0).toUpperCase() + roll.slice(1))}.`);
  const moved = movedTogether(cell);
  if (moved.length > 0) lines.push("", ...moved.map((line) => `- Moved (Terraform moved blocks, nothing destroyed): ${escapeCell(line)}`));
  const rows = [...cell.resources.filter((change) => !isPlainMove(change)), ...cell.outputs, ...cell.providers, ...cell.settings].map((change) => markdownRow(change, cell.cell));
  if (rows.length > 0) lines.push("", ...foldedTable(rows));
  if (cell.dataSources.length > 0) {
    lines.push("", "Data sources (read, not counted as resources):", "", ...foldedTable(cell.dataSources.map((change) => markdownRow(change, cell.cell))));
  }
  if (cell.renderedFiles.length > 0) lines.push("", "**Files the VMs boot with**", "", ...renderedMarkdown(cell.renderedFiles));
  return { heading: `${cell.status} (${countsText(cell)})`, body: lines };
}

/** Settings that weaken isolation (lib/model/isolation-checks.ts) say "(security: ..." in their message. */
export function isSecurityWarning(warning: string): boolean {
  return warning.includes("(security: ");
}

function warningsOf(report: ReviewReport, cell: string): readonly string[] {
  return report.modelWarnings?.find((entry) => entry.cell === cell)?.warnings ?? [];
}

/** The cell's cost change in words, when the estimate moved (see ./cost-change.ts). */
function costLine(report: ReviewReport, cell: string): string | undefined {
  const change = report.costs?.find((entry) => entry.cell === cell);
  if (!change) return undefined;
  const line = describeCostChange(change, formatMoney);
  if (!line) return undefined;
  return change.unpriced.length > 0 ? `${line} (unpriced: ${change.unpriced.join("; ")})` : line;
}

export function renderReviewJson(report: ReviewReport): string {
  return redactSecrets(`${JSON.stringify(report, null, 2)}\n`);
}

function foldedTable(rows: string[]): string[] {
  const header = ["| | Resource | Changed attributes |", "|---|---|---|"];
  if (rows.length <= ROWS_BEFORE_FOLD) return [...header, ...rows];
  return [
    ...header,
    ...rows.slice(0, ROWS_BEFORE_FOLD),
    "",
    `<details><summary>${rows.length - ROWS_BEFORE_FOLD} more</summary>`,
    "",
    ...header,
    ...rows.slice(ROWS_BEFORE_FOLD),
    "",
    "</details>",
  ];
}

function markdownRow(change: EntryChange, cell: string): string {
  const shown = change.attributes.slice(0, ATTRIBUTES_PER_ENTRY).map((attribute) => codeCell(attributeText(attribute)));
  if (change.attributes.length > ATTRIBUTES_PER_ENTRY) shown.push(`… and ${change.attributes.length - ATTRIBUTES_PER_ENTRY} more`);
  const attributes = shown.length > 6 ? `<details><summary>${shown.length} attributes</summary>${shown.join("<br>")}</details>` : shown.join("<br>");
  const type = change.constructPath ? ` <sub>${escapeCell(entryType(change))}</sub>` : "";
  const moved = change.movedFrom ? ` <sub>moved from \`${escapeCell(movedFromShown(change, cell))}\`</sub>` : "";
  return `| ${symbol(change)} | \`${escapeCell(shownPath(change, cell))}\`${type}${moved} | ${attributes} |`;
}

function attributeText(attribute: AttributeChange): string {
  if (attribute.kind === "added") return `${attribute.path}: (added) ${attribute.after}`;
  if (attribute.kind === "removed") return `${attribute.path}: (removed) ${attribute.before}`;
  return `${attribute.path}: ${attribute.before} -> ${attribute.after}`;
}

function symbol(change: EntryChange): string {
  return change.action === "create" ? "+" : change.action === "delete" ? "-" : change.action === "move" ? ">" : "~";
}

/** A move that changes nothing but the address: listed with the others of its scope, not one by one. */
function isPlainMove(change: EntryChange): boolean {
  return change.action === "move" && change.attributes.length === 0;
}

/**
 * The plain moves of a cell as one line per moved scope: "28 resources, shard-a/ → shard-b/, unchanged".
 * The scope is what differs between the two construct paths once their common ending is set aside.
 */
function movedTogether(cell: CellDiff): string[] {
  const scopes = new Map<string, number>();
  for (const change of cell.resources.filter(isPlainMove)) {
    const key = movedScope(change, cell.cell);
    scopes.set(key, (scopes.get(key) ?? 0) + 1);
  }
  return [...scopes].map(([scope, count]) => `${count} resource${count === 1 ? "" : "s"} ${scope}, unchanged`);
}

function movedScope(change: EntryChange, cell: string): string {
  const [from, to] = [change.movedFrom?.constructPath ?? change.movedFrom?.address ?? "", change.constructPath ?? change.address];
  const [a, b] = [below(from, cell).split("/"), below(to, cell).split("/")];
  while (a.length > 1 && b.length > 1 && a[a.length - 1] === b[b.length - 1]) {
    a.pop();
    b.pop();
  }
  return `moved from ${a.join("/")}/ to ${b.join("/")}/`;
}

function below(path: string, cell: string): string {
  return path.startsWith(`${cell}/`) ? path.slice(cell.length + 1) : path;
}

function countsText(cell: CellDiff): string {
  const counts = countActions(cell.resources);
  const others = cell.outputs.length + cell.providers.length + cell.settings.length;
  const parts = [`resources +${counts.create} ~${counts.update} -${counts.delete}`];
  if (counts.move > 0) parts.push(`${counts.move} moved`);
  if (cell.dataSources.length > 0) parts.push(`${cell.dataSources.length} data source${cell.dataSources.length === 1 ? "" : "s"}`);
  if (others > 0) parts.push(`${others} other change${others === 1 ? "" : "s"}`);
  return parts.join(", ");
}

/** How a reviewer reads an entry: its construct path below the cell, then its type; else its address. */
export function displayAddress(change: EntryChange, cell: string): string {
  const shown = change.constructPath ? `${shownPath(change, cell)} (${entryType(change)})` : change.address;
  return change.movedFrom ? `${shown}, moved from ${movedFromShown(change, cell)}` : shown;
}

function movedFromShown(change: EntryChange, cell: string): string {
  const from = change.movedFrom;
  return from?.constructPath ? below(from.constructPath, cell) : (from?.address ?? "");
}

function shownPath(change: EntryChange, cell: string): string {
  if (!change.constructPath) return change.address;
  return change.constructPath.startsWith(`${cell}/`) ? change.constructPath.slice(cell.length + 1) : change.constructPath;
}

/** `google_compute_instance_template`, or `data.aws_iam_policy_document` for a data source. */
function entryType(change: EntryChange): string {
  const [first, second] = change.address.split(".");
  return first === "data" ? `data.${second}` : first;
}

function renderedHeading(file: RenderedFileChange): string {
  const paths = file.paths.join(", ");
  if (file.status === "moved") return `${paths}: moved, content unchanged`;
  return file.status === "changed" ? `${paths}:` : `${paths}: ${file.status}`;
}

/** Patches longer than this fold into <details>. */
const PATCH_LINES_BEFORE_FOLD = 40;

function renderedMarkdown(files: readonly RenderedFileChange[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const paths = file.paths.map((path) => `\`${escapeCell(path)}\``).join(", ");
    const summary = file.paths.map((path) => `<code>${escapeCell(path)}</code>`).join(", ");
    if (file.status !== "changed") {
      out.push(`- ${paths}: ${file.status === "moved" ? "moved, content unchanged" : file.status}`);
      continue;
    }
    const body = [...file.patch, ...(file.omittedLines > 0 ? [`... ${file.omittedLines} more diff lines`] : [])];
    const fence = "`".repeat(Math.max(3, ...body.map((line) => (line.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length + 1), 0))));
    const block = [`${fence}diff`, ...body, fence];
    if (body.length > PATCH_LINES_BEFORE_FOLD) out.push(`<details><summary>${summary}</summary>`, "", ...block, "", "</details>", "");
    else out.push(`${paths}:`, "", ...block, "");
  }
  return out;
}

/** Queue changes of cells whose section above is not shown (a trace changed; the stack and the runners did not). */
function loadOnlyQueues(report: ReviewReport): readonly CellQueueChange[] {
  const shown = new Set([...report.diff.cells.filter((cell) => cell.status !== "unchanged").map((cell) => cell.cell), ...gitlabOnlyCells(report)]);
  return (report.queues ?? []).filter((queue) => !shown.has(queue.cell));
}

/** Cells whose stack does not change but whose runners do in GitLab: onboarding reroutes their jobs all the same. */
function gitlabOnlyCells(report: ReviewReport): string[] {
  const unchanged = new Set(report.diff.summary.unchanged);
  return (report.gitlab ?? []).filter((entry) => unchanged.has(entry.cell)).map((entry) => entry.cell);
}

/** Cells nothing changes: no stack change, no runner change in GitLab, no load change. */
function unchangedCells(report: ReviewReport): string[] {
  const touched = new Set([...gitlabOnlyCells(report), ...(report.queues ?? []).map((queue) => queue.cell)]);
  return report.diff.summary.unchanged.filter((cell) => !touched.has(cell));
}

function gitlabTextLines(report: ReviewReport, cell: string): string[] {
  const change = report.gitlab?.find((entry) => entry.cell === cell);
  if (!change) return [];
  return [
    ...(change.shards.length > 0 ? ["  in GitLab, when onboard runs after the merge:", ...change.shards.map((shard) => `    ${describeRunnerChange(shard, cell)}`)] : []),
    ...change.warnings.map((warning) => `  WARNING: ${warning}`),
  ];
}

function gitlabMarkdown(report: ReviewReport, cell: string): string[] {
  const change = report.gitlab?.find((entry) => entry.cell === cell);
  if (!change) return [];
  return [
    ...(change.shards.length > 0 ? ["", "**In GitLab**, when onboard runs after the merge:", "", ...change.shards.map((shard) => `- ${escapeCell(describeRunnerChange(shard, cell))}`)] : []),
    ...change.warnings.map((warning) => `\n> :warning: ${escapeCell(warning)}.`),
  ];
}

function reasonsOf(report: ReviewReport, cell: string): readonly string[] {
  return report.changedCells.cells.find((entry) => entry.cell === cell)?.reasons ?? [];
}

/** A cell whose stack is gone from the head: its model was deleted (or names another cell now). */
export interface RemovedCell {
  readonly cell: string;
  /** The deleted model file, when the model was deleted. */
  readonly file?: string;
  /** Resources its stack had: they keep running. Absent when the cell was not synthesized. */
  readonly resources?: number;
}

/** Every cell whose stack the change removes, with the deleted model where there is one, in cell order. */
function removedCells(report: ReviewReport): RemovedCell[] {
  const deleted = new Map(report.changedCells.removed.map((entry) => [entry.cell, entry.file]));
  const stacks = new Map(report.diff.cells.filter((cell) => cell.status === "removed").map((cell) => [cell.cell, cell.resources.length]));
  return [...new Set([...deleted.keys(), ...stacks.keys()])].sort().map((cell) => ({
    cell,
    ...(deleted.has(cell) ? { file: deleted.get(cell) } : {}),
    ...(stacks.has(cell) ? { resources: stacks.get(cell) } : {}),
  }));
}

/**
 * One statement for a removed cell: nothing the merge triggers destroys it (provision plans the models
 * the repository has), so its resources, managers included, keep running and taking jobs.
 */
function removedStatement(removed: RemovedCell): string {
  const why = removed.file ? `model deleted (${removed.file})` : "its model no longer names this cell";
  const what = removed.resources === undefined ? "its resources keep" : `its ${removed.resources} resource${removed.resources === 1 ? " keeps" : "s keep"}`;
  return `${why}; NOT planned for destroy: ${what} running, runner managers included (they go on taking jobs), ${destroyHint(removed.cell)}`;
}

function destroyHint(cell: string): string {
  // The note is read in this repository and in models repositories, where the toolkit is the package's one bin.
  return `until someone runs \`${toolkitCommand(INSTALLED_TOOLKIT, "provision")} --model ${cell} --destroy\` (\`${toolkitCommand({}, "provision")}\` in the toolkit's own repository) from a checkout that still has the model.`;
}

function describeRef(ref: { ref: string; sha?: string }): string {
  return ref.sha ? `${ref.ref} (${ref.sha.slice(0, 8)})` : ref.ref;
}

function describeRefMarkdown(ref: { ref: string; sha?: string }): string {
  return ref.sha && ref.sha !== ref.ref ? `\`${escapeCell(ref.ref)}\` (${ref.sha.slice(0, 8)})` : `\`${escapeCell(ref.ref)}\``;
}

/** Makes text safe inside a markdown table cell. */
function escapeCell(text: string): string {
  return oneLineCell(text).replace(/</g, "&lt;");
}

/** Text as inline code, safe inside a markdown table cell. */
function codeCell(text: string): string {
  return `\`${oneLineCell(text).replace(/`/g, "'")}\``;
}

function oneLineCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}
