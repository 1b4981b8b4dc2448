/**
 * The rollout policy of a models repository (`rollout.yaml` beside the models directory): in which
 * waves a change to several cells is applied, how long each wave bakes, and what the gate after a
 * wave compares before the next wave may start (docs/operations/rollouts.md).
 *
 * Why beside the models directory and not in it: every `*.yaml` in the models directory is a cell's
 * model (lib/model/model-files.ts listModelFiles, lib/review/changed-cells.ts modelCellOf).
 */
import { z } from "zod";
import { parseGoDurationSeconds } from "../model/duration";

const duration = z
  .string()
  .refine((text) => (parseGoDurationSeconds(text) ?? -1) > 0, { message: 'a positive duration such as "1h", "30m" or "90s"' });

const cellName = z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, { message: 'a cell id (a DNS label such as "cell-1")' });

export const waveSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, { message: 'a wave name of lowercase letters, digits and "-" such as "canary"' }).describe("Names the wave's gate job (gate:<name>)."),
    cells: z.array(cellName).min(1).optional().describe("These cells, when the change touches them."),
    count: z.number().int().min(1).optional().describe("This many of the cells not yet placed (in name order)."),
    share: z.number().gt(0).max(100).optional().describe("This percentage of the changed cells, rounded up, at least one."),
    labels: z.record(z.string(), z.string()).optional().describe("The cells whose cell.labels carry all of these (environment, region, ...)."),
  })
  .refine((wave) => [wave.cells, wave.count, wave.share, wave.labels].filter((selector) => selector !== undefined).length <= 1, {
    message: "at most one of cells, count, share or labels (none: every cell not yet placed)",
  })
  .describe("One wave. Without a selector it takes every cell not placed by the waves before it.");

export type WavePolicy = z.infer<typeof waveSchema>;

export const FAILURE_REASONS = ["runner_system_failure", "stuck_or_timeout_failure", "scheduler_failure"] as const;

export const rolloutPolicySchema = z
  .strictObject({
    waves: z
      .array(waveSchema)
      .min(1)
      .default([{ name: "canary", count: 1 }, { name: "ten-percent", share: 10 }, { name: "rest" }])
      .describe("The waves, in order. Cells no wave takes go in a last wave of their own."),
    bake: z
      .strictObject({
        duration: duration.default("1h").describe("Least time the wave's cells run the change before the gate judges."),
        jobs: z.number().int().min(1).default(100).describe("Least jobs the wave's cells took since the apply (and the baseline took) before the gate judges; whichever of duration and jobs comes later."),
        max_wait: duration.default("6h").describe("How long the gate waits for enough jobs; then it stops the rollout with \"not enough jobs to judge\"."),
        poll: duration.default("5m").describe("How often the waiting gate asks GitLab again."),
      })
      .default({ duration: "1h", jobs: 100, max_wait: "6h", poll: "5m" }),
    gates: z
      .strictObject({
        failures: z
          .strictObject({
            reasons: z.array(z.enum(FAILURE_REASONS)).min(1).default([...FAILURE_REASONS]).describe("failure_reason values that mean the runner, not the job, failed."),
            max_ratio: z.number().min(1).default(2).describe("The wave's failure rate may be at most this many times the baseline's ..."),
            margin: z.number().min(0).max(1).default(0.005).describe("... plus this absolute share (0.005: half a percentage point)."),
            confidence: z.number().gt(0.5).lt(1).default(0.99).describe("And the one-sided two-proportion z-test must find the rise significant at this level to fail the gate."),
          })
          .default({ reasons: [...FAILURE_REASONS], max_ratio: 2, margin: 0.005, confidence: 0.99 }),
        queue: z
          .strictObject({
            percentile: z.number().min(50).max(99).default(90).describe("Which percentile of queued_duration is compared."),
            max_ratio: z.number().min(1).default(1.5).describe("The wave's percentile may be at most this many times the baseline's ..."),
            margin: duration.default("30s").describe("... plus this much."),
          })
          .default({ percentile: 90, max_ratio: 1.5, margin: "30s" }),
      })
      .default({
        failures: { reasons: [...FAILURE_REASONS], max_ratio: 2, margin: 0.005, confidence: 0.99 },
        queue: { percentile: 90, max_ratio: 1.5, margin: "30s" },
      }),
    manual_promotion: z.array(cellName).default([]).describe("Cells never promoted automatically: the gate of a wave holding one waits for a person (promote:<wave>)."),
  })
  .describe("Rollout policy: waves, bake, gates.");

export type RolloutPolicy = z.infer<typeof rolloutPolicySchema>;

/** The policy when the repository has no rollout.yaml. */
export const DEFAULT_ROLLOUT_POLICY: RolloutPolicy = rolloutPolicySchema.parse({});

export function rolloutPolicyJsonSchemaText(): string {
  return `${JSON.stringify(z.toJSONSchema(rolloutPolicySchema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }), null, 2)}\n`;
}
