/**
 * The review shows what onboarding will change in GitLab after the merge, from the models alone (a merge
 * request pipeline has no admin token): the runner settings desiredRunner (lib/gitlab/runner-spec.ts)
 * derives, which onboard reconciles; runners created, and runners left registered by a removed shard;
 * jobs that lose their runner (untagged jobs two shards race for are prepare's model warning).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChangedCellsResult } from "../../lib/review/changed-cells";
import { gitlabChanges } from "../../lib/review/gitlab-changes";
import { sideOf, type CellSides } from "../../lib/review/model-sides";
import { renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import { diffStacks } from "../../lib/review/stack-diff";
import { MODELS_DIR } from "../support/models";

const FILE = "models/cell-1.yaml";
const CELL_1 = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");
const LARGE_TAGS = "    tags: [saas-linux-large-amd64]\n    run_untagged: false\n";

function sides(before: string, after: string): CellSides[] {
  expect(before === "" || before.includes("name: large-amd64")).toBe(true);
  return [{ cell: { cell: "cell-1", file: FILE, reasons: [`${FILE} changed`] }, base: sideOf(before, FILE), head: sideOf(after, FILE) }];
}

describe("gitlabChanges", () => {
  it("shows a tag added and run_untagged turned on as an update of the same runner (the untagged race is prepare's model warning)", () => {
    expect(CELL_1).toContain(LARGE_TAGS);
    const after = CELL_1.replace(LARGE_TAGS, "    tags: [saas-linux-large-amd64, gpu]\n    run_untagged: true\n");
    expect(gitlabChanges(sides(CELL_1, after))).toEqual([
      {
        cell: "cell-1",
        shards: [
          {
            shard: "large-amd64",
            kind: "update",
            settings: [
              { setting: "tag_list", before: "[saas-linux-large-amd64, runner-fleet:cell-1]", after: "[saas-linux-large-amd64, gpu, runner-fleet:cell-1]" },
              { setting: "run_untagged", before: "false", after: "true" },
            ],
          },
        ],
        warnings: [],
      },
    ]);
  });

  it("fails when a tag is taken away from every shard: the jobs that ask for it stay pending", () => {
    const after = CELL_1.replace(LARGE_TAGS, "    tags: [saas-linux-xl-amd64]\n    run_untagged: false\n");
    const [change] = gitlabChanges(sides(CELL_1, after));
    expect(change.warnings).toEqual([
      'jobs tagged "saas-linux-large-amd64" (shard large-amd64 took them) find no runner of cell cell-1 after this change: they stay pending until a runner with that tag takes them',
    ]);
  });

  it("says a removed shard's VMs and cache bucket are deleted and its runner stays registered until onboard --prune, and a new shard's runner is created", () => {
    const removed = CELL_1.replace("name: large-amd64", "name: xlarge-amd64");
    const [change] = gitlabChanges(sides(CELL_1, removed));
    expect(change.shards).toEqual([
      { shard: "xlarge-amd64", kind: "create", runner: "tags [saas-linux-large-amd64, runner-fleet:cell-1], access not_protected, maximum timeout 10800 s" },
      { shard: "large-amd64", kind: "left-registered", tags: ["saas-linux-large-amd64"], cache: true },
    ]);
    const text = renderReviewText(reviewOf(gitlabChanges(sides(CELL_1, removed))));
    expect(text).toContain(
      "    shard large-amd64 is gone from the model: the apply deletes its managers and workers, and its cache bucket with the cached objects in it (the cache is disposable); " +
        "its runner (tags [saas-linux-large-amd64]) stays registered in GitLab, with no manager once the apply removes them, until `onboard --model cell-1 --prune` deletes it\n",
    );
  });

  it("shows a shard renamed with renamed_from as the same runner renamed, not a runner created and one left registered", () => {
    const renamed = CELL_1.replace("name: large-amd64", "name: xlarge-amd64\n    renamed_from: large-amd64").replace("    description: Cell 1 shared runners, large amd64\n", "");
    const [change] = gitlabChanges(sides(CELL_1, renamed));
    expect(change.shards).toEqual([
      {
        shard: "xlarge-amd64",
        kind: "rename",
        from: "large-amd64",
        settings: [{ setting: "description", before: '"Cell 1 shared runners, large amd64"', after: '"cell-1-xlarge-amd64"' }],
      },
    ]);
    const text = renderReviewText(reviewOf(gitlabChanges(sides(CELL_1, renamed))));
    expect(text).toContain(
      "    shard xlarge-amd64 is shard large-amd64 renamed (renamed_from): its resources move to the new name and keep their cloud names, none is replaced; " +
        'onboard keeps its runner and token and renames the runner in place (marker shard=large-amd64 → shard=xlarge-amd64, description "Cell 1 shared runners, large amd64" → "cell-1-xlarge-amd64")\n',
    );
    expect(text).not.toContain("new runner");
    expect(text).not.toContain("stays registered");
  });

  it("fails when the rename has no renamed_from: a new runner is created and the old one left registered", () => {
    const renamed = CELL_1.replace("name: large-amd64", "name: xlarge-amd64");
    expect(gitlabChanges(sides(CELL_1, renamed))[0].shards.map((shard) => shard.kind)).toEqual(["create", "left-registered"]);
  });

  it("finds nothing to say for a change GitLab does not see", () => {
    expect(gitlabChanges(sides(CELL_1, CELL_1.replace("team: runner-platform", "team: platform")))).toEqual([]);
  });

  it("lists every shard of a new cell as a runner to create", () => {
    const [change] = gitlabChanges(sides("", CELL_1));
    expect(change.shards.map((shard) => [shard.shard, shard.kind])).toEqual([
      ["small-amd64", "create"],
      ["large-amd64", "create"],
    ]);
  });
});

const changedCells: ChangedCellsResult = {
  base: "main",
  baseSha: "0123456789abcdef0123456789abcdef01234567",
  head: "working tree",
  cells: [{ cell: "cell-1", file: FILE, reasons: [`${FILE} changed`] }],
  removed: [],
  sharedFiles: [],
  ignoredFiles: [],
};

/** A review whose stacks do not change (the same stack both sides) with the given GitLab changes. */
function reviewOf(gitlab: ReviewReport["gitlab"]): ReviewReport {
  const stacks = new Map([["cell-1", { resource: { google_storage_bucket: { cache: { name: "c" } } } }]]);
  return { base: { ref: "main", sha: changedCells.baseSha }, head: { ref: "working tree" }, changedCells, changedOnly: false, diff: diffStacks(stacks, stacks), gitlab };
}

describe("a review whose only change is in GitLab", () => {
  const after = CELL_1.replace(LARGE_TAGS, "    tags: [saas-linux-large-amd64, gpu]\n    run_untagged: false\n");
  const report = reviewOf(gitlabChanges(sides(CELL_1, after)));

  it("counts the cell as changed, never under no changes", () => {
    const text = renderReviewText(report);
    expect(text).toContain("summary: 1 cell changed, 0 added, 0 removed, 0 unchanged\n");
    expect(text).toContain(
      "cell-1: runners change in GitLab, no infrastructure change\n  in GitLab, when onboard runs after the merge:\n    shard large-amd64: tag_list [saas-linux-large-amd64, runner-fleet:cell-1] → [saas-linux-large-amd64, gpu, runner-fleet:cell-1]\n",
    );
    expect(text).not.toContain("no changes:");
  });

  it("gives the merge request note the same section", () => {
    const markdown = renderReviewMarkdown(report);
    expect(markdown).toContain("**1 cell changed, 0 added, 0 removed, 0 unchanged**");
    expect(markdown).toContain("#### `cell-1` — runners change in GitLab, no infrastructure change\n\n**In GitLab**, when onboard runs after the merge:\n\n- shard large-amd64: tag_list");
  });
});
