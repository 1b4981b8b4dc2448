/**
 * Every AWS stack the tests synthesize is initialized and planned (which validates it
 * first) by the real terraform with the real AWS provider, offline; the plan's `show -json` goes
 * through the project's plan summary, which must agree with the dry run's. The stacks are planned
 * together, in one plan (test/support/real-engine/aws-shared-plan.ts): the AWS example, and a variant
 * of it as a roll phase leaves it, with a manager slot held.
 */
import { gunzipSync } from "node:zlib";
import { readResourceShards, readSynthesizedStack, summarizePlan, summarizeSynth, type ChangeSummary } from "../../lib/review/change-summary";
import { describeWithRealEngine, type RealEngine } from "../support/real-engine/availability";
import type { PlannedStack, SharedStackName } from "../support/real-engine/aws-shared-plan";

const STACKS: ReadonlyArray<[string, SharedStackName]> = [
  ["cell-2 (the AWS example)", "cell_2"],
  ["an existing VPC, three shards, arm64 managers and workers, a manager slot held", "aws_variant"],
];

describeWithRealEngine("AWS stacks planned by the real provider, offline", { aws: true }, (engine) => {
  // `plan` validates the configuration first (see planAwsStacksOffline): it fails on an invalid stack.
  it.each(STACKS)("%s: init and plan (validation included) succeed; the plan matches the dry-run summary", async (_, name) => {
    const { loaded, cell, plan } = await plannedStack(engine, name);
    const shardOf = readResourceShards(cell.stackDir);
    const planned = summarizePlan(plan, shardOf);
    const dryRun = summarizeSynth(readSynthesizedStack(cell.stackDir), shardOf);
    expect(planned.counts.add).toBeGreaterThan(0);
    expect(comparable(planned)).toEqual(comparable(dryRun));

    // The provider receives each boot script exactly as rendered for review.
    const { renderedFilesForCell } = require("../../lib/render/rendered-files") as typeof import("../../lib/render/rendered-files");
    const scripts = renderedFilesForCell(loaded.model).filter((file) => file.path.endsWith(".sh")).map((file) => file.content);
    expect(new Set(plannedUserData(plan))).toEqual(new Set(scripts));
  }, 180_000);

  // A roll phase's stack (some manager slots held with `lifecycle.ignore_changes = all`) is valid for the
  // real provider. On a fresh state the plan lists every resource as created, held or not; what holding
  // adds (the lifecycle block, in JSON syntax) is what the validation checks.
  it("the variant with slot 0 of its first shard held, as a roll holds it: plan (validation included) succeeds", async () => {
    const { cell, plan } = await plannedStack(engine, "aws_variant");
    const stack = readSynthesizedStack(cell.stackDir);
    const templates = Object.values((stack.resource as Record<string, Record<string, { lifecycle?: unknown }>>).aws_launch_template);
    expect(templates.filter((template) => JSON.stringify(template.lifecycle) === '{"ignore_changes":"all"}')).toHaveLength(1);

    // The held stack planned, every one of its resources with it.
    const addresses = (summary: ChangeSummary) => summary.resources.map((resource) => resource.address).sort();
    const planned = summarizePlan(plan, () => undefined);
    expect(planned.counts.add).toBeGreaterThan(0);
    expect(addresses(planned)).toEqual(addresses(summarizeSynth(stack, () => undefined)));
  }, 180_000);
});

/**
 * A stack with its part of the one shared plan. The synthesizer (and the renderer above) load only once
 * the engine is found: availability.test.ts runs this file twice without it, to see it fail or skip at
 * once, and loading them cost each of those runs ~0.35 CPU-s.
 */
async function plannedStack(engine: RealEngine, name: SharedStackName): Promise<PlannedStack> {
  const { sharedAwsPlan } = require("../support/real-engine/aws-shared-plan") as typeof import("../support/real-engine/aws-shared-plan");
  return (await sharedAwsPlan(engine.awsProvider!)).get(name)!;
}

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
