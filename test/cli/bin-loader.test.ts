/**
 * bin/load-command.js runs a command's bundle with V8's code cache. Checked on a copy of the real
 * loader beside a small bundle of its own, so other suites running the real commands at the same
 * time cannot touch the cache this test watches: the cache is written by the first run, accepted
 * (left alone) by the next, written again when V8 rejects it or when the bundle was rebuilt, and a
 * run's result is the same either way. Which commands run with V8's optimizing compiler is checked on
 * bundles that ask V8 whether a function it was told to optimize was.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli";

let root: string;
let cacheFile: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "bin-loader-"));
  mkdirSync(join(root, "bin"));
  mkdirSync(join(root, "dist", "bundle"), { recursive: true });
  copyFileSync(join(REPO_ROOT, "bin", "load-command.js"), join(root, "bin", "load-command.js"));
  writeCommand("hello", "helloCommand", [
    `exports.helloCommand = () => ({ greet: (name) => "hello " + name + " from " + require("node:path").basename(__filename) });`,
    `exports.main = (command) => { process.stdout.write(command.greet(process.argv[2]) + "\\n"); };`,
  ]);
  cacheFile = join(root, "dist", "bundle", "hello.js.v8-cache");
  // Asks V8 as its own test of --no-turbofan does: the %-calls need --allow-natives-syntax.
  for (const command of ["simulate", "synthesize"]) {
    writeCommand(command, "command", [
      `exports.command = () => ({});`,
      `const TURBOFAN_OPTIMIZED = 1 << 4;`,
      `function sum(a, b) { return a + b; }`,
      `exports.main = () => { %PrepareFunctionForOptimization(sum); sum(1, 2); sum(3, 4); %OptimizeFunctionOnNextCall(sum); sum(5, 6); process.stdout.write((%GetOptimizationStatus(sum) & TURBOFAN_OPTIMIZED) !== 0 ? "optimized" : "not optimized"); };`,
    ]);
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * bin/<command> and its bundle, in the shape build/bundle-commands.js gives one: a module body (`body`,
 * which exports `main` and the command's factory) inside the function the loader runs, one that calls
 * itself when required plainly.
 */
function writeCommand(command: string, factory: string, body: readonly string[]): void {
  writeFileSync(join(root, "bin", command), `require("./load-command")(${JSON.stringify(command)}, ${JSON.stringify(factory)});\n`);
  writeFileSync(
    join(root, "dist", "bundle", `${command}.js`),
    [
      `(function (bundle) { return globalThis[Symbol.for("runner-fleet.bundle-loader")] ? bundle : bundle.call(exports, exports, require, module, __filename, __dirname); })(function (exports, require, module, __filename, __dirname) {`,
      ...body,
      `});`,
    ].join("\n"),
  );
}

function hello(env: NodeJS.ProcessEnv = {}): string {
  const result = spawnSync(process.execPath, [join(root, "bin", "hello"), "fleet"], { encoding: "utf8", env: { PATH: process.env.PATH, ...env } });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return result.stdout;
}

test("the first run writes the code cache, the next one uses it as it is, a rejected one is written again", () => {
  expect(hello()).toBe("hello fleet from hello.js\n");
  const written = statSync(cacheFile);
  expect(written.size).toBeGreaterThan(0);

  expect(hello()).toBe("hello fleet from hello.js\n");
  expect(statSync(cacheFile).mtimeMs).toBe(written.mtimeMs);

  writeFileSync(cacheFile, "not a V8 code cache");
  expect(hello()).toBe("hello fleet from hello.js\n");
  expect(readFileSync(cacheFile, "utf8")).not.toBe("not a V8 code cache");
});

test("a bundle rebuilt to the same length runs its new code, even with its old modification time", () => {
  const bundle = join(root, "dist", "bundle", "hello.js");
  const original = readFileSync(bundle, "utf8");
  try {
    rmSync(cacheFile, { force: true });
    expect(hello()).toBe("hello fleet from hello.js\n");
    expect(hello()).toBe("hello fleet from hello.js\n");
    // V8 checks a cache against the source's length only: this rebuild would run the old build's functions.
    const rebuilt = original.replace('"hello "', '"howdy "');
    expect(rebuilt.length).toBe(original.length);
    const before = statSync(bundle);
    writeFileSync(bundle, rebuilt);
    // As a copy or an install that keeps file times would leave it.
    utimesSync(bundle, before.atime, before.mtime);
    expect(hello()).toBe("howdy fleet from hello.js\n");
    expect(hello()).toBe("howdy fleet from hello.js\n");
  } finally {
    writeFileSync(bundle, original);
  }
});

test("with --enable-source-maps the bundle is required plainly (so stack traces map to the sources)", () => {
  rmSync(cacheFile, { force: true });
  expect(hello({ NODE_OPTIONS: "--enable-source-maps" })).toBe("hello fleet from hello.js\n");
  expect(() => statSync(cacheFile)).toThrow();
});

function optimizes(command: string, nodeArgs: readonly string[] = []): string {
  const result = spawnSync(process.execPath, ["--allow-natives-syntax", ...nodeArgs, join(root, "bin", command)], { encoding: "utf8", env: { PATH: process.env.PATH } });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return result.stdout;
}

test("simulate's long runs keep V8's optimizing compiler; the other commands run without it, twice (from the code cache too)", () => {
  expect(optimizes("simulate")).toBe("optimized");
  expect(optimizes("synthesize")).toBe("not optimized");
  expect(optimizes("synthesize")).toBe("not optimized");
});

test("a node started with a TurboFan flag of its own keeps it", () => {
  expect(optimizes("synthesize", ["--turbofan"])).toBe("optimized");
  expect(optimizes("simulate", ["--no-opt"])).toBe("not optimized");
});

test("a missing bundle is named, with how to build it", () => {
  const result = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(join(root, "bin", "load-command.js"))})("absent", "absentCommand")`], { encoding: "utf8" });
  expect(result.status).toBe(1);
  expect(result.stderr).toBe(`error: ${join(root, "dist", "bundle", "absent.js")} is missing; run \`npm run build\` first (after \`npm ci\`; \`npm run setup\` does both)\n`);
});

test("the cache's V8 data starts 8-byte aligned after the identity line, so V8 uses it in place instead of copying it", () => {
  rmSync(cacheFile, { force: true });
  expect(hello()).toBe("hello fleet from hello.js\n");
  const cache = readFileSync(cacheFile);
  const identityLength = cache.indexOf(0x0a) + 1;
  expect(cache.subarray(0, identityLength).toString("latin1")).toMatch(/^runner-fleet bundle \d+:\d+:\d+:\d+:\d+ *\n$/);
  expect(identityLength % 8).toBe(0);
  // And it is used as it is by the next run.
  const written = statSync(cacheFile).mtimeMs;
  expect(hello()).toBe("hello fleet from hello.js\n");
  expect(statSync(cacheFile).mtimeMs).toBe(written);
});

test("a thread that is terminated once its work is done (a synthesis thread) leaves its bundle's cache when it wrote it before answering", () => {
  // GIVEN a bundle that, run in a worker thread, answers "done" (after writing its code caches, when told to)
  writeCommand("threaded", "command", [
    `exports.command = () => ({});`,
    `const { parentPort, workerData } = require("node:worker_threads");`,
    `if (workerData.writeFirst) globalThis[Symbol.for("runner-fleet.write-code-caches")]();`,
    `parentPort.postMessage("done");`,
    // Busy until terminated, as a synthesis thread is terminated at its answer: a thread left idle could reach
    // its own exit path first on a fast machine, and the test would then measure a race, not the loader.
    `for (;;) {}`,
  ]);
  const threadedCache = join(root, "dist", "bundle", "threaded.js.v8-cache");
  const runThread = (writeFirst: boolean) => {
    rmSync(threadedCache, { force: true });
    // WHEN a thread loads it through the loader, and the thread that started it terminates it at its answer (stacks/synthesis-threads.ts)
    const code = [
      `const { Worker } = require("node:worker_threads");`,
      `const loader = ${JSON.stringify(`require(${JSON.stringify(join(root, "bin", "load-command.js"))}).loadBundle(${JSON.stringify(join(root, "dist", "bundle", "threaded.js"))})`)};`,
      `const worker = new Worker(loader, { eval: true, workerData: { writeFirst: ${writeFirst} } });`,
      `worker.on("message", () => void worker.terminate());`,
    ].join("\n");
    const result = spawnSync(process.execPath, ["-e", code], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    return readdirSync(join(root, "dist", "bundle")).filter((name) => name.startsWith("threaded.js.v8-cache"));
  };
  // THEN the cache is there when the thread wrote it before answering, and only then (no partial file left)
  expect(runThread(true)).toEqual(["threaded.js.v8-cache"]);
  expect(readFileSync(threadedCache).toString("latin1")).toMatch(/^runner-fleet bundle \d+:\d+:\d+:\d+:\d+ *\n/);
  expect(runThread(false)).toEqual([]);
});
