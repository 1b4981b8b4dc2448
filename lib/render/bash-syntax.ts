/**
 * `bash -n` over many scripts at once. Spawning bash from Node costs ~14 ms a script
 * (the fork of a large process), which made synth of 100 cells seconds slower; one
 * bash process that starts a `bash -n` per script in the background costs ~1 ms a
 * script. Each script is still checked alone, by bash itself, as `bash -n < script`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BashVerdict, openBashVerdictCache } from "./bash-verdict-cache";

/** Starts one `bash -n` per script file, then prints each one's exit status, in order, one per line. */
const CHECK_ALL = 'pids=(); for script; do bash -n < "$script" 2> "$script.err" & pids+=("$!"); done; for pid in "${pids[@]}"; do wait "$pid"; echo "$?"; done';

export type BashSyntaxResult = BashVerdict;

export class BashUnavailableError extends Error {}

/**
 * The `bash -n` verdict on each of `scripts`, in order. Throws BashUnavailableError when bash cannot be run.
 * A text this bash has judged before gets its kept verdict (./bash-verdict-cache.ts); the rest are checked.
 */
export function checkBashSyntax(scripts: readonly string[]): BashSyntaxResult[] {
  const cache = scripts.length > 0 ? openBashVerdictCache() : undefined;
  const kept = scripts.map((script) => cache?.get(script));
  const unjudged = scripts.filter((_, index) => kept[index] === undefined);
  const judged = runBashN(unjudged);
  judged.forEach((verdict, index) => cache?.set(unjudged[index], verdict));
  let next = 0;
  return kept.map((verdict) => verdict ?? judged[next++]);
}

/** Runs `bash -n` on each of `scripts` (one bash process starting them all), in order. */
function runBashN(scripts: readonly string[]): BashSyntaxResult[] {
  if (scripts.length === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), "runner-fleet-bash-n-"));
  try {
    const files = scripts.map((content, index) => {
      const file = join(dir, `${index}.sh`);
      writeFileSync(file, content);
      return file;
    });
    // The environment named, not left to the default: the bash run is the one the verdict cache keyed.
    const run = spawnSync("bash", ["-c", CHECK_ALL, "bash-n", ...files], { encoding: "utf8", env: process.env });
    if (run.error) throw new BashUnavailableError(run.error.message, { cause: run.error });
    const statuses = run.stdout.split("\n").filter(Boolean).map(Number);
    if (run.status !== 0 || statuses.length !== files.length) {
      throw new BashUnavailableError(`bash exited ${run.status ?? run.signal} after ${statuses.length} of ${files.length} checks: ${run.stderr.trim()}`);
    }
    return files.map((file, index) => ({ ok: statuses[index] === 0, stderr: readFileSync(`${file}.err`, "utf8") }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
