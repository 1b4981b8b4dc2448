/**
 * `npm run bench`: every benchmark, each in a fresh process, and a failure when any is over budget.
 * npm appends `npm run bench -- <args>` to the script's last command only, so a chain of commands in
 * package.json would hand `--suite` or `--skip-gitlab` to the wrong one, and `&&` would skip the
 * simulate benchmark whenever a synth budget is missed. Here the arguments go to synth-bench (whose
 * options they are) and each benchmark runs whatever the one before it found.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const BENCHES: readonly { readonly file: string; readonly takesArgs: boolean }[] = [
  { file: "synth-bench.js", takesArgs: true },
  { file: "simulate-bench.js", takesArgs: false },
  { file: "review-bench.js", takesArgs: false },
];

let failed = 0;
for (const bench of BENCHES) {
  const args = bench.takesArgs ? process.argv.slice(2) : [];
  const result = spawnSync(process.execPath, [join(__dirname, bench.file), ...args], { stdio: "inherit" });
  if (result.status !== 0) failed += 1;
}
if (failed > 0) process.stderr.write(`bench: ${failed} of ${BENCHES.length} benchmarks over budget or failed\n`);
process.exit(failed > 0 ? 1 : 0);
