import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChangedCellsResult } from "../../lib/review/changed-cells";
import { REVIEW_MARKER, renderReviewJson, renderReviewMarkdown, renderReviewText, type ReviewReport } from "../../lib/review/render-review";
import type { StackJson } from "../../lib/review/entry-change";
import { diffStacks } from "../../lib/review/stack-diff";

const FIXTURES = join(__dirname, "..", "fixtures", "stack-diff");
const load = (name: string) =>
  new Map(Object.entries(JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as Record<string, StackJson>));

const changedCells: ChangedCellsResult = {
  base: "main",
  baseSha: "0123456789abcdef0123456789abcdef01234567",
  head: "working tree",
  cells: [{ cell: "cell-a", file: "models/cell-a.yaml", reasons: ["models/cell-a.yaml changed"] }],
  removed: [{ cell: "cell-c", file: "models/cell-c.yaml", reason: "models/cell-c.yaml deleted" }],
  sharedFiles: [],
  ignoredFiles: [],
};

function report(before = load("before.json"), after = load("after.json")): ReviewReport {
  return {
    base: { ref: "main", sha: changedCells.baseSha },
    head: { ref: "working tree" },
    changedCells,
    changedOnly: false,
    diff: diffStacks(before, after),
  };
}

describe("renderReviewMarkdown", () => {
  const markdown = renderReviewMarkdown(report());

  it("starts with the marker the note is found by, then a summary line", () => {
    const lines = markdown.split("\n");
    expect(lines[0]).toBe(REVIEW_MARKER);
    expect(markdown).toContain("**1 cell changed, 1 added, 1 removed (not destroyed), 1 unchanged**");
  });

  it("has a section per changed cell with a table of resources and changed attributes", () => {
    expect(markdown).toContain("#### `cell-a` — changed (resources +1 ~1 -1, 1 data source, 3 other changes)");
    expect(markdown).toContain("Planned because models/cell-a.yaml changed.");
    expect(markdown).toContain("| | Resource | Changed attributes |");
    const managerRow = markdown.split("\n").find((line) => line.startsWith("| ~ | `manager/Resource` <sub>google_compute_instance_template</sub> |"))!;
    expect(managerRow.split("<br>")).toEqual([
      '| ~ | `manager/Resource` <sub>google_compute_instance_template</sub> | `description: (removed) "runner managers"`',
      '`labels.team: (added) "ci"`',
      '`machine_type: "e2-small" -> "e2-medium"`',
      expect.stringMatching(/^`metadata\.startup-script: sha256:[0-9a-f]{12} \(56 chars\) -> sha256:[0-9a-f]{12} \(56 chars\)` \|$/),
    ]);
    expect(markdown).toContain("| - | `old-cache/Resource` <sub>google_storage_bucket</sub> |  |");
    // Resources read as construct paths below the cell, never as logical ids with hash suffixes.
    expect(markdown).not.toContain("`google_compute_instance_template.manager`");
  });

  it("lists unchanged cells briefly and a deleted model's cell once, as not destroyed, with how to destroy it", () => {
    expect(markdown).toContain("No changes: `cell-b`.");
    expect(markdown).toContain(
      "- `cell-c`: model deleted (models/cell-c.yaml); **not planned for destroy**: its 1 resource keeps running, runner managers included (they go on taking jobs), until someone runs",
    );
    // One statement: no section counting its resources as deleted, no warning that managers are removed.
    expect(markdown).not.toMatch(/cell-c.*removed \(resources/);
    expect(markdown.split("\n").filter((line) => line.includes("cell-c"))).toHaveLength(1);
    // Read in models repositories too, where the toolkit is the package's bin.
    expect(markdown).toContain("`npx --no-install runner-fleet provision --model cell-c --destroy` (`./bin/provision` in the toolkit's own repository)");
  });

  it("folds long tables into <details>", () => {
    const many: StackJson = { resource: { google_storage_bucket: {} as Record<string, unknown> } };
    for (let index = 0; index < 20; index += 1) (many.resource as any).google_storage_bucket[`b${index}`] = { name: `b${index}` };

    const folded = renderReviewMarkdown(report(new Map([["cell-a", {}]]), new Map([["cell-a", many]])));

    expect(folded).toContain("<details><summary>8 more</summary>");
    expect(folded.match(/^\| \+ \|/gm)).toHaveLength(20);
  });

  it("never shows a token, even when one slipped into the stack", () => {
    const token = `glrt-t3_${randomBytes(16).toString("hex")}`;
    const after = load("after.json");
    (after.get("cell-a")!.resource as any).google_compute_instance_template.manager.labels.token = token;

    const outputs = [renderReviewMarkdown(report(load("before.json"), after)), renderReviewText(report(load("before.json"), after)), renderReviewJson(report(load("before.json"), after))];

    for (const output of outputs) expect(output).not.toContain(token);
  });
});

describe("renderReviewText", () => {
  it("lists each changed entry with its attributes", () => {
    const text = renderReviewText(report());

    expect(text).toContain("summary: 1 cell changed, 1 added, 1 removed (not destroyed), 1 unchanged");
    expect(text).toContain("cell-a: changed (resources +1 ~1 -1, 1 data source, 3 other changes)");
    expect(text).toContain("  ~ manager/Resource (google_compute_instance_template)\n      description: (removed)");
    expect(text).toContain("  data sources (read, not counted as resources):\n  + data.google_project.current");
    expect(text).toContain("  ~ provider.google\n      region: \"europe-west4\" -> \"europe-west1\"");
    expect(text).toContain("cell-c: model deleted (models/cell-c.yaml); NOT planned for destroy: its 1 resource keeps running, runner managers included (they go on taking jobs), until someone runs");
    expect(text).not.toContain("cell-c: removed");
    expect(text).toContain("no changes: cell-b");
  });
});

describe("renderReviewJson", () => {
  it("is the report itself", () => {
    const value = report();
    expect(JSON.parse(renderReviewJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });
});

describe("model warnings in the review", () => {
  const socket = 'models/cell-a.yaml:30:11: warning: shards[0].docker.volumes[1]: expected no Docker socket mounted into jobs (security: a job then controls the worker\'s Docker daemon), received "/var/run/docker.sock:/var/run/docker.sock"';
  const nat = 'models/cell-a.yaml:12:3: warning: network.nat: expected "per-zone" for production, received true';
  const withWarnings: ReviewReport = { ...report(), modelWarnings: [{ cell: "cell-a", warnings: [socket, nat] }] };

  it("marks the settings that weaken isolation as security-relevant, and the others as plain warnings", () => {
    const markdown = renderReviewMarkdown(withWarnings);
    expect(markdown).toContain(`> :lock: **Security-relevant model warning**: ${socket}`);
    expect(markdown).toContain(`> :warning: Model warning: ${nat}`);
    const text = renderReviewText(withWarnings);
    expect(text).toContain(`security-relevant model warning: ${socket}`);
    expect(text).toContain(`  model warning: ${nat}`);
  });
});
