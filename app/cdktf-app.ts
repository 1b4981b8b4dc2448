/**
 * The cdktf app entry (`cdktf.json` runs `node dist/app/cdktf-app.js`), so that
 * `cdktf synth`, `cdktf diff <cell>` and `cdktf deploy <cell>` work as usual (./cdktf-app-main.ts).
 *
 * It runs from the synthesis bundle when the build made one (dist/bundle/synthesis.js, with its code
 * cache, as bin/* run their commands and the synthesis threads run theirs): a one-cell `cdktf synth`
 * then loads one file instead of ~1,000 compiled ones. Without it (a ref a review compiled with tsc
 * alone), from the compiled modules. Only Node's own modules, lib/files/project-root and bin/load-command.js
 * load before.
 */
import { join } from "node:path";
import { PROJECT_ROOT } from "../lib/files/project-root";
import type * as AppMain from "./cdktf-app-main";

const { loadSynthesisBundle } = require(join(PROJECT_ROOT, "bin", "load-command.js")) as { loadSynthesisBundle: () => unknown };
// Loaded as the commands run it (bin/load-command.js), before anything compiles and the synthesis threads start.
const { runCdktfApp } = (loadSynthesisBundle() ?? require("./cdktf-app-main")) as typeof AppMain;
process.exitCode = runCdktfApp();
