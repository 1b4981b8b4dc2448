/**
 * `bash -n` over many scripts at once. Spawning bash from Node costs ~14 ms a script
 * (the fork of a large process), which made synth of 100 cells seconds slower; one
 * bash process that starts a `bash -n` per script in the background costs ~1 ms a
 * script. Each script is still checked alone, by bash itself, as `bash -n < script`.
 *
 * A verdict is kept by the script's text and the bash that gave it, for the process and between
 * runs (./bash-verdict-cache.ts): every synthesis renders the same scripts (a roll synthesizes a
 * cell once per phase, a review both refs, every dry run the same cell), and bash says the same of
 * the same text. A text is checked by bash the first time only.
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

/** The `bash -n` verdict on each of `scripts`, in order. Throws BashUnavailableError when bash cannot be run. */
export function checkBashSyntax(scripts: readonly string[]): BashSyntaxResult[] {
  if (scripts.length === 0) return [];
  const cache = openBashVerdictCache();
  const verdicts = new Map<string, BashSyntaxResult>();
  for (const script of new Set(scripts)) {
    const kept = cache?.get(script);
    if (kept !== undefined) verdicts.set(script, kept);
  }
  const unchecked = [...new Set(scripts.filter((script) => !verdicts.has(script)))];
  if (unchecked.length > 0) {
    const results = runBashN(unchecked);
    unchecked.forEach((script, index) => {
      verdicts.set(script, results[index]);
      cache?.set(script, results[index]);
    });
  }
  return scripts.map((script) => verdicts.get(script)!);
}

function runBashN(scripts: readonly string[]): BashSyntaxResult[] {
  const dir = mkdtempSync(join(tmpdir(), "runner-fleet-bash-n-"));
  try {
    const files = scripts.map((content, index) => {
      const file = join(dir, `${index}.sh`);
      writeFileSync(file, content);
      return file;
    });
    // The environment named, not left to the default: the bash run is the one the verdict cache keyed.
    // Standard input is /dev/null, not node's default pipe: that pipe is a socket pair, and `bash -c` on a
    // socket with SHLVL unset or 0 (cron, systemd units, some CI) takes itself for a command from
    // rshd/sshd and sources ~/.bashrc (bash's shell.c, run_startup_files), which can start anything.
    const run = spawnSync("bash", ["-c", CHECK_ALL, "bash-n", ...files], { encoding: "utf8", env: process.env, stdio: ["ignore", "pipe", "pipe"] });
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
