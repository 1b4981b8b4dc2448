/**
 * A roll phase's stack (some manager slots held with `lifecycle.ignore_changes = all`) is valid for
 * the real terraform with the real AWS provider, offline, and still plans every resource.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSynthesizedStack } from "../../lib/review/change-summary";
import { synthesizeCells } from "../../stacks/synthesize";
import { planAwsStackOffline } from "../support/real-engine/aws-offline-plan";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { exampleCell } from "../support/real-engine/variants";

describeWithRealEngine("held manager slots, checked by the real engine", { aws: true }, (engine) => {
  let outdir: string;
  beforeAll(() => (outdir = mkdtempSync(join(tmpdir(), "runner-fleet-held-synth-"))));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it("validates and plans the AWS example with slot 0 of its shard held", async () => {
    const loaded = exampleCell("cell-2");
    const shard = loaded.model.shards[0].name;
    const [cell] = synthesizeCells([loaded], { outdir, heldManagerSlots: new Map([[loaded.model.cell.id, new Set([`${shard}/0`])]]) });
    const templates = Object.values((readSynthesizedStack(cell.stackDir).resource as Record<string, Record<string, { lifecycle?: unknown }>>).aws_launch_template);
    expect(templates.filter((template) => JSON.stringify(template.lifecycle) === '{"ignore_changes":"all"}')).toHaveLength(1);

    const offline = await planAwsStackOffline(cell.stackDir, engine.awsProvider!);
    try {
      expect(offline.validateOutput).toContain("The configuration is valid.");
      const launchTemplates = (offline.plan.resource_changes ?? []).filter((change) => change.type === "aws_launch_template");
      expect(launchTemplates.map((change) => change.change.actions)).toEqual(launchTemplates.map(() => ["create"]));
    } finally {
      offline.dispose();
    }
  }, 180_000);
});
