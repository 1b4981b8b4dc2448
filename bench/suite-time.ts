/**
 * `npm run bench -- --suite`: the wall time of the whole test suite, jest run as `npm test` runs it
 * (after the build, which the bench has just done), measured from spawn to exit.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "../lib/project-root";

export const SUITE_BUDGET_SECONDS = 60;

export interface SuiteTime {
  readonly wallSeconds: number;
  readonly passed: boolean;
  /** jest's own summary lines (Test Suites, Tests, Time). */
  readonly summary: readonly string[];
}

export function measureSuite(): SuiteTime {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, "node_modules", "jest", "bin", "jest.js"), "--silent"], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (result.error) throw result.error;
  const summary = `${result.stdout}\n${result.stderr}`.split("\n").filter((line) => /^(Test Suites|Tests|Time):/.test(line));
  return { wallSeconds, passed: result.status === 0, summary };
}
