/**
 * A roll phase's stack (some manager slots held with `lifecycle.ignore_changes = all`) is valid for
 * the real terraform with the real AWS provider, offline: it is planned (which validates it first)
 * with the other AWS stacks, in the one plan of the test run (test/support/real-engine/aws-shared-plan.ts).
 * On a fresh state the plan lists every resource as created, held or not; what holding adds (the
 * lifecycle block, in JSON syntax) is what the validation checks.
 */
import { readSynthesizedStack, summarizePlan, summarizeSynth } from "../../lib/review/change-summary";
import { describeWithRealEngine } from "../support/real-engine/availability";
import { sharedAwsPlan } from "../support/real-engine/aws-shared-plan";

describeWithRealEngine("held manager slots, checked by the real engine", { aws: true }, (engine) => {
  it("plans the AWS example with slot 0 of its shard held", async () => {
    const { cell, plan } = (await sharedAwsPlan(engine.awsProvider!)).get("cell_2_held")!;
    const stack = readSynthesizedStack(cell.stackDir);
    const templates = Object.values((stack.resource as Record<string, Record<string, { lifecycle?: unknown }>>).aws_launch_template);
    expect(templates.filter((template) => JSON.stringify(template.lifecycle) === '{"ignore_changes":"all"}')).toHaveLength(1);

    // The held stack planned, every one of its resources with it.
    const addresses = (summary: ReturnType<typeof summarizePlan>) => summary.resources.map((resource) => resource.address).sort();
    const planned = summarizePlan(plan, () => undefined);
    expect(planned.counts.add).toBeGreaterThan(0);
    expect(addresses(planned)).toEqual(addresses(summarizeSynth(stack, () => undefined)));
  }, 180_000);
});
