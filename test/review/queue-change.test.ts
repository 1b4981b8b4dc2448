/**
 * The review of a change to a shard's autoscaling: base and head simulated on the same load, p95
 * wait and monthly cost before and after, the chart, and a call-out when p95 rises above the target.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runChangedCells } from "../../app/commands/review";
import { changedShards, queueChanges, REVIEW_TARGET_WAIT_SECONDS } from "../../lib/review/queue-change";
import { renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import type { StackJson } from "../../lib/review/entry-change";
import { diffStacks } from "../../lib/review/stack-diff";
import { formatTraceCsv } from "../../lib/simulate/read-trace";
import { syntheticTraceFor } from "../../lib/simulate/model-synthetic-week";
import { exampleModel, MODELS_DIR } from "../support/models";
import { createTempRepo, type TempRepo } from "./review-temp-repo";

const CELL_1 = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");

/** cell-1 with every small-amd64 policy keeping `idle` idle slots. */
function smallIdle(idle: number): string {
  let seen = 0;
  // The small shard's two policies come first in the file; the large shard's are left as they are.
  return CELL_1.replace(/idle_count: \d+/g, (text) => (seen++ < 2 ? `idle_count: ${idle}` : text));
}

let repo: TempRepo;
afterEach(() => repo?.cleanup());

describe("the simulated queue of a review", () => {
  it("simulates base and head on the synthetic week and calls out p95 rising above the target", async () => {
    repo = createTempRepo({ "models/cell-1.yaml": smallIdle(40) });
    const base = repo.git("rev-parse", "HEAD").trim();
    repo.write("models/cell-1.yaml", smallIdle(0));
    const head = repo.commit("no idle capacity for small-amd64");

    const changed = await runChangedCells({ base, head, cwd: repo.dir });
    const [queue] = await queueChanges(changed, { cwd: repo.dir, head });

    expect(queue.cell).toBe("cell-1");
    expect(queue.load).toMatch(/^the synthetic office week \([\d,]+ jobs\)$/);
    expect(queue.shards.map((shard) => shard.shard)).toEqual(["small-amd64"]);
    const [small] = queue.shards;
    expect(small.before!.p95WaitSeconds).toBeLessThan(REVIEW_TARGET_WAIT_SECONDS);
    // With no idle slot and one job per instance, most jobs wait for a boot (90 s on Google Cloud).
    expect(small.after!.p95WaitSeconds).toBeGreaterThan(REVIEW_TARGET_WAIT_SECONDS);
    expect(small.after!.monthlyCostUsd!).toBeLessThan(small.before!.monthlyCostUsd!);
    expect(small.raisedAboveTarget).toBe(true);
    expect(queue.charts).toHaveLength(1);
    expect(queue.charts[0]).toContain("xychart-beta");
    expect(queue.charts[0]).toContain("cell-1/small-amd64");

    // Shown in the note of the merge request, in the cell's section.
    const markdown = renderReviewMarkdown(reviewOf({ ...queue, cell: "cell-a" }));
    expect(markdown).toContain("**Simulated queue wait** on the synthetic office week");
    expect(markdown).toMatch(/\| `small-amd64` \| [\d.]+ (s|min) → [\d.]+ (s|min) \| \$[\d,.]+ → \$[\d,.]+ \|/);
    expect(markdown).toContain("> :warning: **p95 wait of shard small-amd64 rises above the 30 s target:");
    expect(markdown).toContain("```mermaid\nxychart-beta");
    expect(renderReviewText(reviewOf({ ...queue, cell: "cell-a" }))).toContain("  WARNING: p95 wait of shard small-amd64 rises above the 30 s target");
  }, 60_000);

  it("uses the committed trace of the cell where there is one, and says nothing above target when wait falls", async () => {
    const trace = formatTraceCsv(syntheticTraceFor(exampleModel("cell-1"), { seed: 4, jobs: 3000 }));
    repo = createTempRepo({ "models/cell-1.yaml": smallIdle(0), "models/traces/cell-1.csv": trace });
    const base = repo.git("rev-parse", "HEAD").trim();
    repo.write("models/cell-1.yaml", smallIdle(40));
    const head = repo.commit("idle capacity for small-amd64");

    const [queue] = await queueChanges(await runChangedCells({ base, head, cwd: repo.dir }), { cwd: repo.dir, head });
    expect(queue.load).toMatch(/^models\/traces\/cell-1\.csv \(\d,\d{3} jobs\)$/);
    const [small] = queue.shards;
    expect(small.after!.p95WaitSeconds).toBeLessThan(small.before!.p95WaitSeconds);
    expect(small.raisedAboveTarget).toBe(false);
    expect(renderReviewMarkdown(reviewOf({ ...queue, cell: "cell-a" }))).not.toContain(":warning: **p95 wait");
  }, 60_000);

  it("re-simulates a cell whose committed trace alone changes: the head's model on both loads, the cell not planned", async () => {
    const model = exampleModel("cell-1");
    const quietLoad = syntheticTraceFor(model, { seed: 4, jobs: 2000 });
    const busyLoad = syntheticTraceFor(model, { seed: 5, jobs: 6000 });
    const quiet = formatTraceCsv(quietLoad);
    const busy = formatTraceCsv(busyLoad);
    const count = (load: { count: number }) => load.count.toLocaleString("en-US");
    repo = createTempRepo({ "models/cell-1.yaml": CELL_1, "models/traces/cell-1.csv": quiet });
    const base = repo.git("rev-parse", "HEAD").trim();
    repo.write("models/traces/cell-1.csv", busy);
    const head = repo.commit("the trace of this month");

    const changed = await runChangedCells({ base, head, cwd: repo.dir });
    expect(changed.cells).toEqual([]);
    expect(changed.traces).toEqual([{ cell: "cell-1", file: "models/traces/cell-1.csv", modelFile: "models/cell-1.yaml" }]);
    const [queue] = await queueChanges(changed, { cwd: repo.dir, head });
    expect(queue.load).toBe(`models/traces/cell-1.csv, which this change edits: the head's model on the base's trace (${count(quietLoad)} jobs) and on the head's (${count(busyLoad)} jobs)`);
    expect(queue.shards.map((shard) => shard.shard)).toEqual(model.shards.map((shard) => shard.name));
    for (const shard of queue.shards) expect(shard.before && shard.after).toBeTruthy();
    // Three times the jobs on the same fleet: more instance-hours, so more cost.
    expect(queue.shards.some((shard) => shard.after!.monthlyCostUsd! > shard.before!.monthlyCostUsd!)).toBe(true);

    // The note shows it in a section of its own, since no stack of the cell changed.
    const report = reviewOf(queue);
    expect(renderReviewMarkdown(report)).toContain("#### `cell-1` — load changed, no infrastructure change\n\n**Simulated queue wait** on models/traces/cell-1.csv, which this change edits");
    expect(renderReviewText(report)).toContain("cell-1: load changed, no infrastructure change\n  simulated on models/traces/cell-1.csv");
  }, 60_000);

  it("simulates nothing when no shard's scaling, workers or managers changed", async () => {
    const model = exampleModel("cell-1");
    const renamed = structuredClone(model);
    renamed.shards[0].description = "another description";
    expect(changedShards(model, renamed)).toEqual([]);
    const bigger = structuredClone(model);
    bigger.shards[1].workers.machine_type = "n2d-standard-16";
    expect(changedShards(model, bigger)).toEqual(["large-amd64"]);
    const fewer = structuredClone(model);
    fewer.shards.pop();
    expect(changedShards(model, fewer)).toEqual(["large-amd64"]);
  });

  it("simulates nothing for a shard renamed with renamed_from, and both names for a rename without it", () => {
    const model = exampleModel("cell-1");
    const renamed = structuredClone(model);
    renamed.shards[1] = { ...renamed.shards[1], name: "xlarge-amd64", renamed_from: "large-amd64" };
    expect(changedShards(model, renamed)).toEqual([]);
    const replaced = structuredClone(model);
    replaced.shards[1] = { ...replaced.shards[1], name: "xlarge-amd64" };
    expect(changedShards(model, replaced)).toEqual(["xlarge-amd64", "large-amd64"]);
  });
});

/** A review of the stack-diff fixtures (cell-a changed) carrying one cell's queue change. */
function reviewOf(queue: ReviewReport["queues"] extends readonly (infer T)[] | undefined ? T : never): ReviewReport {
  const fixtures = join(__dirname, "..", "fixtures", "stack-diff");
  const load = (name: string) => new Map(Object.entries(JSON.parse(readFileSync(join(fixtures, name), "utf8")) as Record<string, StackJson>));
  return {
    base: { ref: "main", sha: "0123456789abcdef0123456789abcdef01234567" },
    head: { ref: "working tree" },
    changedCells: { base: "main", baseSha: "0123456789abcdef0123456789abcdef01234567", head: "working tree", cells: [{ cell: "cell-a", file: "models/cell-a.yaml", reasons: ["models/cell-a.yaml changed"] }], removed: [], sharedFiles: [], ignoredFiles: [] },
    changedOnly: false,
    diff: diffStacks(load("before.json"), load("after.json")),
    queues: [queue],
  };
}
