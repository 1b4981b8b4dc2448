/**
 * provision --reviewed-plan: the apply job plans again from its own checkout and applies that plan
 * only when it makes the same changes as the plan the merge request reviewed.
 *
 * The reviewed plan is never applied. It comes from a merge request pipeline, whose jobs run the
 * merge request author's code, and a saved plan carries its own configuration, which the engine
 * applies instead of the working directory's: a plan that adds a resource, shipped with the clean
 * stack's inputs digest, would otherwise be applied with the default branch's credentials. Here it is
 * only read (`show -json`) and compared (lib/terraform/plan-comparison.ts). The inputs record beside
 * it is written by the same untrusted job, so it decides nothing: it only explains a difference.
 */
import { existsSync } from "node:fs";
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { comparePlans, describePlanDifferences } from "../../lib/terraform/plan-comparison";
import { readPlanInputs } from "../../lib/terraform/plan-inputs";
import type { EngineDriver } from "../../lib/terraform/engine";
import type { PlanJson } from "../../lib/terraform/plan-json";

/** With --reviewed-plan: whether this checkout's plan matched the reviewed one, or why there was none to compare. */
export interface ReviewedPlanUse {
  /** true: the plan applied makes the changes the merge request reviewed. */
  readonly matched: boolean;
  /** Why nothing was compared (no reviewed plan). */
  readonly reason?: string;
}

export interface ReviewedPlanChoice {
  readonly file: string;
  /** With no reviewed plan (a direct push, a web run, expired artifacts): apply this checkout's plan, or refuse. */
  readonly whenMissing: "apply" | "refuse";
}

/** The reviewed plan differs from this checkout's: nothing is applied (exit 1). */
export class ReviewedPlanDiffers extends OperationalError {
  constructor(cell: string, file: string, differences: string, note: string) {
    super(
      `refusing to apply cell ${cell}: this checkout's plan differs from the reviewed plan ${file}; nothing was applied or onboarded.\n` +
        `${differences}\n` +
        `${note}The apply runs only what was reviewed: open a merge request (an empty change will do) so its plan of today's state is reviewed, and merge it.`,
    );
    this.name = "ReviewedPlanDiffers";
  }
}

/**
 * Compares this checkout's plan (`own`) with the reviewed plan; returns how it went, or throws
 * when they differ, when the reviewed plan cannot be read, or when it is missing and `whenMissing` is refuse.
 */
export async function checkAgainstReviewedPlan(
  choice: ReviewedPlanChoice,
  own: PlanJson,
  context: { readonly cell: string; readonly driver: EngineDriver; readonly digest: string },
): Promise<ReviewedPlanUse> {
  const { cell, driver } = context;
  if (!existsSync(choice.file)) {
    const reason = `there is no reviewed plan at ${choice.file}`;
    if (choice.whenMissing === "refuse") {
      throw new UserInputError(`refusing to apply cell ${cell}: ${reason}; nothing was applied. Pass --allow-unreviewed to apply this checkout's plan without one.`);
    }
    return { matched: false, reason };
  }
  let reviewed: PlanJson;
  try {
    reviewed = await driver.showPlanJson(choice.file);
  } catch (error) {
    throw new OperationalError(
      `refusing to apply cell ${cell}: the reviewed plan ${choice.file} could not be read (${error instanceof Error ? error.message : String(error)}); nothing was applied or onboarded`,
      { cause: error },
    );
  }
  const differences = comparePlans(reviewed, own);
  if (differences.length > 0) throw new ReviewedPlanDiffers(cell, choice.file, describePlanDifferences(differences), inputsNote(choice.file, cell, context.digest));
  return { matched: true };
}

/** What the (untrusted) inputs record says, as a hint to the reader of a refusal. */
function inputsNote(file: string, cell: string, digest: string): string {
  const read = readPlanInputs(file);
  if ("problem" in read) return `(${read.problem}.) `;
  if (read.inputs.cell !== cell) return `(Its inputs record names cell ${read.inputs.cell}.) `;
  if (read.inputs.digest !== digest) {
    return `(It was made from other inputs${read.inputs.commit ? ` on ${read.inputs.commit.slice(0, 12)}` : ""}: digest ${read.inputs.digest.slice(0, 12)}, this checkout ${digest.slice(0, 12)}.) `;
  }
  return "(Its inputs record claims this checkout's stack, provider lock and engine: if so, the state changed since the review, or the plan was not made from that stack.) ";
}

/** Whether a saved plan changes anything (what -detailed-exitcode 2 said when it was made). */
export function planChanges(plan: PlanJson): boolean {
  return (
    (plan.resource_changes ?? []).some((change) => change.change.actions.some((action) => action !== "no-op" && action !== "read")) ||
    Object.values(plan.output_changes ?? {}).some((change) => change.actions.some((action) => action !== "no-op"))
  );
}
