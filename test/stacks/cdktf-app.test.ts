import { execSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli";

/**
 * `cdktf diff <cell>` and `cdktf deploy <cell>` run the `app` command of cdktf.json with
 * CDKTF_OUTDIR set and then read manifest.json: this is that contract, without the CLI.
 */
describe("cdktf.json app", () => {
  let outdir: string;
  beforeEach(() => {
    outdir = mkdtempSync(join(tmpdir(), "cdktf-app-"));
  });
  afterEach(() => rmSync(outdir, { recursive: true, force: true }));

  const runApp = (env: Record<string, string> = {}) => {
    const { app } = JSON.parse(readFileSync(join(REPO_ROOT, "cdktf.json"), "utf8")) as { app: string };
    execSync(app, { cwd: REPO_ROOT, env: { ...process.env, CDKTF_OUTDIR: outdir, ...env }, stdio: "pipe" });
    return JSON.parse(readFileSync(join(outdir, "manifest.json"), "utf8")) as { stacks: Record<string, { synthesizedStackPath: string }> };
  };

  it("runs precompiled JavaScript with node", () => {
    const { app } = JSON.parse(readFileSync(join(REPO_ROOT, "cdktf.json"), "utf8")) as { app: string };
    expect(app).toMatch(/^node dist\/.+\.js$/);
  });

  it("synthesizes one stack per example cell into the manifest the cdktf CLI reads", () => {
    const manifest = runApp();
    expect(Object.keys(manifest.stacks).sort()).toEqual(["cell-1", "cell-2"]);
    for (const stack of Object.values(manifest.stacks)) {
      expect(JSON.parse(readFileSync(join(outdir, stack.synthesizedStackPath), "utf8")).resource).toBeDefined();
    }
  });

  it("synthesizes from the synthesis bundle, as the commands and threads do, without V8's optimizing compiler (bin/load-command.js)", () => {
    // Asked once the app is done, by a module loaded before it: which of this checkout's compiled files
    // were loaded (the bundle holds the rest), and V8 (the %-calls need --allow-natives-syntax).
    const probe = join(outdir, "optimizes-at-exit.js");
    writeFileSync(
      probe,
      [
        `const TURBOFAN_OPTIMIZED = 1 << 4;`,
        `process.on("exit", () => { function sum(a, b) { return a + b; } %PrepareFunctionForOptimization(sum); sum(1, 2); sum(3, 4); %OptimizeFunctionOnNextCall(sum); sum(5, 6);`,
        `  const dist = ${JSON.stringify(join(REPO_ROOT, "dist"))};`,
        `  const compiled = Object.keys(require.cache).filter((file) => file.startsWith(dist) && !file.startsWith(dist + "/bundle/")).map((file) => file.slice(dist.length + 1));`,
        `  process.stderr.write("compiled files loaded: " + JSON.stringify(compiled.sort()) + "\\n");`,
        `  process.stderr.write((%GetOptimizationStatus(sum) & TURBOFAN_OPTIMIZED) !== 0 ? "optimized" : "not optimized"); });`,
      ].join("\n"),
    );
    const run = (nodeArgs: readonly string[]) =>
      spawnSync(process.execPath, ["--allow-natives-syntax", ...nodeArgs, "-r", probe, join("dist", "app", "cdktf-app.js")], {
        cwd: REPO_ROOT,
        env: { ...process.env, CDKTF_OUTDIR: join(outdir, "out"), RUNNER_MODELS: "cell-2" },
        encoding: "utf8",
      });
    const plain = run([]);
    expect(plain.status).toBe(0);
    // The entry and the module that finds the checkout's root; the synthesis ran from the bundle.
    expect(plain.stderr).toContain('compiled files loaded: ["app/cdktf-app.js","lib/files/project-root.js"]\n');
    expect(plain.stderr).toMatch(/synthesized cell-2: .*\ncompiled files loaded: .*\nnot optimized$/);
    // A node started with a TurboFan flag of its own keeps its choice.
    expect(run(["--turbofan"]).stderr).toMatch(/\noptimized$/);
  });

  it("limits synthesis to the cells in RUNNER_MODELS", () => {
    expect(Object.keys(runApp({ RUNNER_MODELS: "cell-2" }).stacks)).toEqual(["cell-2"]);
  });

  it("stops at an invalid model with its file, path and line:col, exit 2 and no stack trace, writing nothing, when a synthesis thread loads it", () => {
    // GIVEN cell-1 (Google: the worker's share of two threads) with a value out of its range
    const modelsDir = join(outdir, "models");
    mkdirSync(modelsDir);
    for (const name of ["cell-1", "cell-2"]) copyFileSync(join(REPO_ROOT, "models", `${name}.yaml`), join(modelsDir, `${name}.yaml`));
    const file = join(modelsDir, "cell-1.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace(/max_instances: \d+/, "max_instances: -3"));
    const { app } = JSON.parse(readFileSync(join(REPO_ROOT, "cdktf.json"), "utf8")) as { app: string };
    const [node, script] = app.split(" ");
    const out = join(outdir, "out");
    const run = spawnSync(node, [script], { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, CDKTF_OUTDIR: out, RUNNER_MODELS_DIR: modelsDir, RUNNER_FLEET_SYNTH_THREADS: "2" } });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^error: ${file.replace(/[.]/g, "\\.")} is not a valid runner model \\(1 problem\\):\n  \\S+cell-1\\.yaml:\\d+:\\d+: shards\\[0\\]\\.workers\\.max_instances: expected a number >= 1, received -3\n$`));
    expect(readdirSync(outdir)).toEqual(["models"]);
  });
});
