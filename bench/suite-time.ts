/**
 * `npm run bench -- --suite`: the wall time of the whole test suite, jest run as `npm test` runs it
 * (after the build, which the bench has just done), measured from spawn to exit; and the suite's
 * total work, the sum of jest's own per-file durations (--json), which a busy machine inflates far
 * less than the wall time and which tells which files cost the most; and, on Linux, the CPU time
 * each file cost its worker and the processes it ran (test/support/suite-cpu-recorder.ts), which a
 * busy machine inflates least of all.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { PROJECT_ROOT } from "../lib/files/project-root";
import { SUITE_CPU_LOG_ENV, SUITE_CPU_OWNER_ENV } from "./process-cpu";

export const SUITE_BUDGET_SECONDS = 60;

export interface SuiteTime {
  readonly wallSeconds: number;
  readonly passed: boolean;
  /** jest's own summary lines (Test Suites, Tests, Time). */
  readonly summary: readonly string[];
  /** Sum of every test file's duration, as jest reports it. */
  readonly workSeconds: number;
  /** The longest test files, longest first. */
  readonly longest: ReadonlyArray<{ readonly file: string; readonly seconds: number }>;
  /** CPU seconds (user + system) of every test file and the processes it ran; undefined where not measured (not Linux). */
  readonly cpu?: SuiteCpu;
}

export interface SuiteCpu {
  readonly totalSeconds: number;
  /** Of the total, what the test files' children (bash, terraform, git, the commands) cost. */
  readonly childSeconds: number;
  /** The test files that cost the most CPU, most first. */
  readonly costliest: ReadonlyArray<{ readonly file: string; readonly seconds: number }>;
}

interface JestJson {
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
}

export function measureSuite(): SuiteTime {
  const scratch = mkdtempSync(join(tmpdir(), "runner-fleet-bench-suite-"));
  const report = join(scratch, "jest.json");
  const cpuLog = join(scratch, "cpu.jsonl");
  try {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, [join(PROJECT_ROOT, "node_modules", "jest", "bin", "jest.js"), "--silent", "--json", `--outputFile=${report}`], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, [SUITE_CPU_LOG_ENV]: cpuLog, [SUITE_CPU_OWNER_ENV]: String(process.pid) },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (result.error) throw result.error;
    const summary = `${result.stdout}\n${result.stderr}`.split("\n").filter((line) => /^(Test Suites|Tests|Time):/.test(line));
    const files = (JSON.parse(readFileSync(report, "utf8")) as JestJson).testResults
      .map((file) => ({ file: relative(PROJECT_ROOT, file.name), seconds: (file.endTime - file.startTime) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds);
    const workSeconds = files.reduce((sum, file) => sum + file.seconds, 0);
    return { wallSeconds, passed: result.status === 0, summary, workSeconds, longest: files.slice(0, 5), cpu: existsSync(cpuLog) ? summarizeSuiteCpu(readFileSync(cpuLog, "utf8")) : undefined };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The recorder's lines (one per test file) summed, and the costliest files. */
export function summarizeSuiteCpu(log: string): SuiteCpu {
  const files = log
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { file: string; selfSeconds: number; childSeconds: number })
    .map((entry) => ({ file: relative(PROJECT_ROOT, entry.file), seconds: entry.selfSeconds + entry.childSeconds, childSeconds: entry.childSeconds }));
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  return {
    totalSeconds: sum(files.map((file) => file.seconds)),
    childSeconds: sum(files.map((file) => file.childSeconds)),
    costliest: [...files]
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 5)
      .map(({ file, seconds }) => ({ file, seconds })),
  };
}
