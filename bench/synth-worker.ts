/**
 * One benchmark measurement in a fresh process: load the models of a directory,
 * synthesize them, and report timings, peak memory and the threads used as one JSON line.
 * As the cdktf app entry does (app/cdktf-app.ts): each synthesis thread loads its share of the models.
 */
import { performance } from "node:perf_hooks";
import { listModelFiles } from "../lib/model/model-files";
import { synthThreadCount } from "../stacks/synthesis-threads";
import { synthesizeModelFiles } from "../stacks/synthesize";

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
