/**
 * GitLab at scale, for `npm run bench`: onboarding, status and prune of cells of 10 shards
 * each (and single cells of 5 to 500), against the test GitLab stand-in
 * (test/support/fake-gitlab.ts) with a latency per request and Rack::Attack's throttle, with
 * and without 1000 runners of other teams on the instance (every tenth sharing the cells'
 * tag). For each: requests and wall time of the first run, a no-op re-run, `status` and
 * `onboard --prune --dry-run`. Cells run 4 at a time in one process, sharing the instance's
 * pacer, as `status` and runOnboardCells do.
 *
 * A benchmark, not a test: wall times depend on the machine, request counts do not. The
 * bench fails when a command's requests exceed its budget: a constant per shard, plus two
 * listings per cell (the listing and the one after creating), plus what a command must
 * read of other runners: the first run reads the unrelated runners that share the cells'
 * tag once, prune reads every runner once (a removed shard's runner can only be told by
 * its maintenance note, which listings do not show).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runOnboardCells } from "../app/commands/onboard";
import { runStatus } from "../app/commands/status";
import type { RequestTally } from "../lib/gitlab/request-pacer";
import type { RunnerModel } from "../lib/model/schema";
import { FakeGitLab } from "../test/support/fake-gitlab";
import { scaledEnv, scaledModel, seedUnrelatedRunners } from "../test/support/scaled-model";

/** The stand-in's answer time, about a GitLab in the same region. */
const LATENCY_MS = 5;
/** Rack::Attack on the stand-in: 2400 requests per 10 s window. Scaled up from GitLab's defaults so the bench takes minutes, not hours. */
const THROTTLE = { requests: 2400, periodSeconds: 10 } as const;
/** The client's pace (--rate-limit): a burst of 20, then 12000 a minute; per window at most 20 + 2000, under the throttle. */
const REQUESTS_PER_MINUTE = 12_000;
const UNRELATED = 1000;

/** Requests per shard each command may make, besides listing pages and the reads named below. */
export const REQUESTS_PER_SHARD = { first: 1, noop: 3, status: 5, prune: 2 } as const;
type Command = keyof typeof REQUESTS_PER_SHARD;
const COMMANDS: readonly Command[] = ["first", "noop", "status", "prune"];
const LABELS: Record<Command, string> = { first: "first run", noop: "no-op re-run", status: "status", prune: "--prune --dry-run" };

export interface GitLabBenchCase {
  readonly shards: number;
  readonly cells: number;
  readonly unrelated: number;
}

export const GITLAB_BENCH_CASES: readonly GitLabBenchCase[] = [5, 10, 40, 100, 500]
  .map((shards) => ({ shards, cells: 1 }))
  .concat([
    { shards: 100, cells: 10 },
    { shards: 500, cells: 50 },
  ])
  .flatMap((size) => [0, UNRELATED].map((unrelated) => ({ ...size, unrelated })));

interface Measured {
  readonly requests: number;
  readonly wallMs: number;
  readonly tally: RequestTally;
  readonly throttled: number;
}

export interface GitLabBenchRow {
  readonly benchCase: GitLabBenchCase;
  readonly command: Command;
  readonly measured: Measured;
  readonly budget: number;
  readonly ok: boolean;
}

export async function runGitLabBench(cases: readonly GitLabBenchCase[] = GITLAB_BENCH_CASES, progress: (line: string) => void = () => {}): Promise<GitLabBenchRow[]> {
  const rows: GitLabBenchRow[] = [];
  for (const benchCase of cases) {
    progress(`bench: GitLab, ${benchCase.shards} shards over ${benchCase.cells} cell(s), ${benchCase.unrelated} unrelated runners...`);
    rows.push(...(await measureCase(benchCase)));
  }
  return rows;
}

async function measureCase(benchCase: GitLabBenchCase): Promise<GitLabBenchRow[]> {
  const fake = new FakeGitLab();
  await fake.start();
  const root = mkdtempSync(join(tmpdir(), "gitlab-bench-"));
  try {
    fake.latencyMs = LATENCY_MS;
    fake.rateLimit = THROTTLE;
    seedUnrelatedRunners(fake, benchCase.unrelated);
    const perCell = benchCase.shards / benchCase.cells;
    const models: RunnerModel[] = Array.from({ length: benchCase.cells }, (_, index) =>
      scaledModel({ cellId: `cell-${index + 1}`, gitlabUrl: fake.url, shards: perCell, secretsDir: join(root, "secrets") }),
    );
    const env = { ...scaledEnv(models[0], fake.adminToken, join(root, "state")), GITLAB_REQUESTS_PER_MINUTE: String(REQUESTS_PER_MINUTE) };
    const onboard = (flags: { prune?: true; dryRun?: true } = {}) => async () => {
      const result = await runOnboardCells({ runnerModels: models, env, log: () => {}, ...flags });
      if (result.exitCode !== 0) throw new Error(`onboard failed: ${result.cells.flatMap((cell) => cell.problems).slice(0, 3).join("; ")}`);
      return result.requests;
    };
    const status = async () => {
      const report = await runStatus({ runnerModels: models.map((model) => ({ file: model.cell.id, model })), env, log: () => {} });
      // No VM runs here, so every shard needs attention for its managers; what matters is that each was found.
      const unfound = report.cells.flatMap((cell) => cell.shards.filter((shard) => shard.runnerId === undefined));
      if (unfound.length > 0) throw new Error(`status found no runner for ${unfound.length} shard(s)`);
      return report.requests;
    };
    const measured: Record<Command, Measured> = {
      first: await measure(fake, onboard()),
      noop: await measure(fake, onboard()),
      status: await measure(fake, status),
      prune: await measure(fake, onboard({ prune: true, dryRun: true })),
    };
    return COMMANDS.map((command) => {
      const budget = budgetOf(command, benchCase);
      return { benchCase, command, measured: measured[command], budget, ok: measured[command].requests <= budget };
    });
  } finally {
    await fake.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

async function measure(fake: FakeGitLab, run: () => Promise<RequestTally>): Promise<Measured> {
  const before = { requests: fake.requests.length, throttled: fake.throttled };
  const started = process.hrtime.bigint();
  const tally = await run();
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { requests: fake.requests.length - before.requests, wallMs, tally, throttled: fake.throttled - before.throttled };
}

/** The most requests a command may make (see the top of the file). */
export function budgetOf(command: Command, { shards, cells, unrelated }: GitLabBenchCase): number {
  const listingPages = Math.max(1, Math.ceil((unrelated + shards) / 100));
  // Each cell: the listing, the tag listing and the listing after its creates (prune: its three listings by type).
  const listings = cells * 3 * listingPages;
  const reads = command === "first" ? unrelated / 10 : command === "prune" ? unrelated : 0;
  return REQUESTS_PER_SHARD[command] * shards + listings + reads;
}

/** The figures table, as the README shows it. */
export function formatGitLabBench(rows: readonly GitLabBenchRow[]): string[] {
  const lines = [
    "| shards | cells | unrelated runners | command | requests | per shard | budget | wall time | waiting for the rate | 429s |",
    "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const { benchCase, command, measured, budget, ok } of rows) {
    lines.push(
      `| ${benchCase.shards} | ${benchCase.cells} | ${benchCase.unrelated} | ${LABELS[command]} | ${measured.requests} | ${(measured.requests / benchCase.shards).toFixed(1)} | ${budget}${ok ? "" : " OVER"} | ` +
        `${(measured.wallMs / 1000).toFixed(1)} s | ${(measured.tally.paceWaitMs / 1000).toFixed(1)} s | ${measured.throttled} |`,
    );
  }
  return lines;
}
