/**
 * A synthesis worker thread (stacks/synthesis-threads.ts): builds the stacks of the cells it is given,
 * then, when asked, writes them, answering each step on its port and counting itself answered.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CellSynthesis } from "./cell-synthesis";
import type { ThreadAnswer, ThreadRequest, ThreadStart } from "./synthesis-threads";

const start = workerData as ThreadStart;
const answered = new Int32Array(start.answered);
let synthesis: CellSynthesis | undefined;

function answer(message: ThreadAnswer): void {
  start.answers.postMessage(message);
  Atomics.add(answered, 0, 1);
  Atomics.notify(answered, 0);
}

parentPort?.on("message", (request: ThreadRequest) => {
  try {
    if (request.step === "construct") {
      synthesis = new CellSynthesis(request.jobs, start.outdir, start.workDir);
      answer({ ok: true });
    } else {
      if (!synthesis) throw new Error("asked to write before any stack was built");
      const cells = synthesis.write({ manifest: false });
      answer({ ok: true, cells, manifestStacks: synthesis.manifestStacks });
    }
  } catch (error) {
    answer({ ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
