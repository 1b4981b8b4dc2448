/**
 * The one real plan of every AWS stack the real-engine tests check (test/real-engine/): the AWS
 * example, a variant of it (aws-offline-plan.test.ts) and the example with a manager slot held, as a
 * roll holds it (held-manager-slots.test.ts). Planned together (planAwsStacksOffline), once per test
 * run: the plan is kept in the run's cache directory (test/global-setup.js), keyed by the stacks'
 * content and the provider, and a second test file waits for the first one's plan rather than
 * repeating it (lib/review/synth-cache.ts's lock and atomic rename).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadedModel } from "../../../lib/model/load";
import { STACK_JSON_FILE } from "../../../lib/review/stack-files";
import { cachedDirectory, synthCacheDir } from "../../../lib/review/synth-cache";
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

  const key = createHash("sha256");
  const { size, mtimeMs } = statSync(provider.binary);
  key.update(`${provider.binary}:${provider.version}:${size}:${mtimeMs}`);
  for (const { name, cell } of stacks) key.update(`\0${name}\0`).update(readFileSync(join(cell.stackDir, STACK_JSON_FILE)));
  const cacheDir = synthCacheDir() ?? mkdtempSync(join(tmpdir(), "runner-fleet-aws-plan-cache-"));
  const entry = await cachedDirectory(cacheDir, `aws-plan-${key.digest("hex").slice(0, 32)}`, async (directory) => {
    const plans = await planAwsStacksOffline(stacks.map(({ name, cell }) => ({ module: name, stackDir: cell.stackDir })), provider);
    writeFileSync(join(directory, "plans.json"), JSON.stringify(Object.fromEntries(plans)));
  });
  const plans = JSON.parse(readFileSync(join(entry, "plans.json"), "utf8")) as Record<SharedStackName, PlanJson>;
  return new Map(stacks.map(({ name, loaded, cell }) => [name, { loaded, cell, plan: plans[name] }]));
}
