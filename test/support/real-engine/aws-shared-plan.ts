/**
 * The one real plan of every AWS stack the real-engine tests check (test/real-engine/aws-offline-plan.test.ts):
 * the AWS example, a variant of it and the example with a manager slot held, as a roll holds it. Planned
 * together (planAwsStacksOffline: each terraform command loads the provider's schema once for all
 * three), once per process, and read by every test of the file.
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

export type SharedStackName = "cell_2" | "aws_variant" | "cell_2_held";

export interface PlannedStack {
  readonly loaded: LoadedModel;
  readonly cell: SynthesizedCell;
  readonly plan: PlanJson;
}

/** The manager slot the held stack keeps at its revision: slot 0 of the example's first shard. */
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
  const held = exampleCell("cell-2");
  const stacks = [synthesize("cell_2", exampleCell("cell-2")), synthesize("aws_variant", awsVariant()), synthesize("cell_2_held", held, heldSlotOf(held))];

  const plans = await planAwsStacksOffline(stacks.map(({ name, cell }) => ({ module: name, stackDir: cell.stackDir })), provider);
  return new Map(stacks.map(({ name, loaded, cell }) => [name, { loaded, cell, plan: plans.get(name)! }]));
}
