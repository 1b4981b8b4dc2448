/**
 * What provision did to each cell, and how that reads on stdout.
 */
import type { NoteUpsertResult } from "../../lib/gitlab/merge-request-note";
import type { CellChangeSummary } from "../../lib/review/cell-summary";
import { renderSummaryText } from "../../lib/review/render-summary";
import type { TerraformReport } from "../../lib/review/terraform-report";
import type { SynthesizedCell } from "../../stacks/synthesize";
import type { ReviewedPlanUse } from "./reviewed-plan";

export interface ProvisionedCell {
  readonly cell: string;
  readonly modelFile: string;
  readonly stackDir: string;
  readonly summary: CellChangeSummary;
  readonly outcome: "dry-run" | "planned" | "no-changes" | "applied" | "declined" | "drifted" | "in-sync";
  /** Counts for GitLab's Terraform widget, when the cell was planned. */
  readonly terraformReport?: TerraformReport;
  /** With --reviewed-plan: whether the plan applied matched the reviewed one, or why there was none to compare. */
  readonly reviewedPlan?: ReviewedPlanUse;
  /** The merge request note of this cell's summary, with --post. */
  readonly note?: NoteUpsertResult;
  readonly onboarded: boolean;
  readonly runnersRemoved: boolean;
}

export interface ProvisionResult {
  readonly mode: "dry-run" | "plan" | "apply" | "destroy" | "drift";
  readonly cells: readonly ProvisionedCell[];
}

/** One cell's entry in the result; `done` says which GitLab steps ran. */
export function provisionedCell(
  cell: SynthesizedCell,
  summary: CellChangeSummary,
  outcome: ProvisionedCell["outcome"],
  done: { readonly onboarded?: boolean; readonly runnersRemoved?: boolean } = {},
): ProvisionedCell {
  return { cell: cell.cell, modelFile: cell.modelFile, stackDir: cell.stackDir, summary, outcome, onboarded: Boolean(done.onboarded), runnersRemoved: Boolean(done.runnersRemoved) };
}

/** provision's report on stdout: the summaries, then one line per cell. */
export function formatProvisionResult(result: ProvisionResult): string {
  const lines = [renderSummaryText(result.cells.map((cell) => cell.summary)).trimEnd()];
  for (const cell of result.cells) {
    const what = {
      "dry-run": `dry run: nothing was created; Terraform JSON in ${cell.stackDir}`,
      planned: `planned: ${cell.summary.planFile}`,
      "no-changes": "no changes",
      applied: result.mode === "destroy" ? "destroyed" : "applied",
      declined: "not applied (declined)",
      drifted: "DRIFT: the cell's infrastructure differs from its model (see the plan above)",
      "in-sync": "no drift",
    }[cell.outcome];
    const reviewed = cell.reviewedPlan ? (cell.reviewedPlan.matched ? " (the changes the merge request reviewed)" : " (no reviewed plan to compare with)") : "";
    lines.push(`${cell.cell}: ${what}${reviewed}${cell.runnersRemoved ? "; runners removed" : ""}`);
  }
  if (result.mode === "drift") {
    const drifted = driftedCells(result);
    lines.push(drifted.length === 0 ? `no drift in ${result.cells.length} cell(s)` : `drift in ${drifted.length} of ${result.cells.length} cell(s): ${drifted.join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The cells whose infrastructure differs from their model (--drift). */
export function driftedCells(result: ProvisionResult): string[] {
  return result.cells.filter((cell) => cell.outcome === "drifted").map((cell) => cell.cell);
}
