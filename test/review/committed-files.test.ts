/**
 * A review reads the files of the commits it compares through lib/review/committed-files.ts: what git
 * show would print, each file once, and the reads it knows ahead in one `git cat-file --batch`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runChangedCells } from "../../app/commands/review";
import { changedCells } from "../../lib/review/changed-cells";
import { catFileBatch, CommittedFiles } from "../../lib/review/committed-files";
import { costChanges } from "../../lib/review/cost-change";
import { importedModelNotes } from "../../lib/review/imported-models";
import { modelWarnings } from "../../lib/review/model-warnings";
import { queueChanges } from "../../lib/review/queue-change";
import { reviewedFiles } from "../../lib/review/reviewed-files";
import { formatTraceCsv } from "../../lib/simulate/read-trace";
import { syntheticTraceFor } from "../../lib/simulate/model-synthetic-week";
import { exampleModel, MODELS_DIR } from "../support/models";
import { createTempRepo, type TempRepo } from "./review-temp-repo";

const CELL_1 = readFileSync(join(MODELS_DIR, "cell-1.yaml"), "utf8");
/** The example cell-1 as `cell`, labelled for `team` (a change no shard's simulation sees: nothing is simulated). */
const cellModel = (cell: string, team: string) => CELL_1.replace(/cell-1/g, cell).replace("team: runner-platform", `team: ${team}`);

/** A CommittedFiles whose git processes are counted. */
function countedFiles(cwd: string): { files: CommittedFiles; batches: string[][] } {
  const batches: string[][] = [];
  const files = new CommittedFiles(cwd, (dir, names) => {
    batches.push([...names]);
    return catFileBatch(dir, names);
  });
  return { files, batches };
}

let repo: TempRepo;
afterEach(() => repo?.cleanup());

test("reads what git show prints, and tells a missing file and a directory from an empty one", async () => {
  const awkward = "deadbeef blob 12\nü, a line that looks like a header\n";
  repo = createTempRepo({ "models/a b.yaml": awkward, "models/empty.yaml": "", "models/traces/x.csv": "t,1\n" });
  const head = repo.git("rev-parse", "HEAD").trim();
  const { files, batches } = countedFiles(join(repo.dir, "models"));

  await files.prefetch([
    [head, "models/a b.yaml"],
    [head, "models/empty.yaml"],
    [head, "models/traces"],
    [head, "models/none.yaml"],
    ["0000000000000000000000000000000000000000", "models/a b.yaml"],
    [head, "models/a\nb.yaml"],
  ]);

  expect(await files.read(head, "models/a b.yaml")).toBe(repo.git("show", `${head}:models/a b.yaml`));
  expect(await files.read(head, "models/a b.yaml")).toBe(awkward);
  expect(await files.read(head, "models/empty.yaml")).toBe("");
  expect(await files.exists(head, "models/empty.yaml")).toBe(true);
  expect(await files.read(head, "models/traces")).toBeUndefined();
  expect(await files.exists(head, "models/none.yaml")).toBe(false);
  expect(await files.read("0000000000000000000000000000000000000000", "models/a b.yaml")).toBeUndefined();
  expect(await files.read(head, "models/a\nb.yaml")).toBeUndefined();
  // One process for all of them (the path with a line break is not asked), and none for the reads after.
  expect(batches).toHaveLength(1);
  expect(batches[0]).toHaveLength(5);

  expect(await files.read(head, "models/traces/x.csv")).toBe("t,1\n");
  expect(batches).toHaveLength(2);
});

test("a review of a change to several cells reads their models and traces with two git processes, whatever their number", async () => {
  const cells = ["cell-1", "cell-2", "cell-3", "cell-4"];
  // A few jobs of a week: the trace changes, and a reader simulates both sides of it in no time.
  const trace = (seed: number) => formatTraceCsv(syntheticTraceFor(exampleModel("cell-1"), { seed, jobs: 40 }));
  repo = createTempRepo({ ...Object.fromEntries(cells.map((cell) => [`models/${cell}.yaml`, cellModel(cell, "runner-platform")])), "models/traces/cell-2.csv": trace(1) });
  const base = repo.git("rev-parse", "HEAD").trim();
  for (const cell of cells) repo.write(`models/${cell}.yaml`, cellModel(cell, "ci-platform"));
  repo.write("models/traces/cell-2.csv", trace(2));
  repo.commit("the runner platform team is now ci-platform");
  // The head by name, as a pipeline names it: what changedCells resolves to a commit, the readers read by the name.
  repo.git("branch", "feature");
  const head = "feature";
  const { files, batches } = countedFiles(repo.dir);

  const changed = await changedCells({ base, head, cwd: repo.dir }, files);
  await files.prefetch(reviewedFiles(changed, head));
  const options = { cwd: repo.dir, head, files };
  const read = { costs: await costChanges(changed, options), warnings: await modelWarnings(changed, options), notes: await importedModelNotes(changed, options), queues: await queueChanges(changed, options) };

  expect(changed.cells.map((cell) => cell.cell)).toEqual(cells);
  // Whether each changed file is there at either side, then every file the readers read.
  expect(batches).toHaveLength(2);
  // The same as each reader reading on its own.
  const alone = { cwd: repo.dir, head };
  const changedAlone = await runChangedCells({ base, head, cwd: repo.dir });
  expect(changedAlone).toEqual(changed);
  expect(read).toEqual({
    costs: await costChanges(changedAlone, alone),
    warnings: await modelWarnings(changedAlone, alone),
    notes: await importedModelNotes(changedAlone, alone),
    queues: await queueChanges(changedAlone, alone),
  });
  expect(read.costs.every((cost) => cost.before !== null && cost.after !== null)).toBe(true);
  expect(read.queues.map((queue) => queue.load)).toEqual([expect.stringMatching(/^models\/traces\/cell-2\.csv, which this change edits: the head's model on the base's trace \(\d+ jobs\)/)]);
}, 60_000);
