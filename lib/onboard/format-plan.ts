/** The plan's steps in words, for `onboard --dry-run` and the progress of a run. Never a token: steps hold none. */
import type { OnboardStep, ShardPlan } from "./plan";

export function describeStep(step: OnboardStep, plan: Pick<ShardPlan, "secret">): string {
  switch (step.kind) {
    case "create-runner":
      return `create runner "${step.runner.description}" (${step.runner.runner_type}) and store its token in ${plan.secret}`;
    case "reset-token":
      return `reset the token of runner #${step.runnerId} and store it in ${plan.secret}`;
    case "update-runner":
      return `update runner #${step.runnerId}: ${Object.keys(step.changes).join(", ")}`;
    case "delete-runner":
      return `delete runner #${step.runnerId}`;
    case "delete-duplicate":
      return `delete duplicate runner #${step.runnerId}`;
    case "delete-secret":
      return `delete ${plan.secret}`;
  }
}

/** "1. create runner ..." lines, one per step. */
export function formatSteps(plan: Pick<ShardPlan, "secret" | "steps">): string[] {
  return plan.steps.map((step, index) => `${index + 1}. ${describeStep(step, plan)}`);
}
