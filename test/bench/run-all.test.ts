/**
 * `npm run bench` runs bench/run-all.ts: the arguments after `--` reach synth-bench (its options:
 * --suite, --runs, --skip-gitlab), the simulate benchmark runs even when a synth budget was missed,
 * and the run fails when any benchmark did. Checked on the compiled runner with stand-in benchmarks.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/cli";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "bench-run-all-"));
  copyFileSync(join(REPO_ROOT, "dist", "bench", "run-all.js"), join(dir, "run-all.js"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in benchmark that records its arguments and exits with `code`. */
function standIn(file: string, code: number): void {
  writeFileSync(join(dir, file), `require("fs").writeFileSync(__filename + ".args", JSON.stringify(process.argv.slice(2))); process.exit(${code});\n`);
}

function runAll(args: readonly string[]) {
  return spawnSync(process.execPath, [join(dir, "run-all.js"), ...args], { encoding: "utf8", timeout: 30_000 });
}

const argsOf = (file: string): unknown => JSON.parse(readFileSync(join(dir, `${file}.args`), "utf8"));

test("the arguments go to synth-bench only, and every benchmark passes: exit 0", () => {
  standIn("synth-bench.js", 0);
  standIn("simulate-bench.js", 0);
  standIn("review-bench.js", 0);
  const result = runAll(["--suite", "--runs", "21"]);
  expect(result.status).toBe(0);
  expect(argsOf("synth-bench.js")).toEqual(["--suite", "--runs", "21"]);
  expect(argsOf("simulate-bench.js")).toEqual([]);
  expect(argsOf("review-bench.js")).toEqual([]);
});

test("a synth budget missed still runs the simulate benchmark, and the run fails", () => {
  standIn("synth-bench.js", 1);
  standIn("simulate-bench.js", 0);
  standIn("review-bench.js", 0);
  const result = runAll([]);
  expect(result.status).toBe(1);
  expect(argsOf("simulate-bench.js")).toEqual([]);
  expect(argsOf("review-bench.js")).toEqual([]);
  expect(result.stderr).toContain("bench: 1 of 3 benchmarks over budget or failed");
});
