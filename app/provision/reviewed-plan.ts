/**
 * provision --apply-plan: a plan saved earlier (the one a merge request reviewed) is applied only while
 * the inputs digest beside it matches this checkout's stack.
 */
import type { PlanJson } from "../../lib/terraform/plan-json";
import { readPlanInputs } from "../../lib/terraform/plan-inputs";

/** With --apply-plan: whether the reviewed plan was applied, or why the cell was planned again. */
export interface ReviewedPlanUse {
  readonly applied: boolean;
  /** Why it was not used. */
  readonly reason?: string;
}

/** Whether the saved plan at `planFile` was made for this cell from the inputs that make `digest`. */
export function checkReviewedPlan(planFile: string, cell: string, digest: string): { fresh: true; planFile: string } | { fresh: false; problem: string } {
  const read = readPlanInputs(planFile);
  if ("problem" in read) return { fresh: false, problem: read.problem };
  if (read.inputs.cell !== cell) return { fresh: false, problem: `the plan was made for cell ${read.inputs.cell}` };
  if (read.inputs.digest !== digest) {
    return {
      fresh: false,
      problem: `its inputs changed since it was planned${read.inputs.commit ? ` on ${read.inputs.commit.slice(0, 12)}` : ""} (digest ${read.inputs.digest.slice(0, 12)}, now ${digest.slice(0, 12)}: the synthesized stack, the provider lock or the engine differ)`,
    };
  }
  return { fresh: true, planFile };
}

/** Whether a saved plan changes anything (what -detailed-exitcode 2 said when it was made). */
export function planChanges(plan: PlanJson): boolean {
  return (
    (plan.resource_changes ?? []).some((change) => change.change.actions.some((action) => action !== "no-op" && action !== "read")) ||
    Object.values(plan.output_changes ?? {}).some((change) => change.actions.some((action) => action !== "no-op"))
  );
}
