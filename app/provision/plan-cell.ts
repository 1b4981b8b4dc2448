/**
 * Plan one synthesized cell: engine init, then a plan saved beside the stack with its inputs; with
 * --reviewed-plan, that plan is compared with the one the merge request reviewed (./reviewed-plan.ts).
 * Its summary, Terraform report and manager roll are named before anything is confirmed or applied.
 */
import { join, resolve } from "node:path";
import type { LoadedModel } from "../../lib/model/load";
import { cellChangeSummary, type CellChangeSummary } from "../../lib/review/cell-summary";
import { summarizePlan } from "../../lib/review/change-summary";
import { renderSummaryText } from "../../lib/review/render-summary";
import { constructPaths, readResourceShards, readSynthesizedStack } from "../../lib/review/stack-files";
import { terraformReport, type TerraformReport } from "../../lib/review/terraform-report";
import { describeRoll, type RollPlan } from "../../lib/roll/roll-plan";
import { backendEnvironment } from "../../lib/terraform/backend-env";
import { EngineDriver } from "../../lib/terraform/engine";
import { planInputsDigest, writePlanInputs } from "../../lib/terraform/plan-inputs";
import type { PlanJson } from "../../lib/terraform/plan-json";
import type { EngineName } from "../../lib/terraform/toolchain-check";
import type { SynthesizedCell } from "../../stacks/synthesize";
import { provisionRoll } from "./load-on-use";
import type { EngineMode, StepContext } from "./provision-context";
import { checkAgainstReviewedPlan, type ReviewedPlanUse } from "./reviewed-plan";

export interface PlannedCell {
  readonly cell: SynthesizedCell;
  readonly engine: { name: EngineName; version: string };
  readonly loaded: LoadedModel;
  readonly driver: EngineDriver;
  readonly planFile: string;
  readonly changes: boolean;
  readonly summary: CellChangeSummary;
  /** Managers this plan replaces, rolled in phases (none for a destroy). */
  readonly roll?: RollPlan;
  readonly report: TerraformReport;
  readonly reviewedPlan?: ReviewedPlanUse;
}

/** What a plan of this mode does to the cloud, and where it is saved. */
export function planOf(mode: EngineMode, cell: string): { destroy: boolean; file: string } {
  const destroy = mode.kind === "destroy" || (mode.kind === "plan" && mode.change === "destroy");
  return { destroy, file: destroy ? `${cell}.destroy.tfplan` : mode.kind === "drift" ? `${cell}.drift.tfplan` : `${cell}.tfplan` };
}

export async function planCell(
  cell: SynthesizedCell,
  loaded: LoadedModel,
  engine: { name: EngineName; version: string },
  mode: EngineMode,
  context: StepContext,
): Promise<PlannedCell> {
  const { log } = context;
  const how = planOf(mode, cell.cell);
  const driver = new EngineDriver({
    engine: engine.name,
    executable: context.engineExecutable,
    cwd: cell.stackDir,
    env: context.env,
    addEnv: backendEnvironment(loaded.model, context.env),
    withholdEnv: context.withheld,
    redact: (line) => context.secrets.redact(line),
    onOutput: (line) => log(`[${cell.cell}] ${line}`),
    onProgress: (message) => log(`[${cell.cell}] ${message}`),
    lockTimeout: context.lockTimeout,
  });
  await driver.init();
  const digest = planInputsDigest(cell.stackDir, engine);
  const summarize = (plan: PlanJson, planFile: string) => {
    const summary = cellChangeSummary(loaded.model, summarizePlan(plan, readResourceShards(cell.stackDir), constructPaths(readSynthesizedStack(cell.stackDir))), { engine, planFile });
    log(renderSummaryText(summary).trimEnd());
    return summary;
  };
  // The roll is named before anything is confirmed or applied.
  const rollOf = (plan: PlanJson) => {
    const roll = how.destroy ? undefined : provisionRoll().rollOfPlan(loaded, plan, cell.stackDir);
    for (const line of roll ? describeRoll(roll) : []) log(`[${cell.cell}] ${line}`);
    return roll;
  };

  const planned = await driver.plan({ out: join(cell.stackDir, how.file), destroy: how.destroy });
  writePlanInputs(planned.planFile, { cell: cell.cell, digest, engine: engine.name, engineVersion: engine.version, commit: context.env.CI_COMMIT_SHA });
  const plan = await driver.showPlanJson(planned.planFile);
  const summary = summarize(plan, planned.planFile);
  // With --reviewed-plan: this plan is applied only when it makes the changes the merge request reviewed
  // (the reviewed plan itself is only read); a difference stops here, before anything is onboarded or applied.
  const reviewedPlanChoice = mode.kind === "apply" ? mode.reviewedPlan : undefined;
  let reviewedPlan: ReviewedPlanUse | undefined;
  if (reviewedPlanChoice) {
    reviewedPlan = await checkAgainstReviewedPlan({ ...reviewedPlanChoice, file: resolve(reviewedPlanChoice.file) }, plan, { cell: cell.cell, driver, digest });
    log(
      `[${cell.cell}] ${reviewedPlan.matched ? `this checkout's plan makes the changes of the reviewed plan ${reviewedPlanChoice.file}` : `no reviewed plan to compare with (${reviewedPlan.reason}): this checkout's plan, shown above, is applied`}`,
    );
  }
  return { cell, engine, loaded, driver, planFile: planned.planFile, changes: planned.changes, summary, roll: rollOf(plan), report: terraformReport(plan), reviewedPlan };
}
