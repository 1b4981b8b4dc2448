/**
 * The README's dry run of one example cell (`./bin/provision --model cell-1.yaml --dry-run`), as a
 * ratio to a bare `node -e 0` on the same machine at the same moment: both run in turn, `runs` times
 * each, and the medians are compared. One untimed run of each comes first: the first run after a
 * build writes the command's code cache (bin/load-command.js), and every later run is like these.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../lib/files/project-root";
import { median, timeProcess } from "./medians";

/** Issue 17: a dry run within 3x a bare node start. */
export const DRY_RUN_GOAL = 3;

export interface DryRunRatio {
  readonly runs: number;
  readonly dryRunMs: number;
  readonly nodeStartMs: number;
  readonly ratio: number;
  /** Fastest and slowest dry run: how noisy the machine was. */
  readonly dryRunRangeMs: readonly [number, number];
}

/**
 * `env` sets both processes' environment (default: this one's). Node 20 reads NODE_EXTRA_CA_CERTS as
 * every process starts (nodejs/node#40524): where it names a machine's CA bundle, both runs pay for it.
 */
export function measureDryRunRatio(runs: number, env: NodeJS.ProcessEnv = process.env): DryRunRatio {
  const out = mkdtempSync(join(tmpdir(), "runner-fleet-bench-dry-run-"));
  try {
    const dryRun = () =>
      timeProcess(process.execPath, [join(PROJECT_ROOT, "bin", "provision"), "--model", "cell-1.yaml", "--dry-run", "--out", out], { cwd: PROJECT_ROOT, env });
    const nodeStart = () => timeProcess(process.execPath, ["-e", "0"], { cwd: PROJECT_ROOT, env });
    dryRun();
    nodeStart();
    const dryRuns: number[] = [];
    const nodeStarts: number[] = [];
    for (let run = 0; run < runs; run++) {
      nodeStarts.push(nodeStart());
      dryRuns.push(dryRun());
    }
    const dryRunMs = median(dryRuns);
    const nodeStartMs = median(nodeStarts);
    return { runs, dryRunMs, nodeStartMs, ratio: dryRunMs / nodeStartMs, dryRunRangeMs: [Math.min(...dryRuns), Math.max(...dryRuns)] };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
