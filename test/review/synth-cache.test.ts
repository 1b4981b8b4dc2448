/**
 * review's synth cache ($RUNNER_FLEET_SYNTH_CACHE, lib/review/synth-cache.ts): a tree is synthesized
 * once, whichever repository or ref names it; a commit that changes only models reuses the compiled
 * code; a failure leaves nothing behind; two refs of the same tree at once synthesize it once.
 * The synth here is the fake one (test/fixtures/fake-synth), wrapped to log each run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SYNTH_CACHE_ENV } from "../../lib/review/synth-cache";
import { synthRef, synthWorkingTree } from "../../lib/review/synth-ref";
import { createFakeSynthRepo, type TempRepo } from "./review-temp-repo";

const MODEL = (machineType: string) => `project: fleet-prod\nregion: europe-west4\nmachine_type: ${machineType}\n`;
const LOG_ENV = "FAKE_SYNTH_RUN_LOG";
// Logs the run, then runs the fake synth (compiled beside it by tsc, as the real entry is).
const LOGGING_SYNTH = `require("node:fs").appendFileSync(process.env.${LOG_ENV}, "synth\\n");\nrequire("./fake-synth.js");\n`;

describe("review's synth cache", () => {
  const saved = { cache: process.env[SYNTH_CACHE_ENV], log: process.env[LOG_ENV] };
  let scratch: string;
  let cacheDir: string;
  let log: string;
  const repos: TempRepo[] = [];

  const fakeSynthSource = readFileSync(join(__dirname, "..", "fixtures", "fake-synth", "main.js"), "utf8");
  const repo = (models: Record<string, string>, extra: Record<string, string> = {}) => {
    const made = createFakeSynthRepo(models, { "stacks/main.js": LOGGING_SYNTH, "stacks/fake-synth.js": fakeSynthSource, ...extra });
    repos.push(made);
    return made;
  };
  const synthRuns = () => readFileSync(log, "utf8").split("\n").filter(Boolean).length;
  const entries = (kind: string) => readdirSync(cacheDir).filter((name) => name.startsWith(`${kind}-`) && !name.includes("."));

  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), "synth-cache-test-"));
    cacheDir = join(scratch, "cache");
    log = join(scratch, "synth.log");
    writeFileSync(log, "");
    process.env[SYNTH_CACHE_ENV] = cacheDir;
    process.env[LOG_ENV] = log;
  });
  afterEach(() => {
    for (const made of repos.splice(0)) made.cleanup();
    rmSync(scratch, { recursive: true, force: true });
    for (const [name, value] of [[SYNTH_CACHE_ENV, saved.cache], [LOG_ENV, saved.log]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("synthesizes a tree once, in whichever repository; a models-only change (committed or in the working tree) reuses the compiled code, a code change does not", async () => {
    // GIVEN two repositories with the same files
    const first = repo({ "cell-1": MODEL("e2-small") });
    const second = repo({ "cell-1": MODEL("e2-small") });

    // WHEN both synthesize HEAD
    const a = await synthRef("HEAD", { cwd: first.dir });
    const b = await synthRef("HEAD", { cwd: second.dir });

    // THEN the synth ran once and both read the same stacks
    expect(synthRuns()).toBe(1);
    expect(b.stacks).toEqual(a.stacks);
    expect(a.stacks.get("cell-1")?.resource).toBeDefined();
    expect(entries("synth")).toHaveLength(1);
    expect(entries("compiled")).toHaveLength(1);
    const [firstCode] = entries("compiled");

    // WHEN a commit changes a model only: synthesized again, with the same compiled code
    second.write("models/cell-1.yaml", MODEL("e2-standard-4"));
    second.commit("bigger");
    const changed = await synthRef("HEAD", { cwd: second.dir });
    expect(synthRuns()).toBe(2);
    expect(JSON.stringify(changed.stacks.get("cell-1"))).toContain("e2-standard-4");
    expect(entries("synth")).toHaveLength(2);
    expect(entries("compiled")).toHaveLength(1);

    // WHEN a commit changes code: compiled and synthesized again
    second.write("lib/shared.txt", "v2\n");
    second.commit("shared code");
    const recompiled = await synthRef("HEAD", { cwd: second.dir });
    expect(synthRuns()).toBe(3);
    expect(JSON.stringify(recompiled.stacks.get("cell-1"))).toContain('"shared":"v2"');
    expect(entries("compiled")).toHaveLength(2);

    // AND the first tree, asked for again by its commit, is still read from the cache
    expect((await synthRef("HEAD~2", { cwd: second.dir })).stacks).toEqual(a.stacks);
    expect(synthRuns()).toBe(3);

    // WHEN a working tree with the first tree's code changes a model: that code, written into its dist/, synthesizes it
    // (one that cannot be listed as the compiler reads it is compiled: ./working-tree-code.test.ts)
    first.write("models/cell-1.yaml", MODEL("e2-medium"));
    expect(JSON.stringify((await synthWorkingTree(first.dir)).stacks.get("cell-1"))).toContain("e2-medium");
    expect(entries("compiled")).toHaveLength(2);
    expect(readFileSync(join(first.dir, "dist", "stacks", "main.js"), "utf8")).toBe(readFileSync(join(cacheDir, firstCode, "stacks", "main.js"), "utf8"));

    // WHEN its code changes without a commit: compiled, and kept for the next synthesis of the same code
    first.write("lib/shared.txt", "v3\n");
    expect(JSON.stringify((await synthWorkingTree(first.dir)).stacks.get("cell-1"))).toContain('"shared":"v3"');
    expect(entries("compiled")).toHaveLength(3);
    expect(synthRuns()).toBe(5);
  }, 120_000);

  it("synthesizes one tree asked for twice at once only once", async () => {
    const one = repo({ "cell-1": MODEL("e2-small"), "cell-2": MODEL("e2-medium") });
    const [a, b] = await Promise.all([synthRef("HEAD", { cwd: one.dir }), synthRef("HEAD", { cwd: one.dir })]);
    expect(synthRuns()).toBe(1);
    expect([...a.stacks.keys()]).toEqual(["cell-1", "cell-2"]);
    expect(b.stacks).toEqual(a.stacks);
  }, 120_000);

  it("keeps nothing of a failed synth: the next attempt runs it again and fails the same way", async () => {
    const broken = repo({ "cell-1": "invalid: true\n" });
    const failure = /ref "HEAD" \([0-9a-f]{8}\) failed at step "synth": exit 2\n.*invalid model/;
    await expect(synthRef("HEAD", { cwd: broken.dir })).rejects.toThrow(failure);
    await expect(synthRef("HEAD", { cwd: broken.dir })).rejects.toThrow(failure);
    expect(synthRuns()).toBe(2);
    expect(entries("synth")).toEqual([]);
    expect(readdirSync(cacheDir).filter((name) => name.includes(".partial-"))).toEqual([]);
  }, 120_000);
});
