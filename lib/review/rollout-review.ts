/**
 * The review's rollout part: how the merge would roll out, before it is merged. The waves of the changed
 * cells (lib/rollout/waves.ts, from rollout.yaml), each wave's gate and thresholds, the bake, and the
 * expected duration: per wave, the longest roll among its cells (cells of a wave apply in parallel) plus,
 * between waves, the bake (at least bake.duration; at most bake.max_wait when jobs are few).
 *
 * A cell's roll (lib/roll/roll-plan.ts): one phase per replaced manager slot, each as long as run-roll.ts waits
 * for it: the longest drain of the cell's shards (maximum_timeout plus the stop margin, lib/render/graceful-stop.ts
 * gracefulStopSeconds: a stopping manager gets SIGQUIT and that long to finish its jobs) plus the time a new manager
 * may take to boot and come online (lib/roll/run-roll.ts DEFAULT_ROLL_TIMING.bootMs).
 * A cell whose managers the change does not replace has no roll: its apply takes minutes.
 */
import { parseGoDurationSeconds } from "../model/duration";
import type { RunnerModel } from "../model/schema";
import { gracefulStopSeconds } from "../render/graceful-stop";
import { DEFAULT_ROLL_TIMING } from "../roll/run-roll";
import type { RolloutPolicy } from "../rollout/policy-schema";
import type { PlannedWave } from "../rollout/waves";

export interface RolloutWaveReview {
  readonly name: string;
  readonly cells: readonly string[];
  readonly manual: boolean;
  /** The longest roll of the wave's cells, worst case (ms). */
  readonly rollMs: number;
  /** Whether a gate follows the wave (every wave but the last). */
  readonly gated: boolean;
}

export interface RolloutReview {
  /** The policy file, or undefined for the defaults. */
  readonly policyFile?: string;
  readonly waves: readonly RolloutWaveReview[];
  readonly policy: RolloutPolicy;
  /** The whole rollout when every gate passes at the end of its bake, and when each waits to max_wait (ms). */
  readonly shortestMs: number;
  readonly longestMs: number;
}

export interface CellRollInput {
  readonly model?: RunnerModel;
  /** Replaced manager slots per shard, from the stack diff. */
  readonly replacedSlots: readonly { readonly replaced: readonly number[] }[];
}

/** Worst-case roll of one cell: phases x (longest maximum_timeout + boot). */
export function cellRollMs(input: CellRollInput): number {
  const phases = Math.max(0, ...input.replacedSlots.map((shard) => shard.replaced.length));
  if (phases === 0 || !input.model) return 0;
  const drainMs = Math.max(...input.model.shards.map((shard) => gracefulStopSeconds(shard) * 1000));
  return phases * (drainMs + DEFAULT_ROLL_TIMING.bootMs);
}

export function rolloutReview(waves: readonly PlannedWave[], policy: RolloutPolicy, policyFile: string | undefined, rollOf: (cell: string) => number): RolloutReview | undefined {
  if (waves.length < 2) return undefined;
  const reviewed = waves.map((wave, index) => ({ name: wave.name, cells: wave.cells, manual: wave.manual, rollMs: Math.max(0, ...wave.cells.map(rollOf)), gated: index < waves.length - 1 }));
  const rolls = reviewed.reduce((sum, wave) => sum + wave.rollMs, 0);
  const gates = reviewed.filter((wave) => wave.gated).length;
  const seconds = (text: string) => (parseGoDurationSeconds(text) ?? 0) * 1000;
  return {
    ...(policyFile ? { policyFile } : {}),
    waves: reviewed,
    policy,
    shortestMs: rolls + gates * seconds(policy.bake.duration),
    longestMs: rolls + gates * seconds(policy.bake.max_wait),
  };
}

export function rolloutMarkdown(review: RolloutReview): string[] {
  const { policy } = review;
  const failures = policy.gates.failures;
  const queue = policy.gates.queue;
  return [
    "",
    `#### Rollout: ${review.waves.length} waves (${review.policyFile ? "`rollout.yaml`" : "the default policy: no `rollout.yaml`"})`,
    "",
    "| wave | cells | roll (worst case) | then |",
    "| --- | --- | --- | --- |",
    ...review.waves.map((wave, index) => `| ${index + 1}. \`${wave.name}\` | ${cellList(wave.cells, (cell) => `\`${cell}\``)} | ${duration(wave.rollMs)} | ${thenText(wave, policy)} |`),
    "",
    `**Bake** before each gate: ${policy.bake.duration} and ${policy.bake.jobs} jobs in the wave (and in the baseline), whichever is later; with too few jobs the gate waits up to ${policy.bake.max_wait}, then stops the rollout (\"not enough jobs to judge\").`,
    `**Gates** against the same cells a week earlier and the cells not yet rolled: runner failures (${failures.reasons.join(", ")}) above baseline × ${failures.max_ratio} + ${(failures.margin * 100).toFixed(2)} % and significant (one-sided two-proportion z-test, ${failures.confidence * 100} %); queue time p${queue.percentile} above baseline × ${queue.max_ratio} + ${queue.margin}.`,
    `**Expected duration**: ${duration(review.shortestMs)} when every gate passes at the end of its bake, up to ${duration(review.longestMs)} when each waits for traffic.`,
  ];
}

export function rolloutText(review: RolloutReview): string[] {
  const { policy } = review;
  return [
    "",
    `rollout: ${review.waves.length} waves (${review.policyFile ? "rollout.yaml" : "default policy"}); ${duration(review.shortestMs)} to ${duration(review.longestMs)}`,
    ...review.waves.map((wave, index) => `  wave ${index + 1} ${wave.name}: ${cellList(wave.cells)}; ${wave.rollMs === 0 ? "no manager replaced" : `roll up to ${duration(wave.rollMs)}`}; then ${thenText(wave, policy).replace(/`/g, "")}`),
    `  bake ${policy.bake.duration} and ${policy.bake.jobs} jobs, whichever is later, waiting at most ${policy.bake.max_wait}; gates: runner failures > baseline x ${policy.gates.failures.max_ratio} + ${(policy.gates.failures.margin * 100).toFixed(2)} % (z-test ${policy.gates.failures.confidence * 100} %), queue p${policy.gates.queue.percentile} > baseline x ${policy.gates.queue.max_ratio} + ${policy.gates.queue.margin}`,
  ];
}

/** A wave's cells; a long wave (a fleet's "rest") by count and its first five, so a 100-cell change stays readable. */
function cellList(cells: readonly string[], show: (cell: string) => string = (cell) => cell): string {
  return cells.length > 6 ? `${cells.length} cells: ${cells.slice(0, 5).map(show).join(", ")}, …` : cells.map(show).join(", ");
}

function thenText(wave: RolloutWaveReview, policy: RolloutPolicy): string {
  if (!wave.gated) return "done";
  return wave.manual ? `gate \`gate:${wave.name}\`: waits for a person (manual_promotion), up to ${policy.bake.max_wait}` : `bake, then gate \`gate:${wave.name}\``;
}

function duration(ms: number): string {
  if (ms === 0) return "no roll";
  const minutes = Math.round(ms / 60_000);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h${minutes % 60 === 0 ? "" : ` ${minutes % 60} min`}` : `${minutes} min`;
}
