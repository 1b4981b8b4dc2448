/**
 * After every cell is planned: confirm each change, then for each approved cell onboard its runners,
 * apply its plan (rolling managers in phases when the plan replaces them) and, after a destroy, remove
 * its runners. Every plan applied here was made by this run (a reviewed plan is only compared: ./reviewed-plan.ts).
 */
import { OperationalError, UserInputError } from "../../lib/process/errors";
import { describeTally } from "../../lib/gitlab/request-pacer";
import { formatMs } from "../../lib/gitlab/retry";
import type { LoadedModel } from "../../lib/model/load";
import { needsRoll } from "../../lib/roll/roll-plan";
import type { OnboardOptions } from "../commands/onboard";
import { onboard, provisionRoll } from "./load-on-use";
import type { PlannedCell } from "./plan-cell";
import type { ChangingMode, StepContext } from "./provision-context";
import { provisionedCell, type ProvisionedCell } from "./provision-result";

/** Whether each planned cell may be applied. Throws (exit 2) when a change needs a confirmation nobody can give. */
export async function confirmCells(planned: readonly PlannedCell[], mode: ChangingMode, context: StepContext): Promise<boolean[]> {
  const needed = planned.filter((item) => item.changes);
  if (mode.approval === "auto" || needed.length === 0) return planned.map(() => true);
  if (!context.confirm) {
    const plans = needed.map((item) => item.planFile).join(", ");
    throw new UserInputError(
      `refusing to ${mode.kind} ${needed.map((item) => item.cell.cell).join(", ")} without confirmation: no terminal to ask; pass --auto-approve (nothing was onboarded or applied; the plan is kept at ${plans})`,
    );
  }
  const approved: boolean[] = [];
  for (const item of planned) {
    if (!item.changes) {
      approved.push(true);
      continue;
    }
    const verb = mode.kind === "destroy" ? "Destroy every resource of" : "Apply this plan to";
    const yes = await context.confirm(`${verb} cell ${item.cell.cell}? Type "yes" to continue: `);
    if (!yes) context.log(`[${item.cell.cell}] not applied; the plan is kept at ${item.planFile}`);
    approved.push(yes);
  }
  return approved;
}

/** An approved cell: onboard its runners (apply), apply its plan (rolling managers), remove its runners (destroy). */
export async function onboardAndApply(item: PlannedCell, mode: ChangingMode, context: StepContext): Promise<ProvisionedCell> {
  const { cell, loaded, summary } = item;
  let onboarded = false;
  if (mode.kind === "apply" && mode.onboard) {
    context.log(`[${cell.cell}] onboarding runners`);
    await onboardOrFail({ runnerModel: loaded.model, workspace: context.workspace, env: context.env, log: context.log, onSecret: (value) => context.secrets.add(value) }, loaded.file);
    onboarded = true;
  }
  if (!item.changes) {
    context.log(`[${cell.cell}] no changes to apply`);
    return provisionedCell(cell, summary, "no-changes", { onboarded, runnersRemoved: await removeRunnersAfter(mode, loaded, context) });
  }
  if (item.roll && needsRoll(item.roll)) {
    await provisionRoll().rollCell({
      loaded,
      stackDir: cell.stackDir,
      driver: item.driver,
      roll: item.roll,
      env: context.env,
      workspace: context.workspace,
      log: context.log,
      onSecret: (value) => context.secrets.add(value),
      clock: context.rollClock,
    });
  } else {
    await item.driver.apply(item.planFile);
  }
  return provisionedCell(cell, summary, "applied", { onboarded, runnersRemoved: await removeRunnersAfter(mode, loaded, context) });
}

/** After a destroy, the runners of the cell go too (unless --skip-onboard), so GitLab lists no dead runners. */
async function removeRunnersAfter(mode: ChangingMode, loaded: LoadedModel, context: StepContext): Promise<boolean> {
  if (mode.kind !== "destroy" || !mode.removeRunners) return false;
  context.log(`[${loaded.model.cell.id}] removing runners`);
  await onboardOrFail({ runnerModel: loaded.model, workspace: context.workspace, remove: true, env: context.env, log: context.log, onSecret: (value) => context.secrets.add(value) }, loaded.file);
  return true;
}

/** Onboarding reports failures in its result; provisioning must not go on past one. */
async function onboardOrFail(options: OnboardOptions, file: string): Promise<void> {
  const result = await onboard().runOnboard(options);
  if (result.requests) options.log?.(`[${result.cell}] onboarding: ${describeTally(result.requests, formatMs)}`);
  if (!result.ok) {
    throw new OperationalError(`onboarding ${file} failed, nothing was applied (the plan is kept):\n  ${result.problems.join("\n  ")}`);
  }
}
