/**
 * GitLab at scale, for `npm run bench`: 10, 100 and 500 shards over 1, 10 and 50 cells,
 * against the test GitLab stand-in (test/support/fake-gitlab.ts) with a latency per request
 * and Rack::Attack's throttle, with and without 1000 runners of other teams on the instance
 * (every tenth sharing the cells' tag). For each: requests and wall time of the first run,
 * a no-op re-run, `status` and `onboard --prune --dry-run`. Cells run 4 at a time in one
 * process, sharing the instance's pacer, as `status` and `onboard --all` do.
 *
 * Those cases run at the bench's scaled pace. One more, a cell of 40 shards, runs at the
 * defaults a person gets (no --rate-limit) against GitLab's default throttle (7200 an hour):
 * what a no-op re-run of an ordinary cell costs in time.
 *
 * A benchmark, not a test: wall times depend on the machine, request counts do not. The
 * bench fails when a command's requests exceed its budget (budgetOf): a constant per shard
 * plus listing pages, and never a read of another team's runner (every runner of a cell
 * carries the cell's tag, lib/model/cell-tag.ts, and the listings filter by it).
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
/**
 * The client's default pace (lib/gitlab/request-pacer.ts: a burst of 600, then 100 a minute, against 7200 an hour)
 * scaled as the throttle is (counts by 1/3, time by 1/360): a burst of 200, then 12000 a minute; per window at most 200 + 2000.
 */
const BENCH_PACE = { requestsPerMinute: 12_000, burst: 200 } as const;
/** GitLab's authenticated API throttle when an administrator enables it with its defaults (application_settings, db/structure.sql). */
const GITLAB_DEFAULT_THROTTLE = { requests: 7200, periodSeconds: 3600 } as const;
const UNRELATED = 1000;

/** Requests per shard each command may make, besides listing pages and the reads named below. */
export const REQUESTS_PER_SHARD = { first: 1, noop: 3, status: 5, prune: 2 } as const;
type Command = keyof typeof REQUESTS_PER_SHARD;
const COMMANDS: readonly Command[] = ["first", "noop", "status", "prune"];

export interface GitLabBenchCase {
  readonly shards: number;
  readonly cells: number;
  readonly unrelated: number;
  /** "bench": the scaled throttle and pace above; "default": GitLab's default throttle and the client's default pacing. @default "bench" */
  readonly pacing?: "bench" | "default";
}

export const GITLAB_BENCH_CASES: readonly GitLabBenchCase[] = [
  { shards: 40, cells: 1, unrelated: 0, pacing: "default" },
  ...[10, 100, 500]
    .flatMap((shards) => [1, 10, 50].filter((cells) => cells <= shards).map((cells) => ({ shards, cells })))
    .flatMap((size) => [0, UNRELATED].map((unrelated) => ({ ...size, unrelated }))),
];

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
    const defaults = benchCase.pacing === "default";
    fake.rateLimit = defaults ? GITLAB_DEFAULT_THROTTLE : THROTTLE;
    seedUnrelatedRunners(fake, benchCase.unrelated);
    const perCell = benchCase.shards / benchCase.cells;
    const models: RunnerModel[] = Array.from({ length: benchCase.cells }, (_, index) =>
      scaledModel({ cellId: `cell-${index + 1}`, gitlabUrl: fake.url, shards: perCell, secretsDir: join(root, "secrets") }),
    );
    const env = scaledEnv(models[0], fake.adminToken, join(root, "state"));
    const pace = defaults ? undefined : BENCH_PACE;
    const onboard = (flags: { prune?: true; dryRun?: true } = {}) => async () => {
      const result = await runOnboardCells({ runnerModels: models, env, log: () => {}, pace, ...flags });
      if (result.exitCode !== 0) throw new Error(`onboard failed: ${result.cells.flatMap((cell) => cell.problems).slice(0, 3).join("; ")}`);
      return result.requests;
    };
    const status = async () => {
      const report = await runStatus({ runnerModels: models.map((model) => ({ file: model.cell.id, model })), env, log: () => {}, pace });
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

/**
 * The most requests a command may make: its constant per shard, plus listing pages: each
 * cell's runners listed by the cell's tag (a first run twice: before and after its creates),
 * the instance's whole listing where a command needs it (a first run, for runners from before
 * the tag; prune, by type), once per run for all cells. Nothing per runner of other teams.
 */
export function budgetOf(command: Command, { shards, cells, unrelated }: GitLabBenchCase): number {
  const pages = (runners: number) => Math.max(1, Math.ceil(runners / 100));
  const cellListings = cells * pages(shards / cells);
  const instanceListing = pages(unrelated + shards);
  const listings =
    command === "first" ? 2 * cellListings + instanceListing : command === "prune" ? cellListings + 2 * cells + instanceListing + 2 : cellListings;
  return REQUESTS_PER_SHARD[command] * shards + listings;
}

/** The figures table, as the README shows it: one row per case, each command's requests, per shard and wall time (OVER: past its budget). */
export function formatGitLabBench(rows: readonly GitLabBenchRow[]): string[] {
  const lines = [
    "| shards | cells | unrelated runners | pacing | first run | no-op re-run | status | --prune --dry-run | waiting for the rate | 429s |",
    "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const cases = [...new Set(rows.map((row) => row.benchCase))];
  for (const benchCase of cases) {
    const ofCase = COMMANDS.map((command) => rows.find((row) => row.benchCase === benchCase && row.command === command)!);
    const cells = ofCase.map(({ measured, ok, budget }) => {
      const over = ok ? "" : ` OVER budget ${budget}`;
      return `${measured.requests} (${(measured.requests / benchCase.shards).toFixed(1)}/shard), ${(measured.wallMs / 1000).toFixed(1)} s${over}`;
    });
    const throttled = ofCase.reduce((sum, row) => sum + row.measured.throttled, 0);
    const waitedMs = ofCase.reduce((sum, row) => sum + row.measured.tally.paceWaitMs, 0);
    const pacing = benchCase.pacing === "default" ? "default (GitLab: 7200/h)" : "bench (GitLab: 2400/10 s)";
    lines.push(`| ${benchCase.shards} | ${benchCase.cells} | ${benchCase.unrelated} | ${pacing} | ${cells.join(" | ")} | ${(waitedMs / 1000).toFixed(1)} s | ${throttled} |`);
  }
  return lines;
}
