/**
 * Set up for every test file; records only when `npm run bench -- --suite` asks for it
 * ($RUNNER_FLEET_SUITE_CPU_LOG, bench/suite-time.ts): the CPU the file cost its jest worker and the
 * children it ran, from the moment its set-up started (before its imports load) to its last test, as
 * one JSON line. Timers of a file that outlive it are not counted; nothing else runs in its worker. A
 * jest that a test runs (with the variables inherited) records nothing: its test counts its CPU.
 */
import { appendFileSync } from "node:fs";
import { parentPid, processCpu, SUITE_CPU_LOG_ENV, SUITE_CPU_OWNER_ENV } from "../../bench/process-cpu";

// The bench's own jest: this worker's parent (or, run in band, this process) was started by the owner.
// A jest that a test runs in band inside a worker passes that test too (its parent is the worker, whose
// parent is the owner), so a recording process also names itself to the processes its tests start.
const RECORDING_PROCESS_ENV = "RUNNER_FLEET_SUITE_CPU_RECORDING_PID";
const owner = Number(process.env[SUITE_CPU_OWNER_ENV]);
const insideRecordedTest = (process.env[RECORDING_PROCESS_ENV] ?? String(process.pid)) !== String(process.pid);
const inOwnersRun = !insideRecordedTest && (process.ppid === owner || parentPid(process.ppid) === owner);
if (inOwnersRun) process.env[RECORDING_PROCESS_ENV] = String(process.pid);
const log = inOwnersRun ? process.env[SUITE_CPU_LOG_ENV] : undefined;
const started = log ? processCpu() : undefined;
if (log && started) {
  afterAll(() => {
    const ended = processCpu()!;
    const line = {
      file: expect.getState().testPath,
      selfSeconds: ended.selfSeconds - started.selfSeconds,
      childSeconds: ended.childSeconds - started.childSeconds,
    };
    appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
