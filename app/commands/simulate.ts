/**
 * `simulate`: replays a job load against a model's autoscaling and reports, per shard, the queue
 * wait, the instance-hours and their cost (lib/simulate/). The load is a trace CSV (--trace), the
 * synthetic week (--synthetic office-week), or GitLab's record of the fleet's jobs (--export writes it
 * first). The report goes to stdout (--json for a machine), progress on long runs to stderr.
 */
import { writeFileSync } from "node:fs";
import { Option, type Command } from "commander";
import { cliCommand, jsonOption, modelsDirOption, modelsOption, withDefault } from "../cli/options";
import type * as SimulateOptionsModule from "./simulate-options";
import type * as SimulateExportModule from "./simulate-export";
import type { SimulateCliOptions } from "./simulate-options";
import { loadModelFile } from "../../lib/model/load";
import { modelsDir, resolveModelArgument } from "../../lib/model/model-files";
import type { RunnerModel } from "../../lib/model/schema";
import { DEFAULT_BOOT_SECONDS, DEFAULT_CHECK_INTERVAL_SECONDS, DEFAULT_DELETE_SECONDS } from "../../lib/simulate/fleet-config";
import { formatSimulationReport } from "../../lib/simulate/format-report";
import { adviseIdleCounts, type PeriodAdvice } from "../../lib/simulate/idle-count-advice";
import type { JobTrace } from "../../lib/simulate/job-trace";
import { formatTraceCsv, readTraceFile } from "../../lib/simulate/read-trace";
import { selectShards, simulateModel, type SimulateOptions, type SimulationReport } from "../../lib/simulate/simulate-model";
import { syntheticTraceFor } from "../../lib/simulate/model-synthetic-week";
import { DEFAULT_JOBS_PER_SHARD, DEFAULT_SEED, DEFAULT_SYNTHETIC_START, SYNTHETIC_PROFILES } from "../../lib/simulate/synthetic-week";
import { chartSeries, mermaidWeekChart, svgWeekChart } from "../../lib/simulate/week-chart";
import { workspaceDir } from "../../lib/files/workspace";

export const DEFAULT_TARGET_WAIT = "30s";
/** Above this many jobs a run reports its progress on stderr. */
const PROGRESS_ABOVE_JOBS = 100_000;

export interface SimulateRun {
  readonly report: SimulationReport;
  readonly advice: readonly PeriodAdvice[];
  readonly targetWaitSeconds: number;
}

export interface RunSimulateOptions extends SimulateCliOptions {
  /** Progress lines. @default stderr */
  readonly log?: (line: string) => void;
  /** A model already loaded (tests), instead of --model's file. */
  readonly runnerModel?: RunnerModel;
  /** Loads a trace from GitLab for --export instead of the model's GitLab (tests). */
  readonly exportTrace?: (model: RunnerModel) => Promise<JobTrace>;
  /** For --export: the model's token variable. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

export async function runSimulate(options: RunSimulateOptions): Promise<SimulateRun> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const model = options.runnerModel ?? loadModelFile(resolveModelArgument(options.model, modelsDir(options.modelsDir)), { workspace: workspaceDir(options.modelsDir) }).model;
  // Refused before anything is read from GitLab or written.
  selectShards(model, options.shards);
  // An export is simulated over the window it was read for (whole minutes), not only the hours its jobs fill.
  const window = options.load.kind === "export" ? gitlabExport().exportWindow({ fromSeconds: options.fromSeconds, toSeconds: options.toSeconds }) : undefined;
  const trace = await loadTrace(model, { ...options, log, ...(window ? { fromSeconds: window.fromSeconds, toSeconds: window.toSeconds } : {}) });
  if (options.out) writeFileSync(options.out, formatTraceCsv(trace));
  const simulateOptions: SimulateOptions = {
    shards: options.shards,
    bootSeconds: options.bootSeconds,
    deleteSeconds: options.deleteSeconds,
    checkIntervalSeconds: options.checkIntervalSeconds,
    fromSeconds: window ? Math.floor(window.fromSeconds / 60) * 60 : options.fromSeconds,
    toSeconds: window ? window.toSeconds : options.toSeconds,
    spotInterruptionsPerHour: options.spotInterruptionsPerHour,
    seed: options.seed,
    ...(trace.count > PROGRESS_ABOVE_JOBS ? { onShard: (name: string, index: number, total: number) => log(`simulated shard ${name} (${index + 1}/${total})`) } : {}),
  };
  const report = simulateModel(model, trace, simulateOptions);
  if (options.advice && trace.count > PROGRESS_ABOVE_JOBS) log(`working out idle_count advice (target p95 ${options.targetWaitSeconds} s)`);
  const advice = options.advice ? adviseIdleCounts(model, trace, options.targetWaitSeconds, { ...simulateOptions, onShard: undefined }) : [];
  if (options.chart) writeFileSync(options.chart, renderChartFile(options.chart, report));
  return { report, advice, targetWaitSeconds: options.targetWaitSeconds };
}

/** GitLab's client (and gitbeaker) is loaded only for --export: a simulation of a file does not pay for it. */
function gitlabExport(): typeof SimulateExportModule {
  return require("./simulate-export") as typeof SimulateExportModule;
}

async function loadTrace(model: RunnerModel, options: RunSimulateOptions): Promise<JobTrace> {
  if (options.load.kind === "trace") return readTraceFile(options.load.file);
  if (options.load.kind === "synthetic") return syntheticTraceFor(model, { seed: options.seed, jobs: options.jobs, timezone: options.timezone, startDate: options.startDate });
  return options.exportTrace ? options.exportTrace(model) : gitlabExport().exportFromGitLab(model, { fromSeconds: options.fromSeconds, toSeconds: options.toSeconds, env: options.env, log: options.log ?? ((line) => process.stderr.write(`${line}\n`)) });
}

/** An SVG, or Markdown with a Mermaid chart per shard when the file ends in .md. */
function renderChartFile(file: string, report: SimulationReport): string {
  const series = chartSeries(report);
  if (file.endsWith(".md")) return `${series.map(mermaidWeekChart).join("\n\n")}\n`;
  return svgWeekChart(series);
}

/** The report as --json prints it: the hourly series stay for charts. */
export function simulationJson(run: SimulateRun): string {
  return `${JSON.stringify({ ...run.report, target_wait_seconds: run.targetWaitSeconds, advice: run.advice }, null, 2)}\n`;
}

export function simulateCommand(): Command {
  return cliCommand("simulate")
    .description("Replay a job load against a model's autoscaling: queue wait, instance-hours and cost per shard.")
    .addOption(modelsOption())
    .addOption(modelsDirOption())
    .addOption(new Option("--trace <file>", "job trace CSV: created_at, duration, tags[, queued_duration]"))
    .addOption(new Option("--synthetic <profile>", "simulate the synthetic week instead of a trace").choices(SYNTHETIC_PROFILES))
    .option("--export", "read the fleet's jobs from GitLab (the model's token), write them to --out, and simulate them")
    .addOption(new Option("--shard <name>", "simulate only this shard (repeatable)").argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]).default([]))
    .addOption(withDefault(new Option("--boot-time <duration>", "from an instance's creation until it takes a job"), `${DEFAULT_BOOT_SECONDS.aws}s on AWS, ${DEFAULT_BOOT_SECONDS.google}s on Google Cloud`))
    .addOption(withDefault(new Option("--delete-time <duration>", "from taskscaler removing an instance until the cloud has deleted it (counted toward max_instances and billed meanwhile)"), `${DEFAULT_DELETE_SECONDS.aws}s`))
    .addOption(withDefault(new Option("--check-interval <duration>", "the runner's check_interval: how often a manager asks GitLab for jobs"), `${DEFAULT_CHECK_INTERVAL_SECONDS}s`, `${DEFAULT_CHECK_INTERVAL_SECONDS}s`))
    .addOption(withDefault(new Option("--from <time>", "leave out jobs created before (RFC 3339 or Unix seconds)"), "the first job's hour; --export: 7 days before --to"))
    .addOption(withDefault(new Option("--to <time>", "leave out jobs created from then on"), "the end of the last job's hour; --export: now"))
    .addOption(withDefault(new Option("--seed <n>", "seed of the synthetic week and of spot lifetimes"), String(DEFAULT_SEED), String(DEFAULT_SEED)))
    .addOption(withDefault(new Option("--spot-interruptions <per-hour>", "spot workers' reclaims per instance-hour; their jobs are retried"), "0", "0"))
    .addOption(withDefault(new Option("--jobs <n>", "jobs of the synthetic week"), `${DEFAULT_JOBS_PER_SHARD} per shard`))
    .addOption(withDefault(new Option("--timezone <zone>", "office hours' zone of the synthetic week"), "the zone of the model's first policy not in UTC"))
    .addOption(withDefault(new Option("--start-date <date>", "Monday the synthetic week starts (YYYY-MM-DD)"), DEFAULT_SYNTHETIC_START))
    .addOption(new Option("--out <file>", "write the load simulated (or exported) as a trace CSV"))
    .addOption(new Option("--chart <file>", "write the week's chart per shard: SVG, or Markdown with Mermaid charts for a .md file"))
    .addOption(withDefault(new Option("--target-wait <duration>", "p95 wait the idle_count advice aims under"), DEFAULT_TARGET_WAIT, DEFAULT_TARGET_WAIT))
    .option("--no-advice", "skip the idle_count advice (it simulates each policy several times)")
    .addOption(jsonOption())
    .addHelpText(
      "after",
      "\nA job goes to the first shard (in the model's order) whose tags include all of its tags; an untagged job only to a\n" +
        "shard with run_untagged. Jobs no shard takes are counted, not simulated. See docs/operations/simulate.md.\n" +
        "Exit codes: 0 done, 1 GitLab failed (--export), 2 invalid model, trace or usage.",
    )
    .action(async (flags: { json?: boolean }, command: Command) => {
      const { parseSimulateOptions } = require("./simulate-options") as typeof SimulateOptionsModule;
      const run = await runSimulate(parseSimulateOptions(command));
      process.stdout.write(flags.json ? simulationJson(run) : formatSimulationReport(run.report, run.advice, run.targetWaitSeconds));
    });
}
