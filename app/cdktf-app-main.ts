/**
 * What the cdktf app entry (app/cdktf-app.ts) runs: synthesizes the models and reports an error as the
 * commands do. It lives apart from the entry so that the entry can run it from the synthesis bundle
 * (dist/bundle/synthesis.js exports it), with that bundle's code cache, instead of loading ~1,000
 * compiled files; a checkout without bundles (a ref a review compiled) runs this compiled module.
 *
 * Which models: $RUNNER_MODELS (comma-separated names or paths, e.g. `RUNNER_MODELS=cell-1 cdktf diff cell-1`),
 * else every model in the models directory ($RUNNER_MODELS_DIR or ./models).
 * Relative local state paths resolve against the workspace, the models directory's parent
 * (lib/files/workspace.ts); the output goes to $CDKTF_OUTDIR, which the cdktf CLI sets and reads back.
 */
import { reportError } from "./cli/run-command";
import { listModelFiles, modelsDir, resolveModelArgument } from "../lib/model/model-files";
import { synthesizeModelFiles } from "../stacks/synthesize";

/** Synthesizes the models; the exit code (an error is reported on stderr, as the commands report it). */
export function runCdktfApp(): number {
  try {
    const dir = modelsDir();
    const named = (process.env.RUNNER_MODELS ?? "").split(",").map((name) => name.trim()).filter(Boolean);
    const files = named.length > 0 ? named.map((name) => resolveModelArgument(name, dir)) : listModelFiles(dir);
    // Each synthesis thread loads and checks its own share of the models.
    const cells = synthesizeModelFiles(files);
    for (const cell of cells) process.stderr.write(`synthesized ${cell.cell}: ${cell.resourceCount} resources in ${cell.stackDir}\n`);
    return 0;
  } catch (error) {
    return reportError(error);
  }
}
