/**
 * Every AWS stack the tests synthesize is initialized and planned (which validates it
 * first) by the real terraform with the real AWS provider, offline; the plan's `show -json` goes
 * through the project's plan summary, which must agree with the dry run's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { LoadedModel } from "../../lib/model/load";
import { readResourceShards, readSynthesizedStack, summarizePlan, summarizeSynth, type ChangeSummary } from "../../lib/review/change-summary";
import { renderedFilesForCell } from "../../lib/render/rendered-files";
import { synthesizeCells } from "../../stacks/synthesize";
import { planAwsStackOffline } from "../support/real-engine/aws-offline-plan";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { awsVariant, exampleCell } from "../support/real-engine/variants";

const STACKS: ReadonlyArray<[string, () => LoadedModel]> = [
  ["cell-2 (the AWS example)", () => exampleCell("cell-2")],
  ["an existing VPC, three shards, arm64 managers and workers", awsVariant],
];

describeWithRealEngine("AWS stacks planned by the real provider, offline", { aws: true }, (engine) => {
  let outdir: string;
  beforeAll(() => (outdir = mkdtempSync(join(tmpdir(), "runner-fleet-aws-synth-"))));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  // `plan` validates the configuration first (see planAwsStackOffline): it fails on an invalid stack.
  it.each(STACKS)("%s: init and plan (validation included) succeed; the plan matches the dry-run summary", async (_, make) => {
    const loaded = make();
    const [cell] = synthesizeCells([loaded], { outdir });
    const offline = await planAwsStackOffline(cell.stackDir, engine.awsProvider!);
    try {
      const shardOf = readResourceShards(cell.stackDir);
      const planned = summarizePlan(offline.plan, shardOf);
      const dryRun = summarizeSynth(readSynthesizedStack(cell.stackDir), shardOf);
      expect(planned.counts.add).toBeGreaterThan(0);
      expect(comparable(planned)).toEqual(comparable(dryRun));

      // The provider receives each boot script exactly as rendered for review.
      const scripts = renderedFilesForCell(loaded.model).filter((file) => file.path.endsWith(".sh")).map((file) => file.content);
      expect(new Set(plannedUserData(offline.plan))).toEqual(new Set(scripts));
    } finally {
      offline.dispose();
    }
  }, 180_000);
});

/** What both summaries must agree on: counts per shard and type, and the same instance addresses. */
function comparable(summary: ChangeSummary) {
  return {
    counts: summary.counts,
    byShard: summary.byShard,
    byType: summary.byType,
    resources: summary.resources.map((resource) => `${resource.address} ${resource.shard} ${resource.kind}`).sort(),
    outputs: summary.outputs,
  };
}

interface PlannedResource {
  readonly type: string;
  readonly values?: Record<string, unknown>;
}

/** The decoded user_data of every planned launch template (gzip-compressed when over EC2's 16 KB, as cloud-init accepts it). */
function plannedUserData(plan: { planned_values?: unknown }): string[] {
  const root = (plan.planned_values as { root_module?: { resources?: PlannedResource[] } }).root_module;
  return (root?.resources ?? [])
    .filter((resource) => resource.type === "aws_launch_template")
    .map((resource) => {
      const bytes = Buffer.from(String(resource.values?.user_data), "base64");
      const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
      return (gzipped ? gunzipSync(bytes) : bytes).toString("utf8");
    });
}
