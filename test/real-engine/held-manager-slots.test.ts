/**
 * A roll phase's stack (some manager slots held with `lifecycle.ignore_changes = all`) is valid for
 * the real terraform with the real AWS provider, offline. `validate` alone: the held stack has the
 * resources of the AWS example, which aws-offline-plan.test.ts plans already, and what holding
 * adds (the lifecycle block, in JSON syntax) is checked by validation; on a fresh state a plan
 * would only list every resource as created, held or not.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSynthesizedStack } from "../../lib/review/change-summary";
import { synthesizeCells } from "../../stacks/synthesize";
import { validateAwsStackOffline } from "../support/real-engine/aws-offline-plan";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { exampleCell } from "../support/real-engine/variants";

describeWithRealEngine("held manager slots, checked by the real engine", { aws: true }, (engine) => {
  let outdir: string;
  beforeAll(() => (outdir = mkdtempSync(join(tmpdir(), "runner-fleet-held-synth-"))));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("validates the AWS example with slot 0 of its shard held", async () => {
    const loaded = exampleCell("cell-2");
    const shard = loaded.model.shards[0].name;
    const [cell] = synthesizeCells([loaded], { outdir, heldManagerSlots: new Map([[loaded.model.cell.id, new Set([`${shard}/0`])]]) });
    const templates = Object.values((readSynthesizedStack(cell.stackDir).resource as Record<string, Record<string, { lifecycle?: unknown }>>).aws_launch_template);
    expect(templates.filter((template) => JSON.stringify(template.lifecycle) === '{"ignore_changes":"all"}')).toHaveLength(1);

    expect(await validateAwsStackOffline(cell.stackDir, engine.awsProvider!)).toContain("The configuration is valid.");
  }, 180_000);
});
