/**
 * Many cells synthesize faster on several cores: the cells are split, in order, between this thread
 * and worker threads (node:worker_threads), each with its own cdktf App over the same output
 * directory. Each cell's stack is independent of the others, and cdktf's manifest.json lists them
 * with sorted keys, so the output is byte for byte what one App writes (test/stacks/synthesis-threads.test.ts).
 *
 * Each thread prepares its own share (stacks/thread-share.ts): it loads and checks the models when
 * given their files, and renders and checks the cells' boot files, before it builds their stacks.
 * Loading and rendering are a good part of the work, and a worker would otherwise wait for this
 * thread to do them for every cell. The workers are given their shares first: they load their
 * modules while this thread loads its own.
 *
 * synthesizeCells stays synchronous for its callers: this thread waits for the workers on a shared
 * counter (Atomics.wait) and reads their answers with receiveMessageOnPort. The steps are in lock
 * step: every thread prepares, then the output directory is made, every thread builds its stacks,
 * then every thread writes. When any finds an invalid model, a broken file or a cell a construct
 * refuses, nothing is written yet: the caller synthesizes serially, which throws the same error, of
 * the same class, as ever.
 *
 * A worker runs stacks/synthesize-thread.ts from dist/bundle/synthesis.js (bin/synthesis-thread.js, with
 * V8's code cache), else compiled (dist/stacks/synthesize-thread.js); where there is neither beside this
 * module (the TypeScript sources under jest), synthesis is serial.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { OperationalError } from "../lib/process/errors";
import type * as CellSynthesisModule from "./cell-synthesis";
import type { ManifestStacks, SynthesizedCell } from "./cell-synthesis";
import type * as ThreadShareModule from "./thread-share";
import type { ThreadShare } from "./thread-share";

/** Below this many cells per thread, starting a thread (loading cdktf and the providers again) costs more than it saves. */
export const MIN_CELLS_PER_THREAD = 8;
/** At most this many threads in all: each holds its own copy of cdktf and the provider classes in memory. */
const MAX_THREADS = 4;
/**
 * A worker that has neither answered nor built or written a cell for this long is taken for dead (a
 * thread out of memory ends without a word, and its 'exit' event would need the event loop this
 * thread is blocking). A cell takes well under a second.
 */
const STALLED_MS = 60_000;
/**
 * A worker's young generation, where V8 allocates new objects: left to V8, it made the peak memory of
 * 100 cells on two threads 247-249 MB; at 16 MB, 232-234 MB, for the same CPU time.
 */
const WORKER_YOUNG_GENERATION_MB = 16;
/** RUNNER_FLEET_SYNTH_THREADS=<n> sets the number of threads (1: serial). */
export const SYNTH_THREADS_ENV = "RUNNER_FLEET_SYNTH_THREADS";

/** What a worker is given at start. */
export interface ThreadStart {
  readonly outdir: string;
  readonly workDir: string;
  /** Int32 slot 0: how many workers have answered the current step; slot 1: cells built or written, by all. */
  readonly answered: SharedArrayBuffer;
  readonly answers: MessagePort;
}

/** Steps this thread asks a worker for, in order. */
export type ThreadRequest = ({ readonly step: "prepare" } & ThreadShare) | { readonly step: "construct" } | { readonly step: "write" };

/** A worker's answer to a step. */
export type ThreadAnswer =
  | { readonly ok: true; readonly cells?: SynthesizedCell[]; readonly manifestStacks?: ManifestStacks }
  | { readonly ok: false; readonly message: string };

/**
 * The worker script: bin/synthesis-thread.js where the synthesis bundle is built beside this module (in
 * dist/stacks/ or dist/bundle/), else the compiled stacks/synthesize-thread.js beside it.
 */
export function threadScript(): string | undefined {
  const dist = join(__dirname, "..");
  if (existsSync(join(dist, "bundle", "synthesis.js")) && existsSync(join(dist, "..", "bin", "synthesis-thread.js"))) return join(dist, "..", "bin", "synthesis-thread.js");
  return [join(__dirname, "synthesize-thread.js"), join(dist, "stacks", "synthesize-thread.js")].find((file) => existsSync(file));
}

/**
 * How many threads `cells` cells synthesize on: one per core (at most MAX_THREADS), each with at least
 * MIN_CELLS_PER_THREAD cells; RUNNER_FLEET_SYNTH_THREADS=<n> asks for n (at most one per cell). Always 1
 * where there is no compiled worker script.
 */
export function synthThreadCount(cells: number, env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env[SYNTH_THREADS_ENV]);
  const threads = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, cells) : Math.min(availableParallelism(), MAX_THREADS, Math.floor(cells / MIN_CELLS_PER_THREAD));
  return threads > 1 && threadScript() !== undefined ? threads : 1;
}

/** Started workers, each of which renders, checks and builds its share of the cells, then writes them. */
export class SynthesisThreads {
  private readonly counter: Int32Array;
  private readonly workers: { readonly worker: Worker; readonly answers: MessagePort }[];

  constructor(count: number, outdir: string, workDir: string) {
    const answered = new SharedArrayBuffer(8);
    this.counter = new Int32Array(answered);
    const script = threadScript();
    if (!script) throw new Error("no compiled stacks/synthesize-thread.js to run synthesis threads");
    this.workers = Array.from({ length: count }, () => {
      const channel = new MessageChannel();
      const start: ThreadStart = { outdir, workDir, answered, answers: channel.port2 };
      const worker = new Worker(script, { workerData: start, transferList: [channel.port2], resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
      worker.unref();
      return { worker, answers: channel.port1 };
    });
  }

  /**
   * Synthesizes `items` (cells, or model files), grouped by cloud (`cloudOf`) so that a thread given
   * cells of one cloud loads only that cloud's provider classes: the first share here, the rest on the
   * workers, each given to the thread's first step as `shareOf` makes it. Between the first step and the
   * stacks, `beforeConstruct` (the output directory). Undefined when a thread found an invalid model, a
   * broken file or a cell a construct refuses (nothing written yet): the caller synthesizes serially for
   * the error.
   */
  synthesize<T>(
    items: readonly T[],
    { cloudOf, shareOf, beforeConstruct }: { readonly cloudOf: (item: T) => string | undefined; readonly shareOf: (items: T[]) => ThreadShare; readonly beforeConstruct: () => void },
    outdir: string,
    workDir: string,
  ): SynthesizedCell[] | undefined {
    const byCloud = items.map((item, index) => ({ item, index, cloud: cloudOf(item) ?? "" })).sort((a, b) => a.cloud.localeCompare(b.cloud) || a.index - b.index);
    const shares = splitInOrder(byCloud, this.workers.length + 1);
    const inItemOrder = (cells: SynthesizedCell[]) => {
      const order = shares.flat().map((entry) => entry.index);
      const byIndex = new Map(cells.map((cell, position) => [order[position], cell]));
      return items.map((_, index) => byIndex.get(index)!);
    };
    try {
      this.ask(shares.slice(1).map((share) => ({ step: "prepare", ...shareOf(share.map((entry) => entry.item)) })));
      // Loaded once the workers have their shares: they load theirs meanwhile.
      const { preparedJobs } = require("./thread-share") as typeof ThreadShareModule;
      const { CellSynthesis } = require("./cell-synthesis") as typeof CellSynthesisModule;
      const jobs = orUndefined(() => preparedJobs(shareOf(shares[0].map((entry) => entry.item))));
      if (!jobs || !this.answers().every((answer) => answer.ok)) return undefined;

      beforeConstruct();
      this.ask(this.workers.map(() => ({ step: "construct" })));
      const own = orUndefined(() => new CellSynthesis(jobs, outdir, workDir));
      if (!own || !this.answers().every((answer) => answer.ok)) return undefined;

      this.ask(this.workers.map(() => ({ step: "write" })));
      const cells = own.write({ manifest: false });
      const written = this.answers();
      const failed = written.find((answer): answer is Extract<ThreadAnswer, { ok: false }> => !answer.ok);
      if (failed) throw new OperationalError(`a synthesis thread failed to write its stacks: ${failed.message}`);
      own.writeManifest(Object.assign({}, ...written.map((answer) => (answer.ok ? answer.manifestStacks : {}))));
      return inItemOrder([...cells, ...written.flatMap((answer) => (answer.ok ? (answer.cells ?? []) : []))]);
    } finally {
      for (const { worker } of this.workers) void worker.terminate();
    }
  }

  private ask(requests: readonly ThreadRequest[]): void {
    Atomics.store(this.counter, 0, 0);
    requests.forEach((request, index) => this.workers[index].worker.postMessage(request));
  }

  /** Waits until every worker answered the step asked, and returns the answers in worker order. */
  private answers(): ThreadAnswer[] {
    let progress = Atomics.load(this.counter, 1);
    let progressedAt = Date.now();
    for (let answered = Atomics.load(this.counter, 0); answered < this.workers.length; answered = Atomics.load(this.counter, 0)) {
      Atomics.wait(this.counter, 0, answered, 1000);
      if (Atomics.load(this.counter, 1) !== progress) {
        progress = Atomics.load(this.counter, 1);
        progressedAt = Date.now();
      } else if (Date.now() - progressedAt > STALLED_MS) {
        throw new OperationalError(`a synthesis thread stopped working for ${STALLED_MS / 1000} s; run again with ${SYNTH_THREADS_ENV}=1 to synthesize on one thread`);
      }
    }
    return this.workers.map(({ answers }) => {
      const received = receiveMessageOnPort(answers);
      if (!received) throw new Error("a synthesis thread answered without a message");
      return received.message as ThreadAnswer;
    });
  }
}

/** What `make` returns, or undefined when it throws: the serial synthesis throws the error again, for the caller. */
function orUndefined<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** `items` in `parts` contiguous parts of near-equal size, in order. */
export function splitInOrder<T>(items: readonly T[], parts: number): T[][] {
  return Array.from({ length: parts }, (_, part) => items.slice(Math.round((part * items.length) / parts), Math.round(((part + 1) * items.length) / parts)));
}
