import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { parentPid, parseProcStat, processCpu } from "../../bench/process-cpu";
import { summarizeSuiteCpu } from "../../bench/suite-time";

test("reads utime+stime and cutime+cstime of a stat line, whatever the command's name holds", () => {
  // proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
  const line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 1200 300 20 0 1 0 5000 1000000 200";
  expect(parseProcStat(line)).toEqual({ selfSeconds: 3, childSeconds: 15 });
  expect(() => parseProcStat("4242 (node) S 1 2")).toThrow(/not a \/proc\/<pid>\/stat line/);
});

test("counts a child's CPU once the child has been waited for", () => {
  const before = processCpu()!;
  expect(before).toBeDefined();
  expect(parseProcStat(readFileSync("/proc/self/stat", "utf8")).selfSeconds).toBeGreaterThan(0);
  // A child that spins for 0.15 s of user CPU, asking for it every 100,000 turns of an empty loop: asked at
  // every turn, the getrusage calls themselves took ~0.85 s of system time first.
  spawnSync(process.execPath, ["-e", "const end = process.cpuUsage().user + 150000; while (process.cpuUsage().user < end) for (let i = 0; i < 1e5; i++);"]);
  const after = processCpu()!;
  expect(after.childSeconds - before.childSeconds).toBeGreaterThanOrEqual(0.1);
});

test("the suite's CPU is the sum of its files', children included, with the costliest files first", () => {
  const log = [
    { file: "/x/test/a.test.ts", selfSeconds: 1, childSeconds: 0.5 },
    { file: "/x/test/b.test.ts", selfSeconds: 0.25, childSeconds: 4 },
    { file: "/x/test/c.test.ts", selfSeconds: 0.5, childSeconds: 0 },
  ]
    .map((line) => JSON.stringify(line))
    .join("\n");
  const cpu = summarizeSuiteCpu(`${log}\n`);
  expect(cpu.totalSeconds).toBeCloseTo(6.25);
  expect(cpu.childSeconds).toBeCloseTo(4.5);
  expect(cpu.costliest.map((file) => file.file.replace(/^.*test\//, ""))).toEqual(["b.test.ts", "a.test.ts", "c.test.ts"]);
});

test("names a process's parent, and nothing for a process that does not exist", () => {
  expect(parentPid(process.pid)).toBe(process.ppid);
  expect(parentPid(2 ** 22 + 1)).toBeUndefined();
});
