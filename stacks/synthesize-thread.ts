/**
 * A synthesis worker thread (stacks/synthesis-threads.ts): renders and checks the files of the cells it
 * is given and builds their stacks, then, when asked, writes them, answering each step on its port and
 * counting itself answered. It counts each cell it has built or written too: the thread waiting for it
 * tells a slow worker from a dead one by that count.
 */
import { parentPort, workerData } from "node:worker_threads";
import type * as CellSynthesisModule from "./cell-synthesis";
import type * as RenderedJobsModule from "./rendered-jobs";
import type { ThreadAnswer, ThreadRequest, ThreadStart } from "./synthesis-threads";

const start = workerData as ThreadStart;
const counters = new Int32Array(start.answered);
let synthesis: CellSynthesisModule.CellSynthesis | undefined;

function answer(message: ThreadAnswer): void {
  start.answers.postMessage(message);
  Atomics.add(counters, 0, 1);
  Atomics.notify(counters, 0);
}

const progress = () => void Atomics.add(counters, 1, 1);

parentPort?.on("message", (request: ThreadRequest) => {
  try {
    // Loaded here, not at the top: a module that fails to load is then an answer, not a silent thread.
    const { CellSynthesis } = require("./cell-synthesis") as typeof CellSynthesisModule;
    if (request.step === "construct") {
      const { renderCheckedJobs } = require("./rendered-jobs") as typeof RenderedJobsModule;
      synthesis = new CellSynthesis(renderCheckedJobs(request.jobs), start.outdir, start.workDir, progress);
      answer({ ok: true });
    } else {
      if (!synthesis) throw new Error("asked to write before any stack was built");
      const cells = synthesis.write({ manifest: false });
      answer({ ok: true, cells, manifestStacks: synthesis.manifestStacks });
    }
  } catch (error) {
    answer({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
