/**
 * A synthesis worker thread (stacks/synthesis-threads.ts): prepares the share it is given (loads and
 * checks its models when given their files, renders and checks their files: stacks/thread-share.ts),
 * builds their stacks, then writes them, each step when asked, answering each on its port and
 * counting itself answered. It counts each cell it has built or written too: the thread waiting for
 * it tells a slow worker from a dead one by that count.
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type * as CellSynthesisModule from "./cell-synthesis";
import type * as ThreadShareModule from "./thread-share";
import type { ThreadAnswer, ThreadRequest, ThreadStart } from "./synthesis-threads";

/** Answers the steps the thread that started this one asks for. */
function serveSynthesisThread(start: ThreadStart): void {
  const counters = new Int32Array(start.answered);
  let jobs: CellSynthesisModule.CellJob[] | undefined;
  let synthesis: CellSynthesisModule.CellSynthesis | undefined;

  const answer = (message: ThreadAnswer) => {
    start.answers.postMessage(message);
    Atomics.add(counters, 0, 1);
    Atomics.notify(counters, 0);
  };
  const progress = () => void Atomics.add(counters, 1, 1);

  parentPort?.on("message", (request: ThreadRequest) => {
    try {
      // Loaded here, not at the top: a module that fails to load is then an answer, not a silent thread.
      if (request.step === "prepare") {
        jobs = (require("./thread-share") as typeof ThreadShareModule).preparedJobs(request);
        answer({ ok: true });
      } else if (request.step === "construct") {
        if (!jobs) throw new Error("asked to build stacks before any cell was prepared");
        const { CellSynthesis } = require("./cell-synthesis") as typeof CellSynthesisModule;
        synthesis = new CellSynthesis(jobs, start.outdir, start.workDir, progress);
        answer({ ok: true });
      } else {
        if (!synthesis) throw new Error("asked to write before any stack was built");
        const cells = synthesis.write({ manifest: false });
        // Its last step: the thread that started this one terminates it after the answer, and a terminated
        // thread runs no 'exit' handler, so the bundle's code cache (when this thread made one) is written now.
        writeCodeCaches();
        answer({ ok: true, cells, manifestStacks: synthesis.manifestStacks });
      }
    } catch (error) {
      answer({ ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  });
}

/** bin/load-command.js's writeCodeCachesNow, where this thread runs from a bundle it loaded; nothing otherwise. */
function writeCodeCaches(): void {
  const write = (globalThis as Record<symbol, unknown>)[Symbol.for("runner-fleet.write-code-caches")];
  if (typeof write === "function") write();
}

// Only in a synthesis thread: dist/bundle/synthesis.js, which holds this module, also runs the bench's synthesis.
if (!isMainThread && (workerData as Partial<ThreadStart> | null)?.answered instanceof SharedArrayBuffer) serveSynthesisThread(workerData as ThreadStart);
