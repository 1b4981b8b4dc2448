/**
 * The same change in many cells is one entry with the list of cells: a runner bump across a fleet reads
 * once. A cell whose change differs in anything but its own name keeps an entry of its own.
 */
import type { ChangedCellsResult } from "../../lib/review/changed-cells";
import type { StackJson } from "../../lib/review/entry-change";
import { renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import { sameChanges } from "../../lib/review/same-changes";
import { diffStacks } from "../../lib/review/stack-diff";

/** A cell's stack: a launch template whose user data names the cell (so its hash differs per cell) at a runner version. */
function stack(cell: string, version: string, machine = "t3.medium"): StackJson {
  const userData = Buffer.from(`#!/bin/bash\nGITLAB_URL='https://${cell}.gitlab.example.com'\nRUNNER_VERSION='${version}'\n${"# padding\n".repeat(10)}`).toString("base64");
  return { resource: { aws_launch_template: { manager: { instance_type: machine, user_data: userData, "//": { metadata: { path: `${cell}/fleet/manager` } } } } } };
}

function report(cells: string[], changed: (cell: string) => StackJson): ReviewReport {
  const before = new Map(cells.map((cell) => [cell, stack(cell, "19.5.0")]));
  const after = new Map(cells.map((cell) => [cell, changed(cell)]));
  const changedCells: ChangedCellsResult = {
    base: "main",
    baseSha: "0123456789abcdef0123456789abcdef01234567",
    head: "working tree",
    cells: cells.map((cell) => ({ cell, file: `models/${cell}.yaml`, reasons: [`models/${cell}.yaml changed`] })),
    removed: [],
    sharedFiles: [],
    ignoredFiles: [],
  };
  return { base: { ref: "main", sha: changedCells.baseSha }, head: { ref: "working tree" }, changedCells, changedOnly: false, diff: diffStacks(before, after) };
}

const CELLS = Array.from({ length: 100 }, (_, index) => `cell-${String(index + 1).padStart(3, "0")}`);

describe("a runner bump in 100 cells", () => {
  const bump = report(CELLS, (cell) => stack(cell, "19.6.0"));

  it("is one entry that lists the 100 cells, <cell> standing for each name", () => {
    const text = renderReviewText(bump);
    expect(text).toContain(`\n100 cells, the same change (<cell> is each one's name): ${CELLS.join(", ")}: changed (resources +0 ~1 -0)\n  because models/<cell>.yaml changed\n`);
    expect(text).toContain("  ~ fleet/manager (aws_launch_template)\n      user_data: sha256:<per cell> -> sha256:<per cell>\n");
    expect(text.split("\n").length).toBeLessThan(15);
  });

  it("is one section of the note, with the cells folded", () => {
    const markdown = renderReviewMarkdown(bump);
    expect(markdown.match(/^#### /gm)).toHaveLength(1);
    expect(markdown).toContain("#### 100 cells, the same change — changed (resources +0 ~1 -0)");
    expect(markdown).toContain("<details><summary>The 100 cells</summary>");
  });
});

describe("cells whose change differs", () => {
  it("keep entries of their own beside the group of the ones alike", () => {
    const cells = ["cell-a", "cell-b", "cell-c"];
    const text = renderReviewText(report(cells, (cell) => stack(cell, "19.6.0", cell === "cell-c" ? "t3.large" : "t3.medium")));
    expect(text).toContain("\n2 cells, the same change (<cell> is each one's name): cell-a, cell-b: changed (resources +0 ~1 -0)\n");
    expect(text).toContain('\ncell-c: changed (resources +0 ~1 -0)\n  because models/cell-c.yaml changed\n  ~ fleet/manager (aws_launch_template)\n      instance_type: "t3.medium" -> "t3.large"\n');
  });
});

describe("sameChanges", () => {
  it("does not take a longer name that starts with the cell's for the cell's own (cell-1 in cell-10)", () => {
    const groups = sameChanges([{ cell: "cell-1" }, { cell: "cell-2" }], (entry) => ({ heading: "changed", body: [`peer ${entry.cell === "cell-1" ? "cell-10" : "cell-20"}`] }));
    expect(groups.map((group) => group.cells)).toEqual([["cell-1"], ["cell-2"]]);
    expect(groups[0].section.body).toEqual(["peer cell-10"]);
  });
});
