/**
 * The review of a shard renamed with renamed_from, on the stacks the synth really makes: a rename, not a
 * replacement. Every resource of the shard is one "move" (the moved blocks the stack carries), none is
 * created, deleted or changed, no manager is replaced, and GitLab's side is the same runner renamed; in
 * text, markdown and JSON. The same rename without renamed_from reads as what it is: a replacement.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Testing } from "cdktf";
import { invokeAspects } from "cdktf/lib/synthesize/synthesizer";
import { parse, stringify } from "yaml";
import { parseModel } from "../../lib/model/load";
import type { ChangedCellsResult } from "../../lib/review/changed-cells";
import type { StackJson } from "../../lib/review/entry-change";
import { gitlabChanges } from "../../lib/review/gitlab-changes";
import { sideOf } from "../../lib/review/model-sides";
import { renderReviewJson, renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import { countActions, diffStacks } from "../../lib/review/stack-diff";
import { CellStack } from "../../stacks/cell-stack";
import { MODELS_DIR } from "../support/models";

const FILE = "models/cell-2.yaml";
const BEFORE = readFileSync(join(MODELS_DIR, "cell-2.yaml"), "utf8");
const OLD = "spot-amd64";

/** cell-2 with its first shard renamed to `name`, with renamed_from or without. */
function renamedText(name: string, withRenamedFrom: boolean): string {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const data: any = parse(BEFORE);
  expect(data.shards[0].name).toBe(OLD);
  data.shards[0].name = name;
  if (withRenamedFrom) data.shards[0].renamed_from = OLD;
  return stringify(data);
}

/** The stack as the synth writes it: with the construct paths of cdktf's metadata, which Testing.synth drops. */
function stackOf(text: string): StackJson {
  const stack = new CellStack(Testing.app(), { model: parseModel(text, FILE).model, workDir: "/srv/fleet" });
  invokeAspects(stack);
  return JSON.parse(JSON.stringify(stack.toTerraform())) as StackJson;
}

const changedCells: ChangedCellsResult = {
  base: "main",
  baseSha: "0123456789abcdef0123456789abcdef01234567",
  head: "working tree",
  cells: [{ cell: "cell-2", file: FILE, reasons: [`${FILE} changed`] }],
  removed: [],
  sharedFiles: [],
  ignoredFiles: [],
};

function reviewOf(after: string): ReviewReport {
  const sides = [{ cell: changedCells.cells[0], base: sideOf(BEFORE, FILE), head: sideOf(after, FILE) }];
  return {
    base: { ref: "main", sha: changedCells.baseSha },
    head: { ref: "working tree" },
    changedCells,
    changedOnly: false,
    diff: diffStacks(new Map([["cell-2", stackOf(BEFORE)]]), new Map([["cell-2", stackOf(after)]])),
    gitlab: gitlabChanges(sides),
  };
}

describe("the review of a shard renamed with renamed_from", () => {
  const report = reviewOf(renamedText("spot", true));
  const [cell] = report.diff.cells;

  it("moves every resource of the shard and creates, deletes and changes none; no manager is replaced", () => {
    const counts = countActions(cell.resources);
    expect({ create: counts.create, update: counts.update, delete: counts.delete }).toEqual({ create: 0, update: 0, delete: 0 });
    expect(counts.move).toBeGreaterThan(10);
    for (const change of cell.resources) {
      expect(change.movedFrom?.constructPath).toContain(`/shard-${OLD}/`);
      expect(change.constructPath).toContain("/shard-spot/");
      expect(change.attributes).toEqual([]);
    }
    expect(cell.managers).toEqual([]);
    expect(cell.renderedFiles.every((file) => file.status !== "changed")).toBe(true);
  });

  it("reads as a rename in text: one line for the moved resources, the runner renamed in place", () => {
    const text = renderReviewText(report);
    const moved = countActions(cell.resources).move;
    expect(text).toContain(`cell-2: changed (resources +0 ~0 -0, ${moved} moved`);
    expect(text).toContain(`  > ${moved} resources moved from fleet/shard-${OLD}/ to fleet/shard-spot/, unchanged\n`);
    expect(text).toContain(`shard spot is shard ${OLD} renamed (renamed_from)`);
    expect(text).not.toMatch(/^\s+[-+] .*shard-/m);
    expect(text).not.toContain("WARNING");
  });

  it("reads as a rename in the merge request note and in JSON", () => {
    const markdown = renderReviewMarkdown(report);
    expect(markdown).toContain(`- Moved (Terraform moved blocks, nothing destroyed): ${countActions(cell.resources).move} resources moved from fleet/shard-${OLD}/ to fleet/shard-spot/, unchanged`);
    expect(markdown).toContain(`shard spot is shard ${OLD} renamed (renamed_from)`);
    const json = JSON.parse(renderReviewJson(report)) as ReviewReport;
    expect(json.diff.cells[0].resources.every((change) => change.action === "move")).toBe(true);
    expect(json.gitlab?.[0].shards[0]).toMatchObject({ shard: "spot", kind: "rename", from: OLD });
  });
});

describe("fails when", () => {
  it("the shard is renamed without renamed_from: every resource is deleted and created again, and a new runner registered", () => {
    const report = reviewOf(renamedText("spot", false));
    const counts = countActions(report.diff.cells[0].resources);
    expect(counts.move).toBe(0);
    expect(counts.delete).toBeGreaterThan(10);
    expect(counts.create).toBe(counts.delete);
    expect(report.gitlab?.[0].shards.map((shard) => shard.kind)).toEqual(["create", "left-registered"]);
  });
});
