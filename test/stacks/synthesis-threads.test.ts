/**
 * Many cells are synthesized on several threads (stacks/synthesis-threads.ts). The workers run from
 * dist/bundle/synthesis.js (`npm test` builds first), so the runs that use threads are compiled
 * synthesis in a child node, as the commands and the bench run it.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeGeneratedFleet } from "../../bench/generated-fleet";
import { PROJECT_ROOT } from "../../lib/files/project-root";
import { SYNTH_THREADS_ENV, splitInOrder, synthThreadCount } from "../../stacks/synthesis-threads";

const DIST = join(PROJECT_ROOT, "dist");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Runs node with `argv` (`-e <code>`, then its arguments); its stdout. Without TurboFan, as the commands
 * and the cdktf app run synthesis (bin/load-command.js): the threads then use the synthesis bundle's code
 * cache, which is made under those flags.
 */
function runNode(argv: string[]): string {
  const run = spawnSync(process.execPath, ["--no-turbofan", ...argv], { encoding: "utf8", cwd: PROJECT_ROOT });
  if (run.status !== 0) throw new Error(`child node failed (${run.status}):\n${run.stderr}`);
  return run.stdout;
}

/**
 * In one child node, for 1 thread and then 2 (RUNNER_FLEET_SYNTH_THREADS, read at each synthesis): the
 * fleet synthesized into `<work>/out-<threads>`, then again into `<work>/refused-<threads>` with one of its
 * cells (cell-100, a Google cell: the worker's share, the threads taking the cells grouped by cloud) given
 * two shards of one name, which the model loader would refuse but a construct also does, and into
 * `<work>/uncheckable-<threads>` with no bash on the PATH to check the rendered scripts with.
 */
const SYNTHESIZE_EACH_WAY = `
  const { loadModelFile } = require(${JSON.stringify(join(DIST, "lib", "model", "load.js"))});
  const { listModelFiles } = require(${JSON.stringify(join(DIST, "lib", "model", "model-files.js"))});
  const { synthesizeCells } = require(${JSON.stringify(join(DIST, "stacks", "synthesize.js"))});
  const { synthesizeModelFiles } = require(${JSON.stringify(join(DIST, "stacks", "synthesize.js"))});
  const { synthThreadCount, threadScript } = require(${JSON.stringify(join(DIST, "stacks", "synthesis-threads.js"))});
  const load = require(${JSON.stringify(join(DIST, "lib", "model", "load.js"))});
  const [modelsDir, work] = process.argv.slice(1);
  const errorOf = (synthesize) => {
    try {
      synthesize();
    } catch (thrown) {
      return { name: thrown.constructor.name, message: thrown.message };
    }
  };
  // The model files this thread loads (the workers' are counted in theirs).
  const loadedHere = [];
  const loadOnThisThread = load.loadModelFile;
  load.loadModelFile = (file, options) => (loadedHere.push(file.slice(file.lastIndexOf("/") + 1)), loadOnThisThread(file, options));
  const reports = [1, 2].map((threads) => {
    process.env.RUNNER_FLEET_SYNTH_THREADS = String(threads);
    const models = listModelFiles(modelsDir).map((file) => loadModelFile(file));
    const cells = synthesizeCells(models, { outdir: work + "/out-" + threads });
    loadedHere.length = 0;
    const fromFiles = synthesizeModelFiles(listModelFiles(modelsDir), { outdir: work + "/files-" + threads });
    const filesLoadedHere = [...loadedHere];
    // A model file that does not load, in each thread's share (cell-100, a Google cell: the worker's).
    const invalid = Object.fromEntries(["cell-100", "cell-101"].map((cell) => [cell, errorOf(() => synthesizeModelFiles(listModelFiles(work + "/invalid-" + cell), { outdir: work + "/invalid-" + cell + "-" + threads }))]));
    const refused = models.find((loaded) => loaded.model.cell.id === "cell-100");
    refused.model.shards.push(structuredClone(refused.model.shards[0]));
    const error = errorOf(() => synthesizeCells(models, { outdir: work + "/refused-" + threads }));
    refused.model.shards.pop();
    // No bash on PATH: every thread fails to check its share's scripts with bash -n.
    const path = process.env.PATH;
    process.env.PATH = work + "/no-bash-here";
    const uncheckable = errorOf(() => synthesizeCells(models, { outdir: work + "/uncheckable-" + threads }));
    process.env.PATH = path;
    return { threads: synthThreadCount(models.length), cells, fromFiles, filesLoadedHere, invalid, error, uncheckable };
  });
  // How many threads other counts of cells get, in the compiled module (where the worker script is).
  const counts = {
    cores: require("node:os").availableParallelism(),
    few: synthThreadCount(15, {}),
    many: synthThreadCount(100, {}),
    asked: synthThreadCount(100, { RUNNER_FLEET_SYNTH_THREADS: "3" }),
    askedMoreThanCells: synthThreadCount(2, { RUNNER_FLEET_SYNTH_THREADS: "3" }),
    serial: synthThreadCount(100, { RUNNER_FLEET_SYNTH_THREADS: "1" }),
  };
  console.log(JSON.stringify({ reports, counts, script: threadScript() }));
`;

interface Report {
  threads: number;
  cells: { cell: string; stackDir: string; stackJsonFile: string }[];
  fromFiles: { cell: string; stackDir: string; stackJsonFile: string }[];
  filesLoadedHere: string[];
  invalid: Record<"cell-100" | "cell-101", { name: string; message: string }>;
  error?: { name: string; message: string };
  uncheckable?: { name: string; message: string };
}

describe("synthesis on several threads", () => {
  let work: string;
  let runs: { out: string; refusedOut: string; uncheckableOut: string; report: Report }[];
  let counts: Record<string, number>;
  let script: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "synth-threads-"));
    writeGeneratedFleet(join(work, "models"), 2);
    // The same fleet with one model that does not load: a value out of its range, with its line and column to report.
    for (const cell of ["cell-100", "cell-101"]) {
      cpSync(join(work, "models"), join(work, `invalid-${cell}`), { recursive: true });
      const file = join(work, `invalid-${cell}`, `${cell}.yaml`);
      writeFileSync(file, readFileSync(file, "utf8").replace(/max_instances: \d+/, "max_instances: -3"));
    }
    // GIVEN a cell of each cloud, synthesized on one thread and on two
    const child = JSON.parse(runNode(["-e", SYNTHESIZE_EACH_WAY, join(work, "models"), work]).trim()) as { reports: Report[]; counts: Record<string, number>; script: string };
    runs = child.reports.map((report, index) => ({
      out: join(work, `out-${index + 1}`),
      refusedOut: join(work, `refused-${index + 1}`),
      uncheckableOut: join(work, `uncheckable-${index + 1}`),
      report,
    }));
    counts = child.counts;
    script = child.script;
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("writes byte for byte what one thread writes, manifest.json included, and returns the cells in model order", () => {
    expect(runs.map(({ report }) => report.threads)).toEqual([1, 2]);
    // The worker ran from the synthesis bundle (the build made it), as the commands' workers do.
    expect(script).toBe(join(PROJECT_ROOT, "bin", "synthesis-thread.js"));
    // The cells come back in model order, though the threads took them grouped by cloud.
    expect(runs[1].report.cells.map((cell) => cell.cell)).toEqual(["cell-100", "cell-101"]);
    const inOut2 = (path: string) => path.replace(runs[0].out, runs[1].out);
    expect(runs[1].report.cells).toEqual(runs[0].report.cells.map((cell) => ({ ...cell, stackDir: inOut2(cell.stackDir), stackJsonFile: inOut2(cell.stackJsonFile) })));
    // THEN every file is the same
    const relative = (root: string) => filesUnder(root).map((path) => path.slice(root.length + 1)).sort();
    const files = relative(runs[0].out);
    expect(relative(runs[1].out)).toEqual(files);
    expect(files.filter((file) => file.endsWith("cdk.tf.json"))).toHaveLength(2);
    for (const file of files) expect([file, readFileSync(join(runs[1].out, file), "utf8")]).toEqual([file, readFileSync(join(runs[0].out, file), "utf8")]);
    expect(Object.keys(JSON.parse(readFileSync(join(runs[1].out, "manifest.json"), "utf8")).stacks)).toEqual(["cell-100", "cell-101"]);
  });

  it("synthesizes model files as their loaded models synthesize, each thread loading its own share", () => {
    for (const { out, report } of runs) {
      const inFiles = (path: string) => path.replace(out, join(work, `files-${report.threads}`));
      expect(report.fromFiles).toEqual(report.cells.map((cell) => ({ ...cell, stackDir: inFiles(cell.stackDir), stackJsonFile: inFiles(cell.stackJsonFile) })));
      const files = filesUnder(out).map((path) => path.slice(out.length + 1)).sort();
      for (const file of files) expect([file, readFileSync(join(work, `files-${report.threads}`, file), "utf8")]).toEqual([file, readFileSync(join(out, file), "utf8")]);
    }
    // On one thread this thread loads every model; on two, only its share (the AWS cell): the worker loads the other.
    expect(runs.map(({ report }) => report.filesLoadedHere)).toEqual([["cell-100.yaml", "cell-101.yaml"], ["cell-101.yaml"]]);
  });

  it("reports an invalid model file as one thread does, with its file, path and line:col, and writes nothing, whichever thread loads it", () => {
    for (const cell of ["cell-100", "cell-101"] as const) {
      const [one, two] = runs.map(({ report }) => report.invalid[cell]);
      expect(one).toEqual({ name: "ModelValidationError", message: expect.stringMatching(new RegExp(`invalid-${cell}/${cell}\\.yaml is not a valid runner model[^]*\\n  \\S*/${cell}\\.yaml:\\d+:\\d+: shards\\[0\\]\\.workers\\.max_instances: expected a number >= 1, received -3$`)) });
      expect(two).toEqual(one);
      for (const threads of [1, 2]) expect(existsSync(join(work, `invalid-${cell}-${threads}`))).toBe(false);
    }
  });

  it("throws the error one thread throws, of its class, and writes no stack, when a worker's cell is refused by a construct", () => {
    expect(runs[0].report.error).toEqual({ name: "UserInputError", message: expect.stringContaining("appears more than once") });
    expect(runs[1].report.error).toEqual(runs[0].report.error);
    for (const { refusedOut } of runs) expect(filesUnder(refusedOut).filter((file) => file.endsWith("cdk.tf.json"))).toEqual([]);
  });

  it("throws the error one thread throws, of its class, and writes no stack, when the threads cannot check their cells' scripts", () => {
    // Each thread renders and checks its own share; the error is the serial synthesis's, for the first cell.
    expect(runs[0].report.uncheckable).toEqual({ name: "OperationalError", message: expect.stringContaining("cannot check rendered/") });
    expect(runs[1].report.uncheckable).toEqual(runs[0].report.uncheckable);
    for (const { uncheckableOut } of runs) expect(filesUnder(uncheckableOut).filter((file) => file.endsWith("cdk.tf.json"))).toEqual([]);
  });

  it("counts threads by cores and cells (at least 8 a thread), and honours RUNNER_FLEET_SYNTH_THREADS, in the compiled module", () => {
    expect(counts).toMatchObject({ few: 1, asked: 3, askedMoreThanCells: 2, serial: 1 });
    expect(counts.many).toBe(Math.min(counts.cores, 4));
  });
});

describe("synthThreadCount and splitInOrder in the TypeScript sources", () => {
  it("synthesizes serially where there is no compiled worker script beside the module (the TypeScript sources)", () => {
    expect(synthThreadCount(100, { [SYNTH_THREADS_ENV]: "4" })).toBe(1);
    expect(synthThreadCount(100, {})).toBe(1);
  });

  it("splits items into contiguous parts of near-equal size, keeping every item in order", () => {
    const items = Array.from({ length: 10 }, (_, index) => index);
    expect(splitInOrder(items, 3)).toEqual([[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]);
    expect(splitInOrder(items, 2)).toEqual([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]);
    expect(splitInOrder([1], 2).flat()).toEqual([1]);
  });
});
