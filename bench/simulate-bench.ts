/**
 * `npm run bench` (after synth-bench, bench/run-all.ts): a week of one million jobs across 10 shards through
 * `simulate`, against its budget: under 5 s. Measured as CPU time (user + system) of this process
 * for each step, which the load of other processes on a shared machine changes far less than wall
 * time; wall time is shown beside it. The steps: the synthetic week, the trace written and read back
 * as CSV (what --trace does), and the simulation of every shard. Exits 1 over budget.
 *
 *   node dist/bench/simulate-bench.js [--jobs 1000000] [--shards 10]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { formatTraceCsv, readTraceFile } from "../lib/simulate/read-trace";
import { simulateModel } from "../lib/simulate/simulate-model";
import { syntheticWeek } from "../lib/simulate/synthetic-week";
import type { RunnerModel } from "../lib/model/schema";
import { loadModelFile } from "../lib/model/load";
import { PROJECT_ROOT } from "../lib/files/project-root";

export const SIMULATE_BUDGET_SECONDS = 5;

interface Step {
  readonly name: string;
  readonly cpuMs: number;
  readonly wallMs: number;
}

function measure<T>(name: string, steps: Step[], work: () => T): T {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = work();
  const used = process.cpuUsage(cpu);
  steps.push({ name, cpuMs: (used.user + used.system) / 1000, wallMs: Number(process.hrtime.bigint() - started) / 1e6 });
  return result;
}

/** cell-1's first shard, repeated with tags of its own: shards sized for a tenth of the load each, scaling with it. */
export function benchModel(shards: number): RunnerModel {
  const model = structuredClone(loadModelFile(join(PROJECT_ROOT, "models", "cell-1.yaml")).model);
  const template = model.shards[0];
  model.shards = Array.from({ length: shards }, (_, index) => ({
    ...structuredClone(template),
    name: `shard-${index}`,
    tags: [`bench-${index}`],
    run_untagged: false,
    managers: { ...template.managers, concurrent: 400 },
    workers: { ...template.workers, max_instances: 400 },
    // Idle capacity that grows with the load (scale_factor 1): the nightly batch is taken within a few boots.
    autoscaling: { policies: template.autoscaling.policies.map((policy) => ({ ...policy, idle_count: 20, scale_factor: 1, scale_factor_limit: undefined })) },
  }));
  return model;
}

function main(): void {
  const { values } = parseArgs({ options: { jobs: { type: "string", default: "1000000" }, shards: { type: "string", default: "10" } } });
  const jobs = Number(values.jobs);
  const shardCount = Number(values.shards);
  const model = benchModel(shardCount);
  const steps: Step[] = [];
  const trace = measure("synthetic week", steps, () =>
    syntheticWeek({ profile: "office-week", shards: model.shards.map((shard) => ({ tags: shard.tags, runUntagged: false, maxDurationSeconds: 3600 })), jobs, seed: 1, timezone: "Europe/Amsterdam" }),
  );
  const dir = mkdtempSync(join(tmpdir(), "simulate-bench-"));
  try {
    const file = join(dir, "week.csv");
    measure("trace written as CSV", steps, () => writeFileSync(file, formatTraceCsv(trace)));
    const read = measure("trace read (--trace)", steps, () => readTraceFile(file));
    const report = measure("simulation", steps, () => simulateModel(model, read));
    const simulated = report.shards.reduce((sum, shard) => sum + shard.jobs, 0);
    const readAndSimulate = steps.filter((step) => step.name !== "synthetic week" && step.name !== "trace written as CSV").reduce((sum, step) => sum + step.cpuMs, 0);
    process.stdout.write(`\nsimulate: ${simulated.toLocaleString("en-US")} jobs across ${shardCount} shards, a week\n`);
    for (const step of steps) process.stdout.write(`  ${step.name.padEnd(24)} cpu ${(step.cpuMs / 1000).toFixed(2)} s   wall ${(step.wallMs / 1000).toFixed(2)} s\n`);
    const ok = readAndSimulate / 1000 < SIMULATE_BUDGET_SECONDS;
    process.stdout.write(`  read + simulate          cpu ${(readAndSimulate / 1000).toFixed(2)} s: ${ok ? "within" : "OVER"} budget (< ${SIMULATE_BUDGET_SECONDS} s)\n`);
    const worst = report.shards.reduce((max, shard) => Math.max(max, shard.wait_seconds.p95), 0);
    process.stdout.write(`  (worst shard p95 wait ${worst.toFixed(1)} s; peak instances ${Math.max(...report.shards.map((shard) => shard.peak_instances))})\n`);
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) main();
