/**
 * The review of the merge request that adds an imported model says what onboard does with the old
 * fleet's runners: adopted, not created (import --adopt), or new runners beside them. Read from the
 * header import writes, only for models the change adds.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importedModelText } from "../../app/import/model-text";
import type { ChangedCellsResult } from "../../lib/review/changed-cells";
import { importedModelNotes, importNote } from "../../lib/review/imported-models";
import { renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import { diffStacks } from "../../lib/review/stack-diff";
import { MODELS_DIR } from "../support/models";

const model = { cell: { id: "cell-7" }, gitlab: { url: "https://gitlab.example.com" } };
const text = (adoption: string[]) => importedModelText({ model, files: ["config.toml"], notes: ["a note"], unmapped: [], adoption, now: new Date("2026-11-25T00:00:00Z") });

describe("importNote", () => {
  it("says the runners are adopted, not created, naming each adoption import --adopt made", () => {
    const note = importNote(text(['shard small adopts runner #12 ("old small"): its token is in the secret store', "shard big adopts runner #40: its token is in the secret store"]));
    expect(note).toBe(
      "imported from existing runner managers (runner-fleet import): its runners are adopted, not created (shard small adopts runner #12; shard big adopts runner #40); onboard keeps their tokens and IDs and brings their settings in line",
    );
  });

  it("says new runners are created when import adopted none", () => {
    expect(importNote(text([]))).toMatch(/^imported from existing runner managers \(runner-fleet import\) without adopting runners: onboard creates new runners/);
  });

  it("says nothing of a model import did not write", () => {
    expect(importNote(readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8"))).toBeUndefined();
  });
});

describe("importedModelNotes", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "review-imported-"));
    execFileSync("git", ["init", "-q", root]);
    mkdirSync(join(root, "models"));
    writeFileSync(join(root, "models", "cell-7.yaml"), text(["shard small adopts runner #12: its token is in the secret store"]));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const changed = (reason: string): ChangedCellsResult => ({
    base: "main",
    baseSha: "0".repeat(40),
    head: "working tree",
    cells: [{ cell: "cell-7", file: "models/cell-7.yaml", reasons: [reason] }],
    removed: [],
    sharedFiles: [],
    ignoredFiles: [],
  });

  it("notes a model the change adds, and is silent once it exists at the base", async () => {
    expect(await importedModelNotes(changed("models/cell-7.yaml added"), { cwd: root })).toEqual([{ cell: "cell-7", note: expect.stringContaining("adopted, not created (shard small adopts runner #12)") }]);
    expect(await importedModelNotes(changed("models/cell-7.yaml changed"), { cwd: root })).toEqual([]);
  });

  it("shows the note under the cell in the text and markdown reviews", () => {
    const report: ReviewReport = {
      base: { ref: "main", sha: "0".repeat(40) },
      head: { ref: "working tree" },
      changedCells: changed("models/cell-7.yaml added"),
      changedOnly: false,
      diff: diffStacks(new Map(), new Map([["cell-7", { resource: { null_resource: { x: {} } } }]])),
      importNotes: [{ cell: "cell-7", note: "imported from existing runner managers (runner-fleet import): its runners are adopted, not created (shard small adopts runner #12)" }],
    };
    expect(renderReviewText(report)).toContain("\n  imported from existing runner managers (runner-fleet import): its runners are adopted, not created (shard small adopts runner #12)\n");
    expect(renderReviewMarkdown(report)).toContain("> :information_source: This model was imported from existing runner managers (runner-fleet import): its runners are adopted, not created (shard small adopts runner #12).");
  });
});
