/**
 * Set up for every test file; records only when `npm run bench -- --suite` asks for it
 * ($RUNNER_FLEET_SUITE_CPU_LOG, bench/suite-time.ts): the CPU the file cost its jest worker and the
 * children it ran, from the moment its set-up started (before its imports load) to its last test, as
 * one JSON line. Timers of a file that outlive it are not counted; nothing else runs in its worker.
 */
import { appendFileSync } from "node:fs";
import { processCpu, SUITE_CPU_LOG_ENV } from "../../bench/process-cpu";

const log = process.env[SUITE_CPU_LOG_ENV];
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
