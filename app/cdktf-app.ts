/**
 * The cdktf app entry (`cdktf.json` runs `node dist/app/cdktf-app.js`), so that
 * `cdktf synth`, `cdktf diff <cell>` and `cdktf deploy <cell>` work as usual.
 *
 * Which models: $RUNNER_MODELS (comma-separated names or paths, e.g. `RUNNER_MODELS=cell-1 cdktf diff cell-1`),
 * else every model in the models directory ($RUNNER_MODELS_DIR or ./models).
 * Relative local state paths resolve against the workspace, the models directory's parent
 * (lib/files/workspace.ts); the output goes to $CDKTF_OUTDIR, which the cdktf CLI sets and reads back.
 */
import { join } from "node:path";
import { reportError } from "./cli/run-command";
import { PROJECT_ROOT } from "../lib/files/project-root";
import { listModelFiles, modelsDir, resolveModelArgument } from "../lib/model/model-files";
import { synthesizeModelFiles } from "../stacks/synthesize";

function main(): void {
  // As the commands run (bin/load-command.js), before the synthesis threads start and load their bundle.
  (require(join(PROJECT_ROOT, "bin", "load-command.js")) as { withoutOptimizingCompiler: () => void }).withoutOptimizingCompiler();
  const dir = modelsDir();
  const named = (process.env.RUNNER_MODELS ?? "").split(",").map((name) => name.trim()).filter(Boolean);
  const files = named.length > 0 ? named.map((name) => resolveModelArgument(name, dir)) : listModelFiles(dir);
  // Each synthesis thread loads and checks its own share of the models.
  const cells = synthesizeModelFiles(files);
  for (const cell of cells) process.stderr.write(`synthesized ${cell.cell}: ${cell.resourceCount} resources in ${cell.stackDir}\n`);
}

try {
  main();
} catch (error) {
  process.exitCode = reportError(error);
}
