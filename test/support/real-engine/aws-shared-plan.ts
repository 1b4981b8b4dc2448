/**
 * The one real plan of every AWS stack the real-engine tests check (test/real-engine/aws-offline-plan.test.ts):
 * the AWS example as it is applied, and a variant of it as a roll phase leaves it, with a manager slot
 * held. Planned together (planAwsStacksOffline: each terraform command loads the provider's schema once
 * for both), once per process, and read by every test of the file.
 *
 * The held slot is the variant's rather than a third stack's (the example again, with the slot held):
 * holding adds one `lifecycle` block to one launch template, and every other resource of that stack is
 * the example's, planned already. A third module cost a third of the plan (~3 CPU-s); the variant
 * planned with the slot held still proves every claim: the example, the variant (an existing VPC,
 * three shards, arm64) and a held slot are each planned by the real provider.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadedModel } from "../../../lib/model/load";
import type { PlanJson } from "../../../lib/terraform/plan-json";
import { synthesizeCells, type SynthesizedCell } from "../../../stacks/synthesize";
import { planAwsStacksOffline } from "./aws-offline-plan";
import type { AwsProvider } from "./aws-provider";
import { awsVariant, exampleCell } from "./variants";

export type SharedStackName = "cell_2" | "aws_variant";

export interface PlannedStack {
  readonly loaded: LoadedModel;
  readonly cell: SynthesizedCell;
  readonly plan: PlanJson;
}

/** The manager slot the held stack keeps at its revision: slot 0 of its first shard. */
export function heldSlotOf(loaded: LoadedModel): string {
  return `${loaded.model.shards[0].name}/0`;
}

let planned: Promise<Map<SharedStackName, PlannedStack>> | undefined;

/** Every stack, synthesized in this process, with its part of the shared plan. */
export function sharedAwsPlan(provider: AwsProvider): Promise<Map<SharedStackName, PlannedStack>> {
  planned ??= planOnce(provider);
  return planned;
}

async function planOnce(provider: AwsProvider): Promise<Map<SharedStackName, PlannedStack>> {
  const outdir = mkdtempSync(join(tmpdir(), "runner-fleet-aws-shared-synth-"));
  // Read by the tests of this process until it ends.
  process.once("exit", () => rmSync(outdir, { recursive: true, force: true }));
  const synthesize = (name: SharedStackName, loaded: LoadedModel, held?: string) => {
    const heldManagerSlots = held ? new Map([[loaded.model.cell.id, new Set([held])]]) : undefined;
    const [cell] = synthesizeCells([loaded], { outdir: join(outdir, name), heldManagerSlots });
    return { name, loaded, cell };
  };
  const variant = awsVariant();
  const stacks = [synthesize("cell_2", exampleCell("cell-2")), synthesize("aws_variant", variant, heldSlotOf(variant))];

  const plans = await planAwsStacksOffline(stacks.map(({ name, cell }) => ({ module: name, stackDir: cell.stackDir })), provider);
  return new Map(stacks.map(({ name, loaded, cell }) => [name, { loaded, cell, plan: plans.get(name)! }]));
}
