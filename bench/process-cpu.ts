/**
 * CPU seconds of this process and of the children it has waited for, from Linux's /proc/self/stat
 * (proc(5): utime, stime, cutime, cstime, in clock ticks). On a machine shared with other work, wall
 * times say more about the others than about us; CPU time is what the suite itself costs. Node's
 * process.cpuUsage() counts this process only, and the suite's children (bash, terraform, git, the
 * commands under test) are half its work.
 */
import { readFileSync } from "node:fs";

/** Where test/support/suite-cpu-recorder.ts appends each test file's CPU, when set (bench/suite-time.ts sets it). */
export const SUITE_CPU_LOG_ENV = "RUNNER_FLEET_SUITE_CPU_LOG";
/**
 * The process that ran jest for the bench: only the files of that run record, not those of a jest a
 * test runs inside it (test/real-engine/availability.test.ts does), whose CPU its test already counts.
 */
export const SUITE_CPU_OWNER_ENV = "RUNNER_FLEET_SUITE_CPU_OWNER";

/** sysconf(_SC_CLK_TCK): 100 on every Linux Node supports. */
const TICKS_PER_SECOND = 100;

export interface ProcessCpu {
  /** user + system seconds of this process. */
  readonly selfSeconds: number;
  /** user + system seconds of the children it has waited for (and theirs). */
  readonly childSeconds: number;
}

/** The CPU times in a /proc/<pid>/stat line. The command name (field 2) may hold spaces and parentheses. */
export function parseProcStat(line: string): ProcessCpu {
  const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
  // After the name, fields[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
  const ticks = fields.slice(11, 15).map(Number);
  if (ticks.length !== 4 || ticks.some((value) => !Number.isInteger(value))) throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  return { selfSeconds: (ticks[0] + ticks[1]) / TICKS_PER_SECOND, childSeconds: (ticks[2] + ticks[3]) / TICKS_PER_SECOND };
}

/** The parent of process `pid` (field 4 of its stat line), or undefined when there is no such process or no /proc. */
export function parentPid(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(line.slice(line.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** This process's CPU so far, or undefined where there is no /proc (not Linux). */
export function processCpu(): ProcessCpu | undefined {
  try {
    return parseProcStat(readFileSync("/proc/self/stat", "utf8"));
  } catch {
    return undefined;
  }
}
