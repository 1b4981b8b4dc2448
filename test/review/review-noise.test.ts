/**
 * Warnings are for what needs a decision. A new cell's managers are what the cell is, and a new shard's
 * simulated wait on a load it never ran is a figure to read; neither is a warning. Replacing running
 * managers, and making an existing shard slower than the target, stay warnings.
 */
import type { ChangedCellsResult } from "../../lib/review/changed-cells";
import type { StackJson } from "../../lib/review/entry-change";
import type { CellQueueChange } from "../../lib/review/queue-change";
import { renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import { diffStacks } from "../../lib/review/stack-diff";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runChangedCells } from "../../app/commands/review";
import { queueChanges } from "../../lib/review/queue-change";
import { MODELS_DIR } from "../support/models";
import { createTempRepo, type TempRepo } from "./review-temp-repo";

/** An AWS manager slot as the stack holds it: its launch template, found by construct path (lib/review/manager-changes.ts). */
function managerStack(cell: string, userData: string): StackJson {
  return { resource: { aws_launch_template: { m0: { user_data: userData, "//": { metadata: { path: `${cell}/fleet/shard-spot/manager-0/launch-template` } } } } } };
}

function report(before: Map<string, StackJson>, after: Map<string, StackJson>, queues: CellQueueChange[] = []): ReviewReport {
  const changedCells: ChangedCellsResult = {
    base: "main",
    baseSha: "0123456789abcdef0123456789abcdef01234567",
    head: "working tree",
    cells: [...after.keys()].map((cell) => ({ cell, file: `models/${cell}.yaml`, reasons: [`models/${cell}.yaml changed`] })),
    removed: [],
    sharedFiles: [],
    ignoredFiles: [],
  };
  return { base: { ref: "main", sha: changedCells.baseSha }, head: { ref: "working tree" }, changedCells, changedOnly: false, diff: diffStacks(before, after), queues };
}

test("a new cell's managers are information, a running cell's replaced managers a warning", () => {
  const added = renderReviewText(report(new Map(), new Map([["cell-9", managerStack("cell-9", "a")]])));
  expect(added).toContain("\n  adds 1 manager to shard spot\n");
  expect(added).not.toContain("WARNING");
  expect(renderReviewMarkdown(report(new Map(), new Map([["cell-9", managerStack("cell-9", "a")]])))).not.toContain(":warning:");

  const replaced = renderReviewText(report(new Map([["cell-1", managerStack("cell-1", "a")]]), new Map([["cell-1", managerStack("cell-1", "b")]])));
  expect(replaced).toContain("  WARNING: replaces 1 of 1 manager");
});

test("a new shard's simulated wait above the target is a figure, not a warning", async () => {
  // A new shard with no idle capacity, on a tag of its own, and bursts of ten jobs: all but the one a warm
  // reservation serves wait for a boot, above the 30 s target.
  const extra = [
    "  - name: extra-amd64",
    "    tags: [extra-amd64]",
    "    maximum_timeout: 1h",
    "    managers: { count: 1, machine_type: e2-standard-2, runner_version: 19.5.0, concurrent: 10 }",
    "    workers: { machine_type: n2d-standard-2, capacity_per_instance: 1, max_use_count: 1, max_instances: 10 }",
    "    autoscaling: { policies: [{ periods: [\"* * * * *\"], idle_count: 0, idle_time: 5m }] }",
    "",
  ].join("\n");
  const cell1 = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");
  repo = createTempRepo({ "models/cell-1.yaml": cell1, "models/traces/cell-1.csv": "created_at,duration,tags\n" + Array.from({ length: 80 }, (_, index) => `${1767600000 + Math.floor(index / 10) * 7200},300,extra-amd64`).join("\n") + "\n" });
  const base = repo.git("rev-parse", "HEAD").trim();
  repo.write("models/cell-1.yaml", cell1.replace("\nmonitoring:", `\n${extra}monitoring:`));
  const head = repo.commit("a new shard");

  const [queue] = await queueChanges(await runChangedCells({ base, head, cwd: repo.dir }), { cwd: repo.dir, head });

  const added = queue.shards.find((shard) => shard.shard === "extra-amd64")!;
  expect(added.before).toBeNull();
  expect(added.after!.p95WaitSeconds).toBeGreaterThan(queue.targetWaitSeconds);
  expect(added.raisedAboveTarget).toBe(false);
  const text = renderReviewText(report(new Map(), new Map(), [queue]));
  expect(text).toMatch(/\n    extra-amd64: p95 wait none → \d+ s, simulated cost none → \$[\d,.]+ a month\n/);
  expect(text).not.toContain("WARNING");
}, 60_000);

let repo: TempRepo | undefined;
afterEach(() => repo?.cleanup());
