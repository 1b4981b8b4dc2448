/**
 * `npm run bench` (after simulate-bench, bench/run-all.ts): the review of a runner bump across 100 cells,
 * against its budget: within 10 s on a two-core machine, and short enough to review (the same change in
 * every cell is one entry, lib/review/same-changes.ts). A copy of this checkout's tracked files with 100
 * generated cells (cell-2 under other names) is committed, every cell's runner_version is bumped and
 * committed again, and `runReview` compares the two commits as a merge request pipeline's review does
 * (the base synthesized in a worktree of its own). Wall time is the budget's measure, as a person waits
 * for it; this process's CPU time is shown beside it (the synthesis runs in worker threads and processes).
 *
 *   node dist/bench/review-bench.js [--cells 100]
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { runReview } from "../app/commands/review";
import { renderReviewText } from "../lib/review/render-review";
import { PROJECT_ROOT } from "../lib/files/project-root";

export const REVIEW_BUDGET_SECONDS = 10;
/** A fleet-wide change is reviewable when it reads in a screenful or two, not 22 lines a cell. */
export const REVIEW_LINE_BUDGET = 300;

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: dir, encoding: "utf8" });
}

/** A repository holding this checkout's tracked files and `cells` copies of cell-2, committed. */
function fleetRepository(cells: number): { dir: string; names: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "review-bench-"));
  git(dir, "init", "--quiet", "--initial-branch=main");
  git(dir, "config", "user.name", "bench");
  git(dir, "config", "user.email", "bench@example.invalid");
  const tracked = git(PROJECT_ROOT, "ls-files", "-z").split("\0").filter((path) => path !== "");
  for (const path of tracked) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    try {
      copyFileSync(join(PROJECT_ROOT, path), join(dir, path));
    } catch {
      // Deleted on disk but still tracked.
    }
  }
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  const template = readFileSync(join(PROJECT_ROOT, "models", "cell-2.yaml"), "utf8");
  const names = Array.from({ length: cells }, (_, index) => `fleet-${String(index + 1).padStart(3, "0")}`);
  for (const name of names) writeFileSync(join(dir, "models", `${name}.yaml`), template.replace(/cell-2/g, name));
  git(dir, "add", "--all");
  git(dir, "commit", "--quiet", "-m", `${cells} cells`);
  return { dir, names };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cells: { type: "string", default: "100" } } });
  const cells = Number(values.cells);
  const { dir, names } = fleetRepository(cells);
  try {
    for (const name of names) {
      const file = join(dir, "models", `${name}.yaml`);
      writeFileSync(file, readFileSync(file, "utf8").replace(/runner_version: \S+/, "runner_version: 19.6.0"));
    }
    git(dir, "commit", "--quiet", "-am", "runner 19.6.0 everywhere");
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    const { report, markdown } = await runReview({ cwd: dir, base: "HEAD~1", head: "HEAD" });
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    const text = renderReviewText(report);
    const lines = text.split("\n").length - 1;
    const ok = wallSeconds < REVIEW_BUDGET_SECONDS && lines <= REVIEW_LINE_BUDGET;
    process.stdout.write(`\nreview: a runner bump in ${cells} cells (${report.diff.summary.changed.length} changed)\n`);
    process.stdout.write(`  wall ${wallSeconds.toFixed(2)} s (this process's cpu ${((used.user + used.system) / 1e6).toFixed(2)} s); text ${lines} lines, note ${markdown.length.toLocaleString("en-US")} characters\n`);
    process.stdout.write(`  ${ok ? "within" : "OVER"} budget (< ${REVIEW_BUDGET_SECONDS} s, <= ${REVIEW_LINE_BUDGET} lines)\n`);
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`review-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
