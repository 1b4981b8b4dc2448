/**
 * The stock cdktf way, for comparison only: TypeScript compiled on the fly by
 * ts-node and the provider packages imported from their roots (the barrel loads
 * every resource class of the provider). Run by bench/synth-bench.ts.
 */
import { performance } from "node:perf_hooks";
import { loadModelFile } from "../../lib/model/load";
import { listModelFiles } from "../../lib/model/model-files";
import { synthesizeCells } from "../../stacks/synthesize";

// Load the provider barrels (the package roots), as stock cdktf code does with a namespace import.
const aws = require("@cdktf/provider-aws");
const google = require("@cdktf/provider-google");
const providerModules = Object.keys(aws).length + Object.keys(google).length;
const [modelsDir, outdir] = process.argv.slice(2);
const started = performance.now();
const cells = synthesizeCells(listModelFiles(modelsDir).map((file) => loadModelFile(file)), { outdir });
process.stdout.write(
  `${JSON.stringify({
    cells: cells.length,
    providerModules,
    resources: cells.reduce((sum, cell) => sum + cell.resourceCount, 0),
    synthMs: performance.now() - started,
    processMs: process.uptime() * 1000,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
