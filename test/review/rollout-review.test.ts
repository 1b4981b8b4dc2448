/**
 * The review's rollout part (lib/review/rollout-review.ts): waves, cells, bake, gates and thresholds, and the
 * expected duration from each cell's roll (phases x (maximum_timeout + stop margin + boot), as lib/roll/run-roll.ts waits).
 */
import { join } from "node:path";
import { loadModelFile } from "../../lib/model/load";
import { renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import { cellRollMs, rolloutReview } from "../../lib/review/rollout-review";
import { diffStacks } from "../../lib/review/stack-diff";
import { parseRolloutPolicy } from "../../lib/rollout/load-policy";
import { DEFAULT_ROLLOUT_POLICY } from "../../lib/rollout/policy-schema";
import { planWaves } from "../../lib/rollout/waves";
import { MODELS_DIR } from "../support/models";

const model = loadModelFile(join(MODELS_DIR, "cell-1.yaml")).model;
const cells = Array.from({ length: 20 }, (_, index) => `cell-${String(index + 1).padStart(2, "0")}`);
/** A runner bump replaces both manager slots of both shards. */
const bump = [{ replaced: [0, 1] }, { replaced: [0, 1] }];
const HOUR = 3600_000;

describe("the rollout in the review", () => {
  it("a cell's roll: 2 slots x (the longest maximum_timeout 3h + 5 min stop margin + 20 min boot) = 6 h 50 min; none when no manager is replaced", () => {
    expect(cellRollMs({ model, replacedSlots: bump })).toBe(2 * (3 * HOUR + 25 * 60_000));
    expect(cellRollMs({ model, replacedSlots: [{ replaced: [] }] })).toBe(0);
  });

  const waves = planWaves(cells.map((cell) => ({ cell, labels: {} })), DEFAULT_ROLLOUT_POLICY);
  const review = rolloutReview(waves, DEFAULT_ROLLOUT_POLICY, undefined, () => cellRollMs({ model, replacedSlots: bump }))!;

  it("a runner bump of 20 cells: three rolls one after another and two bakes of 1 h to 6 h", () => {
    expect(review.waves.map((wave) => [wave.name, wave.cells.length, wave.gated])).toEqual([["canary", 1, true], ["ten-percent", 2, true], ["rest", 17, false]]);
    expect(review.shortestMs).toBe(3 * 2 * (3 * HOUR + 25 * 60_000) + 2 * HOUR);
    expect(review.longestMs).toBe(3 * 2 * (3 * HOUR + 25 * 60_000) + 2 * 6 * HOUR);
  });

  it("is shown in the merge request note: waves, cells, roll times, bake, gates and thresholds, expected duration", () => {
    const report: ReviewReport = {
      base: { ref: "main", sha: "0123456789abcdef0123456789abcdef01234567" },
      head: { ref: "working tree" },
      changedCells: { base: "main", baseSha: "0123456789abcdef0123456789abcdef01234567", head: "working tree", cells: [], removed: [], sharedFiles: [], ignoredFiles: [] },
      changedOnly: true,
      diff: diffStacks(new Map(), new Map()),
      rollout: review,
    };
    const markdown = renderReviewMarkdown(report);
    expect(markdown).toContain("#### Rollout: 3 waves (the default policy: no `rollout.yaml`)");
    expect(markdown).toContain("| 1. `canary` | `cell-01` | 6 h 50 min | bake, then gate `gate:canary` |");
    expect(markdown).toContain("| 3. `rest` | 17 cells: `cell-04`, `cell-05`, `cell-06`, `cell-07`, `cell-08`, … | 6 h 50 min | done |");
    expect(markdown).toContain("**Bake** before each gate: 1h and 100 jobs in the wave (and in the baseline), whichever is later");
    expect(markdown).toContain("runner failures (runner_system_failure, stuck_or_timeout_failure, scheduler_failure) above baseline × 2 + 0.50 % and significant (one-sided two-proportion z-test, 99 %); queue time p90 above baseline × 1.5 + 30s");
    expect(markdown).toContain("**Expected duration**: 22 h 30 min when every gate passes at the end of its bake, up to 32 h 30 min when each waits for traffic.");
    expect(renderReviewText(report)).toContain("rollout: 3 waves (default policy); 22 h 30 min to 32 h 30 min");
  });

  it("a wave holding a manual_promotion cell says its gate waits for a person", () => {
    const policy = parseRolloutPolicy("manual_promotion: [cell-01]\n", "rollout.yaml");
    const manual = rolloutReview(planWaves(cells.map((cell) => ({ cell, labels: {} })), policy), policy, "rollout.yaml", () => 0)!;
    expect(renderReviewMarkdown({ ...({} as ReviewReport), base: { ref: "main", sha: "0".repeat(40) }, head: { ref: "x" }, changedCells: { base: "main", baseSha: "0".repeat(40), head: "x", cells: [], removed: [], sharedFiles: [], ignoredFiles: [] }, changedOnly: true, diff: diffStacks(new Map(), new Map()), rollout: manual })).toContain(
      "| 1. `canary` | `cell-01` | no roll | gate `gate:canary`: waits for a person (manual_promotion), up to 6h |",
    );
  });

  it("a change to one cell has no rollout part", () => {
    expect(rolloutReview(planWaves([{ cell: "cell-01", labels: {} }], DEFAULT_ROLLOUT_POLICY), DEFAULT_ROLLOUT_POLICY, undefined, () => 0)).toBeUndefined();
  });
});

describe("the rollout in the text review", () => {
  it("names a long wave by its count and first cells, one line a wave", () => {
    const waves = planWaves(cells.map((cell) => ({ cell, labels: {} })), DEFAULT_ROLLOUT_POLICY);
    const review = rolloutReview(waves, DEFAULT_ROLLOUT_POLICY, undefined, () => 0)!;
    const report: ReviewReport = {
      base: { ref: "main", sha: "0".repeat(40) },
      head: { ref: "x" },
      changedCells: { base: "main", baseSha: "0".repeat(40), head: "x", cells: [], removed: [], sharedFiles: [], ignoredFiles: [] },
      changedOnly: true,
      diff: diffStacks(new Map(), new Map()),
      rollout: review,
    };
    expect(renderReviewText(report)).toContain("  wave 3 rest: 17 cells: cell-04, cell-05, cell-06, cell-07, cell-08, …; no manager replaced; then done\n");
  });
});
