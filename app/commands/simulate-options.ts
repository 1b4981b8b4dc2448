/**
 * simulate's flags, parsed once. One load: --trace, --synthetic or --export. Loaded inside the action
 * (it imports zod): see app/cli/parse-options.ts.
 */
import type { Command } from "commander";
import { z } from "zod";
import { parseOptions } from "../cli/parse-options";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { parseTime } from "../../lib/simulate/read-trace";
import { SYNTHETIC_PROFILES, type SyntheticProfile } from "../../lib/simulate/synthetic-week";

export interface SimulateCliOptions {
  readonly model: string;
  readonly modelsDir?: string;
  readonly load: { readonly kind: "trace"; readonly file: string } | { readonly kind: "synthetic"; readonly profile: SyntheticProfile } | { readonly kind: "export" };
  readonly shards: readonly string[];
  readonly bootSeconds?: number;
  readonly deleteSeconds?: number;
  readonly checkIntervalSeconds: number;
  readonly fromSeconds?: number;
  readonly toSeconds?: number;
  readonly seed: number;
  /** Spot workers' reclaims per instance-hour. */
  readonly spotInterruptionsPerHour: number;
  readonly jobs?: number;
  readonly timezone?: string;
  readonly startDate?: string;
  /** Where the load simulated (or exported) is written as CSV. */
  readonly out?: string;
  readonly json: boolean;
  readonly chart?: string;
  readonly targetWaitSeconds: number;
  readonly advice: boolean;
}

const seconds = (what: string) =>
  z
    .string()
    .transform((text) => parseGoDurationSeconds(text.trim()) ?? (/^\d+(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : Number.NaN))
    .refine((value) => Number.isFinite(value) && value >= 0, { error: `must be ${what}: seconds or a Go duration such as "90s" or "2m"` });

const time = z
  .string()
  .transform((text) => parseTime(text.trim()) ?? Number.NaN)
  .refine((value) => Number.isFinite(value), { error: "must be an RFC 3339 time with an offset (2024-01-08T00:00:00Z) or Unix seconds" });

const wholeNumber = (min: number) =>
  z
    .string()
    .transform(Number)
    .refine((value) => Number.isInteger(value) && value >= min, { error: `must be a whole number from ${min}` });

const optionsSchema = z
  .strictObject({
    // One cell a run: the trace, --out and --chart belong to one cell's shards.
    model: z.array(z.string()).refine((models) => models.length === 1, {
      error: (issue) => {
        const models = issue.input as string[];
        return models.length === 0 ? "is required: the cell to simulate" : `simulate acts on one model; got ${models.map((model) => `--model ${model}`).join(" and ")} (run it once per model)`;
      },
    }),
    modelsDir: z.string().optional(),
    trace: z.string().optional(),
    synthetic: z.enum(SYNTHETIC_PROFILES, { error: `must be ${SYNTHETIC_PROFILES.join(", ")}` }).optional(),
    export: z.boolean().optional(),
    shard: z.array(z.string()),
    bootTime: seconds("a boot time").optional(),
    deleteTime: seconds("a deletion time").optional(),
    checkInterval: seconds("the runner's check_interval"),
    from: time.optional(),
    to: time.optional(),
    seed: wholeNumber(0),
    spotInterruptions: z
      .string()
      .transform(Number)
      .refine((value) => Number.isFinite(value) && value >= 0 && value <= 10, { error: "must be reclaims per instance-hour, from 0 to 10 (0.02: one in 50 hours)" }),
    jobs: wholeNumber(1).optional(),
    timezone: z
      .string()
      .refine(isTimeZone, { error: 'must be an IANA time zone such as "Europe/Amsterdam"' })
      .optional(),
    startDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a date, YYYY-MM-DD" })
      .optional(),
    out: z.string().optional(),
    json: z.boolean().optional(),
    chart: z.string().optional(),
    targetWait: seconds("a wait"),
    advice: z.boolean(),
  })
  .superRefine((flags, context) => {
    const loads = [flags.trace !== undefined && "--trace", flags.synthetic !== undefined && "--synthetic", flags.export === true && "--export"].filter(Boolean);
    if (loads.length !== 1) context.addIssue({ code: "custom", message: `needs one load: --trace <file>, --synthetic <profile> or --export${loads.length > 1 ? `; got ${loads.join(" and ")}` : ""}` });
    if (flags.synthetic === undefined) {
      const synthOnly = (["jobs", "timezone", "startDate"] as const).filter((key) => flags[key] !== undefined);
      if (synthOnly.length > 0) context.addIssue({ code: "custom", message: `${synthOnly.map((key) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`).join(" and ")} go with --synthetic` });
    }
    if (flags.from !== undefined && flags.to !== undefined && flags.to <= flags.from) context.addIssue({ code: "custom", message: "--to must be after --from" });
    if (flags.from !== undefined && flags.from % 60 !== 0) context.addIssue({ code: "custom", message: "--from must be a whole minute (the simulation's clock ticks by the minute)" });
    if (flags.export === true && flags.out === undefined) context.addIssue({ code: "custom", message: "--export writes the trace to the file --out names; add --out <file>" });
  })
  .transform(
    (flags): SimulateCliOptions => ({
      model: flags.model[0],
      modelsDir: flags.modelsDir,
      load: flags.trace !== undefined ? { kind: "trace", file: flags.trace } : flags.synthetic !== undefined ? { kind: "synthetic", profile: flags.synthetic } : { kind: "export" },
      shards: flags.shard,
      ...(flags.bootTime === undefined ? {} : { bootSeconds: flags.bootTime }),
      ...(flags.deleteTime === undefined ? {} : { deleteSeconds: flags.deleteTime }),
      checkIntervalSeconds: flags.checkInterval,
      ...(flags.from === undefined ? {} : { fromSeconds: flags.from }),
      ...(flags.to === undefined ? {} : { toSeconds: flags.to }),
      seed: flags.seed,
      spotInterruptionsPerHour: flags.spotInterruptions,
      ...(flags.jobs === undefined ? {} : { jobs: flags.jobs }),
      ...(flags.timezone === undefined ? {} : { timezone: flags.timezone }),
      ...(flags.startDate === undefined ? {} : { startDate: flags.startDate }),
      ...(flags.out === undefined ? {} : { out: flags.out }),
      json: flags.json === true,
      ...(flags.chart === undefined ? {} : { chart: flags.chart }),
      targetWaitSeconds: flags.targetWait,
      advice: flags.advice,
    }),
  );

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** simulate's options from its parsed command line; a UserInputError (exit 2) for a bad value. */
export function parseSimulateOptions(command: Command): SimulateCliOptions {
  return parseOptions(command, optionsSchema);
}
