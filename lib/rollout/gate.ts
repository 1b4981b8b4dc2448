/**
 * The gate after a wave: waits for the bake (policy bake.duration and bake.jobs, whichever comes
 * later), then compares the wave's cells since their apply with a baseline, and says pass or stop.
 *
 * Baseline: the same cells at the same hours one week earlier (before the change), and the cells not
 * yet rolled over the same window as the wave (the change is not on them). Both are pooled.
 * Too few jobs (in the wave or the baseline) is its own outcome: the gate waits, polling, up to
 * bake.max_wait, then stops with "not enough jobs to judge"; it never passes for lack of evidence.
 * A wave with a cell in manual_promotion never passes by itself: it waits for a person's promotion.
 */
import { parseGoDurationSeconds } from "../model/duration";
import { failureSignal, queueSignal, type FailureSignal, type QueueSignal } from "./gate-statistics";
import type { RolloutPolicy } from "./policy-schema";

const WEEK_MS = 7 * 24 * 3600_000;

/** One finished job as the gate counts it (GitLab's job entity: status, failure_reason, queued_duration, created_at). */
export interface JobSample {
  readonly id: number;
  /** Milliseconds since the epoch (created_at). */
  readonly createdMs: number;
  readonly status: string;
  readonly failureReason: string | null;
  readonly queuedSeconds: number | null;
}

/** The jobs a cell's runners took, created in [fromMs, toMs), as GitLab lists them at `pollMs` (one poll reads each runner once). */
export type JobSource = (cell: string, fromMs: number, toMs: number, pollMs: number) => Promise<readonly JobSample[]>;

export interface Promotion {
  readonly user: string;
  readonly jobId?: number;
}

export interface GateInput {
  readonly wave: string;
  readonly cells: readonly string[];
  /** Cells of later waves: their jobs over the wave's window are part of the baseline. */
  readonly notYetRolled: readonly string[];
  /** When the wave's applies finished (the gate's start): the wave's window begins here. */
  readonly sinceMs: number;
  readonly policy: RolloutPolicy;
  /** Only a person promotes this wave (a cell of it is in manual_promotion). */
  readonly manual: boolean;
  readonly jobs: JobSource;
  /** A person's promotion of this wave, when there is one. */
  readonly promotion?: () => Promise<Promotion | undefined>;
  readonly clock: { readonly now: () => number; readonly sleep: (ms: number) => Promise<void> };
  readonly log: (line: string) => void;
}

export interface CellCounts {
  readonly cell: string;
  readonly jobs: number;
  readonly failures: number;
}

export interface GateJudgement {
  readonly windowMs: { readonly from: number; readonly to: number };
  readonly waveCells: readonly CellCounts[];
  readonly failures: FailureSignal;
  readonly queue: QueueSignal;
}

export type GateOutcome =
  | { readonly outcome: "pass"; readonly judgement: GateJudgement; readonly summary: string }
  | { readonly outcome: "promoted"; readonly promotion: Promotion; readonly summary: string }
  | { readonly outcome: "fail"; readonly judgement: GateJudgement; readonly summary: string }
  | { readonly outcome: "not-enough-jobs"; readonly judgement?: GateJudgement; readonly summary: string }
  | { readonly outcome: "waiting-for-promotion"; readonly summary: string };

export async function runGate(input: GateInput): Promise<GateOutcome> {
  const { policy, clock, log } = input;
  const bakeMs = seconds(policy.bake.duration) * 1000;
  const maxWaitMs = seconds(policy.bake.max_wait) * 1000;
  const pollMs = seconds(policy.bake.poll) * 1000;
  const deadline = input.sinceMs + maxWaitMs;
  log(
    `gate ${input.wave}: cells ${input.cells.join(", ")}; bake ${policy.bake.duration} and ${policy.bake.jobs} jobs (whichever is later), waiting at most ${policy.bake.max_wait}; ` +
      `baseline: the same cells one week earlier${input.notYetRolled.length > 0 ? ` and ${input.notYetRolled.length} cell(s) not yet rolled (${input.notYetRolled.join(", ")})` : ""}`,
  );
  if (input.manual) log(`gate ${input.wave}: automatic promotion is off for ${input.cells.filter((cell) => policy.manual_promotion.includes(cell)).join(", ")} (manual_promotion): waiting for a person`);
  let last: GateJudgement | undefined;
  for (;;) {
    const promotion = await input.promotion?.();
    if (promotion) return promoted(input.wave, promotion);
    const now = clock.now();
    if (!input.manual) {
      const baked = now - input.sinceMs >= bakeMs;
      last = await judge(input, now);
      const enough = last.failures.wave.jobs >= policy.bake.jobs && last.failures.baseline.jobs >= policy.bake.jobs;
      log(`gate ${input.wave}: ${formatMs(now - input.sinceMs)} since the apply; ${last.failures.wave.jobs} job(s) in the wave, ${last.failures.baseline.jobs} in the baseline${baked ? "" : " (still baking)"}`);
      if (baked && enough) return decide(input.wave, last, policy);
    }
    if (now + pollMs > deadline || now >= deadline) {
      if (input.manual) return { outcome: "waiting-for-promotion", summary: `gate ${input.wave}: no person promoted the wave within ${policy.bake.max_wait} (manual_promotion); the rollout stops here` };
      return {
        outcome: "not-enough-jobs",
        ...(last ? { judgement: last } : {}),
        summary:
          `gate ${input.wave}: not enough jobs to judge after ${policy.bake.max_wait}: ${last?.failures.wave.jobs ?? 0} job(s) in the wave and ${last?.failures.baseline.jobs ?? 0} in the baseline, ` +
          `${policy.bake.jobs} needed in each; the rollout stops here (promote:${input.wave} lets a person promote it anyway)`,
      };
    }
    await clock.sleep(pollMs);
  }
}

async function judge(input: GateInput, now: number): Promise<GateJudgement> {
  const reasons = new Set<string>(input.policy.gates.failures.reasons);
  const finished = (job: JobSample) => job.status === "success" || job.status === "failed";
  const isFailure = (job: JobSample) => job.status === "failed" && job.failureReason !== null && reasons.has(job.failureReason);
  // Last week's window first: its read reaches back furthest, and the wave's window then comes from the same pages.
  const lastWeek = await Promise.all(input.cells.map((cell) => input.jobs(cell, input.sinceMs - WEEK_MS, now - WEEK_MS, now)));
  const waveJobs = await Promise.all(input.cells.map(async (cell) => ({ cell, jobs: (await input.jobs(cell, input.sinceMs, now, now)).filter(finished) })));
  const unrolled = await Promise.all(input.notYetRolled.map((cell) => input.jobs(cell, input.sinceMs, now, now)));
  const baseline = [...lastWeek.flat(), ...unrolled.flat()].filter(finished);
  const wave = waveJobs.flatMap((entry) => entry.jobs);
  const count = (jobs: readonly JobSample[]) => ({ jobs: jobs.length, failures: jobs.filter(isFailure).length });
  const queued = (jobs: readonly JobSample[]) => jobs.map((job) => job.queuedSeconds).filter((value): value is number => value !== null);
  const queue = input.policy.gates.queue;
  return {
    windowMs: { from: input.sinceMs, to: now },
    waveCells: waveJobs.map((entry) => ({ cell: entry.cell, ...count(entry.jobs) })),
    failures: failureSignal(count(wave), count(baseline), input.policy.gates.failures),
    queue: queueSignal(queued(wave), queued(baseline), { percentile: queue.percentile, max_ratio: queue.max_ratio, marginSeconds: seconds(queue.margin) }),
  };
}

function decide(wave: string, judgement: GateJudgement, policy: RolloutPolicy): GateOutcome {
  const failed = [judgement.failures.failed ? "runner failures" : undefined, judgement.queue.failed ? "queue time" : undefined].filter((name): name is string => name !== undefined);
  const lines = describeJudgement(judgement, policy);
  if (failed.length === 0) return { outcome: "pass", judgement, summary: [`gate ${wave}: passed`, ...lines].join("\n") };
  return { outcome: "fail", judgement, summary: [`gate ${wave}: FAILED on ${failed.join(" and ")}; the rollout stops here, later waves do not apply`, ...lines].join("\n") };
}

/** The numbers the decision used, one signal a line, for the job log and the merge request note. */
export function describeJudgement(judgement: GateJudgement, policy: RolloutPolicy): string[] {
  const { failures, queue } = judgement;
  const settings = policy.gates.failures;
  const pct = (rate: number) => `${(rate * 100).toFixed(2)} %`;
  const times = failures.baseline.rate > 0 ? ` (${(failures.wave.rate / failures.baseline.rate).toFixed(1)}x the baseline)` : "";
  return [
    `  runner failures (${settings.reasons.join(", ")}): wave ${failures.wave.failures}/${failures.wave.jobs} = ${pct(failures.wave.rate)}${times}, ` +
      `baseline ${failures.baseline.failures}/${failures.baseline.jobs} = ${pct(failures.baseline.rate)}; ` +
      `limit ${pct(failures.threshold)} (baseline x ${settings.max_ratio} + ${pct(settings.margin)}); ` +
      `two-proportion z = ${failures.z.toFixed(2)} against ${failures.zCritical.toFixed(2)} (one-sided, ${settings.confidence * 100} %): ${failures.failed ? "FAILED" : "ok"}`,
    `  queue time p${queue.percentile} (queued_duration): wave ${queue.wave.toFixed(1)} s, baseline ${queue.baseline.toFixed(1)} s; ` +
      `limit ${queue.threshold.toFixed(1)} s (baseline x ${policy.gates.queue.max_ratio} + ${policy.gates.queue.margin}): ${queue.failed ? "FAILED" : "ok"}`,
    `  per cell since the apply: ${judgement.waveCells.map((cell) => `${cell.cell} ${cell.failures}/${cell.jobs}`).join(", ")}`,
  ];
}

function promoted(wave: string, promotion: Promotion): GateOutcome {
  return { outcome: "promoted", promotion, summary: `gate ${wave}: promoted by ${promotion.user}${promotion.jobId ? ` (job #${promotion.jobId})` : ""}, not judged` };
}

function seconds(duration: string): number {
  return parseGoDurationSeconds(duration) ?? 0;
}

function formatMs(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}
