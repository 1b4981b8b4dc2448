/**
 * The suite's jest runtime (test/support/suite-runtime.js) compiles a module once per worker and
 * runs that script again in later test files, and releases each file's AsyncLocalStorages when the
 * file ends. What the suite relies on: later files really reuse the script, each file still runs every
 * module afresh (no state crosses files), errors point at the module's own lines as jest's
 * compileFunction had them, and no file leaves an async context behind for the next to pay for.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../lib/files/project-root";

const RUNTIME = join(PROJECT_ROOT, "test", "support", "suite-runtime.js");
const JEST = join(PROJECT_ROOT, "node_modules", "jest", "bin", "jest.js");
const SEQUENCER = join(PROJECT_ROOT, "node_modules", "@jest", "test-sequencer");

/** A module with state of its own and a throw on a known line (line 4), that hands out the globals it reads. */
const COUNTER_MODULE = [
  "let loads = 0;",
  "module.exports.load = () => ++loads;",
  "module.exports.fail = () => {",
  "  throw new Error('from line 4');",
  "};",
  "module.exports.globals = () => ({ Math, Array, globalThis, Date, process });",
  "",
].join("\n");

/** A module that declares names of its own that the runtime binds as globals. */
const SHADOWING_MODULE = ["const Map = 'own Map';", "var JSON = 'own JSON';", "function Promise() { return 'own Promise'; }", "module.exports = { Map, JSON, Promise: Promise() };", ""].join("\n");

/**
 * A test file that checks the module is fresh in it and that the error names line 4, and asks V8 whether
 * TurboFan optimizes a function asked to be (the %-calls need --allow-natives-syntax): as the product
 * runs the code it tests, so only in a test/simulate/ folder (test/support/compiler-per-test-file.js).
 */
function testFile(name: string, { optimized, modules }: { optimized: boolean; modules: string }): string {
  return [
    `test(${JSON.stringify(name)}, () => {`,
    `  const counter = require('${modules}/counter');`,
    "  expect(counter.load()).toBe(1);",
    "  expect(counter.load()).toBe(2);",
    "  let stack = '';",
    "  try { counter.fail(); } catch (error) { stack = error.stack; }",
    "  expect(stack).toMatch(/counter\\.js:4:\\d+/);",
    "});",
    // jest-circus runs every test in an AsyncLocalStorage of this file's own; the file ran one more.
    "test('binds its own context\\'s globals, keeps the replaceable ones live and lets a module shadow them', () => {",
    `  const { globals } = require('${modules}/counter');`,
    "  expect(globals().Math).toBe(Math);",
    "  expect(globals().Array).toBe(Array);",
    "  expect(globals().globalThis).toBe(globalThis);",
    "  const RealDate = Date;",
    "  globalThis.Date = class FakeDate extends RealDate {};",
    "  try { expect(globals().Date).toBe(globalThis.Date); } finally { globalThis.Date = RealDate; }",
    "  expect(globals().process).toBe(process);",
    `  expect(require('${modules}/shadowing')).toEqual({ Map: 'own Map', JSON: 'own JSON', Promise: 'own Promise' });`,
    "});",
    "test('loads a module written again as its new text', () => {",
    "  const { writeFileSync } = require('node:fs');",
    "  const file = require('node:path').join(__dirname, `written-${expect.getState().testPath.split('/').pop()}.js`);",
    "  writeFileSync(file, 'module.exports = 1;');",
    "  expect(require(file)).toBe(1);",
    "  writeFileSync(file, 'module.exports = 22;');",
    "  jest.resetModules();",
    "  expect(require(file)).toBe(22);",
    "});",
    "test('keeps async contexts within the file', async () => {",
    "  const { AsyncLocalStorage } = require('node:async_hooks');",
    "  const storage = new AsyncLocalStorage();",
    "  await storage.run('mine', async () => { await null; expect(storage.getStore()).toBe('mine'); });",
    "});",
    `test('compiles with TurboFan ${optimized ? "on" : "off"}, as the product runs the code this file tests', () => {`,
    "  function sum(a, b) { return a + b; }",
    "  %PrepareFunctionForOptimization(sum); sum(1, 2); sum(3, 4); %OptimizeFunctionOnNextCall(sum); sum(5, 6);",
    `  expect((%GetOptimizationStatus(sum) & (1 << 4)) !== 0).toBe(${optimized});`,
    "});",
    "",
  ].join("\n");
}

describe("the suite's jest runtime", () => {
  let dir: string;
  let result: ReturnType<typeof spawnSync>;
  let stats: Array<{ compiled: number; reused: number; modules: number; released: number; transformed: number; replayed: number }>;

  beforeAll(() => {
    // GIVEN three test files in one worker that each load the same module, the second in a test/simulate/
    // folder, run in that order (so TurboFan goes off, on and off again)
    dir = mkdtempSync(join(tmpdir(), "suite-runtime-"));
    writeFileSync(join(dir, "counter.js"), COUNTER_MODULE);
    writeFileSync(join(dir, "shadowing.js"), SHADOWING_MODULE);
    mkdirSync(join(dir, "test", "simulate"), { recursive: true });
    writeFileSync(join(dir, "first.test.js"), testFile("first", { optimized: false, modules: "." }));
    writeFileSync(join(dir, "test", "simulate", "second.test.js"), testFile("second", { optimized: true, modules: "../.." }));
    writeFileSync(join(dir, "third.test.js"), testFile("third", { optimized: false, modules: "." }));
    writeFileSync(join(dir, "by-path.js"), `module.exports = class extends require(${JSON.stringify(SEQUENCER)}).default { sort(tests) { return [...tests].sort((a, b) => (a.path < b.path ? -1 : 1)); } };`);
    writeFileSync(
      join(dir, "jest.config.js"),
      `module.exports = { rootDir: __dirname, runtime: ${JSON.stringify(RUNTIME)}, transform: {}, cacheDirectory: __dirname + "/cache", testSequencer: __dirname + "/by-path.js" };`,
    );
    const statsFile = join(dir, "stats.jsonl");
    // WHEN jest runs them in band through the runtime
    result = spawnSync(process.execPath, ["--allow-natives-syntax", JEST, "--config", join(dir, "jest.config.js"), "--runInBand", "--ci"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, RUNNER_FLEET_SUITE_RUNTIME_STATS: statsFile },
    });
    stats = readFileSync(statsFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("runs each file's modules afresh, with errors on the module's own lines and its own context's globals", () => {
    // THEN every file passes: its module counted from 1, its error named counter.js line 4, the
    // module's globals were its own context's (Date as the test replaced it), shadowing worked, and a
    // module written again loaded as its new text, and TurboFan was on in the simulator's folder only
    expect(`${result.stderr}`).toMatch(/Tests:\s+15 passed, 15 total/);
    expect(result.status).toBe(0);
  });

  test("compiles each module once, and the later files run the same compiled script", () => {
    // THEN the one worker compiled each module once (each file's written module once per text) and ran
    // counter.js's and shadowing.js's scripts again in the second and third files
    expect(stats).toHaveLength(1);
    const [worker] = stats;
    expect(worker.compiled).toBe(worker.modules + 3);
    expect(worker.reused).toBeGreaterThanOrEqual(4);
  });

  test("transforms each module once, and the later files replay it", () => {
    // THEN counter.js and shadowing.js were transformed by the first file and replayed by the other two
    expect(stats[0].replayed).toBeGreaterThanOrEqual(4);
  });

  test("releases each file's async contexts when the file ends: jest-circus's and the file's own", () => {
    // THEN each of the three files released two AsyncLocalStorages: jest-circus's for the file and the test's own
    expect(stats[0].released).toBe(6);
  });
});
