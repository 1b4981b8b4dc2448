/**
 * One benchmark measurement in a fresh process: load the models of a directory,
 * synthesize them, and report timings, peak memory and the threads used as one JSON line.
 * Synthesis runs as the commands run it: from a bundle (dist/bundle/synthesis.js, the synthesis
 * threads' own), through V8's code cache and without TurboFan (bin/load-command.js), each thread loading
 * its share of the models.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PROJECT_ROOT } from "../lib/files/project-root";
import { listModelFiles } from "../lib/model/model-files";
import type * as SynthesisThreadsModule from "../stacks/synthesis-threads";
import type * as SynthesizeModule from "../stacks/synthesize";

const { loadSynthesisBundle } = require(join(PROJECT_ROOT, "bin", "load-command.js")) as { loadSynthesisBundle: () => unknown };
// As the commands and the cdktf app run synthesis: from the bundle, without TurboFan (bin/load-command.js).
const synthesis = loadSynthesisBundle() as (typeof SynthesizeModule & typeof SynthesisThreadsModule) | undefined;
if (!synthesis) throw new Error("dist/bundle/synthesis.js is missing: run `npm run build` first");
const { synthesizeModelFiles, synthThreadCount } = synthesis;

const [modelsDir, outdir] = process.argv.slice(2);
const started = performance.now();
const cells = synthesizeModelFiles(listModelFiles(modelsDir), { outdir });
const synthMs = performance.now() - started;
process.stdout.write(
  `${JSON.stringify({
    cells: cells.length,
    resources: cells.reduce((sum, cell) => sum + cell.resourceCount, 0),
    threads: synthThreadCount(cells.length),
    synthMs,
    // process.uptime covers node start-up and module loading too: what a user waits for.
    processMs: process.uptime() * 1000,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
