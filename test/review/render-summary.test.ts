import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { cellChangeSummary, type CellChangeSummary } from "../../lib/review/cell-summary";
import { summarizePlan, summarizeSynth } from "../../lib/review/change-summary";
import type { PlanJson, PlanResourceChange } from "../../lib/terraform/plan-json";
import { PLAN_NOTE_MARKER, cellMarker, renderSummaryMarkdown, renderSummaryText } from "../../lib/review/render-summary";
import { constructPaths, shardLookup } from "../../lib/review/stack-files";
import { PLAN_FIXTURE, RESOURCE_SHARDS_FIXTURE } from "../support/fake-terraform-workspace";
import { exampleModel } from "../support/models";

const fixturePlan = (): PlanJson => JSON.parse(readFileSync(PLAN_FIXTURE, "utf8"));
const fixtureShardOf = () => shardLookup(JSON.parse(readFileSync(RESOURCE_SHARDS_FIXTURE, "utf8")));

function planned(plan: PlanJson = fixturePlan()): CellChangeSummary {
  return cellChangeSummary(exampleModel("cell-1"), summarizePlan(plan, fixtureShardOf()), {
    engine: { name: "terraform", version: "1.11.4" },
    planFile: "/work/cdktf.out/stacks/cell-1/cell-1.tfplan",
  });
}

/** A runner-token-shaped string, made up at run time, short enough to be shown as a value. */
const fakeToken = () => `glrt-${randomBytes(10).toString("hex")}`;

describe("renderSummaryMarkdown", () => {
  it("starts with the note marker and marks the cell", () => {
    const markdown = renderSummaryMarkdown(planned());

    expect(markdown.split("\n")[0]).toBe(PLAN_NOTE_MARKER);
    expect(markdown).toContain(`${cellMarker("cell-1")}\n## Runner fleet \`cell-1\``);
    expect(markdown).toContain("Planned with terraform 1.11.4, plan file /work/cdktf.out/stacks/cell-1/cell-1.tfplan.");
  });

  it("has a table per shard with a row per resource type and its counts", () => {
    const summary = planned();
    const markdown = renderSummaryMarkdown(summary);

    for (const group of summary.changes.byShard) {
      const heading = group.shard === null ? "### Cell-wide" : `### Shard \`${group.shard}\``;
      const section = markdown.slice(markdown.indexOf(heading));
      expect(section).toContain(`${heading}\n\n| Resource type | Add | Change | Replace | Destroy |\n| --- | ---: | ---: | ---: | ---: |\n`);
      for (const entry of group.byType) {
        const counts = [entry.counts.add, entry.counts.change, entry.counts.replace, entry.counts.destroy].map((count) => String(count || ""));
        expect(section).toContain(`| \`${entry.type}\` | ${counts.join(" | ")} |`);
      }
    }
  });

  it("states the totals", () => {
    const { changes } = planned();

    expect(renderSummaryMarkdown(planned())).toContain(
      `**${changes.counts.add} to add, ${changes.counts.change} to change, ${changes.counts.replace} to replace, ${changes.counts.destroy} to destroy**`,
    );
  });

  it("has the capacity table with a row per shard and the total", () => {
    const summary = planned();
    const markdown = renderSummaryMarkdown(summary);

    expect(markdown).toContain("### Capacity\n\n| Shard | Managers | Max concurrent jobs | Max workers | Idle by policy (jobs / instances) |");
    for (const shard of summary.capacity.shards) {
      expect(markdown).toContain(
        `| \`${shard.shard}\` | ${shard.managers} | ${shard.maxConcurrentJobs} (${shard.managers} × ${shard.maxJobsPerManager}) | ${shard.maxWorkers} (${shard.managers} × ${shard.maxInstancesPerManager}) |`,
      );
    }
    const { total } = summary.capacity;
    expect(markdown).toContain(`| **Total** | ${total.managers} | ${total.maxConcurrentJobs} | ${total.maxWorkers} |  |`);
  });

  it("lists every changed address in a collapsed block", () => {
    const summary = planned();
    const markdown = renderSummaryMarkdown(summary);

    const details = markdown.slice(markdown.indexOf("<details>"), markdown.indexOf("</details>"));
    expect(details).toContain(`<summary>All ${summary.changes.resources.length} resource changes</summary>`);
    for (const resource of summary.changes.resources) expect(details).toContain(`**${resource.kind}** \`${resource.address}\``);
    expect(details).toContain('`machine_type` `"e2-standard-2"` → `"n2d-standard-2"` (forces replacement)');
  });

  it("names resources by construct path and type when the stack records one, never by hash-suffixed logical id", () => {
    const plan = fixturePlan();
    const [first] = plan.resource_changes!.filter((change) => change.mode !== "data" && !change.change.actions.includes("no-op"));
    const pathOf = (address: string) => (address === `${first.type}.${first.name}` ? "fleet/shard-small-amd64/managers/Template0" : undefined);
    const summary = cellChangeSummary(exampleModel("cell-1"), summarizePlan(plan, fixtureShardOf(), pathOf));
    const markdown = renderSummaryMarkdown(summary);

    expect(summary.changes.resources.find((resource) => resource.address === first.address)?.constructPath).toBe("fleet/shard-small-amd64/managers/Template0");
    const line = markdown.split("\n").find((text) => text.includes("`fleet/shard-small-amd64/managers/Template0`"))!;
    expect(line).toContain(`\`fleet/shard-small-amd64/managers/Template0\` ${first.type}`);
    expect(line).not.toContain(first.address);
  });

  it("reads construct paths from the synthesized stack, without the stack's own name", () => {
    const stack = {
      resource: {
        aws_launch_template: { lt_ABCDEF12: { "//": { metadata: { path: "cell-2/fleet/shard-spot-amd64/manager-0/launch-template" } }, count: 2 } },
      },
    };
    const summary = summarizeSynth(stack, () => "spot-amd64", constructPaths(stack));
    expect(summary.resources.map((resource) => [resource.address, resource.constructPath])).toEqual([
      ["aws_launch_template.lt_ABCDEF12[0]", "fleet/shard-spot-amd64/manager-0/launch-template"],
      ["aws_launch_template.lt_ABCDEF12[1]", "fleet/shard-spot-amd64/manager-0/launch-template"],
    ]);
  });

  it("shows a forget column only when something is forgotten", () => {
    const forgotten: PlanResourceChange = {
      address: "google_storage_bucket.old_CacheBucket_22222222",
      mode: "managed",
      type: "google_storage_bucket",
      name: "old_CacheBucket_22222222",
      change: { actions: ["forget"], before: { name: "b" }, after: null },
    };
    const plan = fixturePlan();

    expect(renderSummaryMarkdown(planned(plan))).not.toContain("Forget");
    expect(renderSummaryMarkdown(planned({ ...plan, resource_changes: [...(plan.resource_changes ?? []), forgotten] }))).toContain(
      "| Resource type | Add | Change | Replace | Destroy | Forget |",
    );
  });

  it("says so when nothing changes, and still shows capacity", () => {
    const plan = fixturePlan();
    const quiet = { ...plan, resource_changes: [], output_changes: {} };

    const markdown = renderSummaryMarkdown(planned(quiet));

    expect(markdown).toContain("**No changes**");
    expect(markdown).toContain("### Capacity");
    expect(markdown).not.toContain("<details>");
  });

  it("puts several cells under one marker", () => {
    const markdown = renderSummaryMarkdown([planned(), { ...planned(), cell: "cell-3" }]);

    expect(markdown.split(PLAN_NOTE_MARKER)).toHaveLength(2);
    expect(markdown).toContain(cellMarker("cell-1"));
    expect(markdown).toContain(cellMarker("cell-3"));
  });

  it("describes a dry run from the synthesized stack", () => {
    const synth = summarizeSynth({ resource: { google_compute_network: { network_Network_5C1D2E3F: {} } } }, () => undefined);

    const markdown = renderSummaryMarkdown(cellChangeSummary(exampleModel("cell-1"), synth));

    expect(markdown).toContain("Dry run: synthesized only");
    expect(markdown).toContain("**1 to add, 0 to change, 0 to replace, 0 to destroy**");
  });
});

describe("renderSummaryText", () => {
  it("names the cell, the totals, each shard's counts per type and the capacity", () => {
    const summary = planned();
    const text = renderSummaryText(summary);

    expect(text).toMatch(/^Cell cell-1\n/);
    const { counts } = summary.changes;
    expect(text).toContain(`Changes: ${counts.add} to add, ${counts.change} to change, ${counts.replace} to replace, ${counts.destroy} to destroy.`);
    const small = summary.changes.byShard.find((group) => group.shard === "small-amd64");
    expect(text).toContain(`shard small-amd64: ${small?.counts.add} to add, ${small?.counts.change} to change`);
    expect(text).toMatch(/google_compute_instance_template +-\/\+2/);
    for (const shard of summary.capacity.shards) {
      expect(text).toMatch(new RegExp(`${shard.shard} +${shard.managers} +${shard.maxConcurrentJobs} +${shard.maxWorkers}`));
    }
  });
});

describe("redaction", () => {
  it("never prints a token found in a plan value, in text, markdown or JSON", () => {
    const token = fakeToken();
    const leaking: PlanResourceChange = {
      address: "google_compute_instance.small-amd64_Manager0_2F3A2364",
      mode: "managed",
      type: "google_compute_instance",
      name: "small-amd64_Manager0_2F3A2364",
      change: { actions: ["update"], before: { description: "runner" }, after: { description: token }, before_sensitive: {}, after_sensitive: {} },
    };
    const plan = fixturePlan();
    const summary = planned({ ...plan, resource_changes: [leaking] });

    const outputs = [renderSummaryText(summary), renderSummaryMarkdown(summary), JSON.stringify(summary)];

    expect(renderSummaryMarkdown(summary)).toContain("`description` `\"runner\"` → `\"glrt-");
    for (const output of outputs) expect(output).not.toContain(token);
  });

  it("redacts a token even where the summary holds it unredacted", () => {
    const token = fakeToken();
    const summary = { ...planned(), cell: `cell-${token}` };

    expect(renderSummaryText(summary)).not.toContain(token);
    expect(renderSummaryMarkdown(summary)).not.toContain(token);
  });
});
