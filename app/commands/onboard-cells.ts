/**
 * Onboarding several cells in one process, `cellConcurrency` at a time: each cell is one
 * runOnboard (./onboard.ts) with its own lock, store and report, and all share one
 * GitLabTraffic (lib/gitlab/traffic.ts), so cells on the same GitLab and token share its
 * request rate and what was learnt of its runners, while cells on other GitLabs go at
 * their own pace. Progress is held per cell and printed as one block when the cell is
 * done, so the output reads cell by cell however the runs interleave.
 */
import pLimit from "p-limit";
import type { RunnerModel } from "../../lib/model/schema";
import type { RequestTally } from "../../lib/gitlab/request-pacer";
import { SYSTEM_CLOCK } from "../../lib/gitlab/retry";
import { GitLabTraffic } from "../../lib/gitlab/traffic";
import { DEFAULT_CELL_CONCURRENCY, RATE_LIMIT_ENV, requestsPerMinute } from "../cli/gitlab-settings";
import { runOnboard, type OnboardOptions, type OnboardResult } from "./onboard";

export interface OnboardCellsOptions extends Omit<OnboardOptions, "model" | "runnerModel" | "traffic" | "log"> {
  readonly runnerModels: readonly RunnerModel[];
  /** Cells onboarded at once. @default 4 */
  readonly cellConcurrency?: number;
  /** One cell's progress, as a block of lines, when the cell is done. @default stderr */
  readonly log?: (lines: readonly string[]) => void;
}

export interface OnboardCellsResult {
  readonly ok: boolean;
  readonly exitCode: 0 | 1;
  /** In the order of `runnerModels`. */
  readonly cells: readonly OnboardResult[];
  /** Over every cell (waiting counted once where cells waited at the same time). */
  readonly requests: RequestTally;
}

export async function runOnboardCells(options: OnboardCellsOptions): Promise<OnboardCellsResult> {
  const { runnerModels, cellConcurrency, log, ...each } = options;
  const env = options.env ?? process.env;
  const traffic = new GitLabTraffic(
    { requestsPerMinute: requestsPerMinute(options.rateLimit ?? env[RATE_LIMIT_ENV]) },
    { now: options.now ?? SYSTEM_CLOCK.now, sleep: options.sleep ?? SYSTEM_CLOCK.sleep },
  );
  const print = log ?? ((lines: readonly string[]) => process.stderr.write(lines.map((line) => `${line}\n`).join("")));
  const limit = pLimit(cellConcurrency ?? DEFAULT_CELL_CONCURRENCY);
  const cells = await Promise.all(
    runnerModels.map((model) =>
      limit(async () => {
        const lines: string[] = [];
        try {
          return await runOnboard({ ...each, runnerModel: model, traffic, log: (line) => lines.push(line) });
        } finally {
          print([`== cell ${model.cell.id}`, ...lines]);
        }
      }),
    ),
  );
  const exitCode = cells.some((cell) => cell.exitCode !== 0) ? 1 : 0;
  // The traffic's own count: waits of cells sharing a pacer overlap, and count once.
  return { ok: exitCode === 0, exitCode, cells, requests: traffic.tally() };
}
