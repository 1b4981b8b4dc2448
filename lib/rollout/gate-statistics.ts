/**
 * The two tests a gate applies, kept small enough for a reviewer to redo by hand; every number a
 * decision used is returned, so the job log shows it.
 *
 * Failures: the wave's share of jobs that failed for a runner reason (failure_reason in the policy's
 * list) against the baseline's. The signal fails when both hold:
 *   1. the wave's rate is above baseline rate x max_ratio + margin (a rise that matters), and
 *   2. a one-sided two-proportion z-test (pooled standard error) puts the rise above the normal
 *      quantile of `confidence` (a rise that is not chance): z = (p_w - p_b) / sqrt(p (1 - p) (1/n_w + 1/n_b)),
 *      p the pooled rate (f_w + f_b) / (n_w + n_b).
 * Queue: the policy's percentile of queued_duration (seconds a job waited for a runner) of the wave's
 * jobs against the baseline's; fails above baseline x max_ratio + margin. No test of significance:
 * the percentile of at least `bake.jobs` jobs, compared with a ratio and a margin.
 */

export interface FailureCounts {
  readonly jobs: number;
  readonly failures: number;
}

export interface FailureSignal {
  readonly wave: FailureCounts & { readonly rate: number };
  readonly baseline: FailureCounts & { readonly rate: number };
  /** baseline.rate x maxRatio + margin */
  readonly threshold: number;
  readonly z: number;
  readonly zCritical: number;
  readonly failed: boolean;
}

export function failureSignal(wave: FailureCounts, baseline: FailureCounts, settings: { readonly max_ratio: number; readonly margin: number; readonly confidence: number }): FailureSignal {
  const rate = (counts: FailureCounts) => (counts.jobs === 0 ? 0 : counts.failures / counts.jobs);
  const pw = rate(wave);
  const pb = rate(baseline);
  const pooled = (wave.failures + baseline.failures) / Math.max(1, wave.jobs + baseline.jobs);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / Math.max(1, wave.jobs) + 1 / Math.max(1, baseline.jobs)));
  // No failure anywhere (se 0): no rise to test.
  const z = se === 0 ? 0 : (pw - pb) / se;
  const threshold = pb * settings.max_ratio + settings.margin;
  const zCritical = normalQuantile(settings.confidence);
  return { wave: { ...wave, rate: pw }, baseline: { ...baseline, rate: pb }, threshold, z, zCritical, failed: pw > threshold && z > zCritical };
}

export interface QueueSignal {
  readonly percentile: number;
  /** Seconds. */
  readonly wave: number;
  readonly baseline: number;
  readonly threshold: number;
  readonly failed: boolean;
}

export function queueSignal(wave: readonly number[], baseline: readonly number[], settings: { readonly percentile: number; readonly max_ratio: number; readonly marginSeconds: number }): QueueSignal {
  const waveValue = percentile(wave, settings.percentile);
  const baselineValue = percentile(baseline, settings.percentile);
  const threshold = baselineValue * settings.max_ratio + settings.marginSeconds;
  return { percentile: settings.percentile, wave: waveValue, baseline: baselineValue, threshold, failed: waveValue > threshold };
}

/** Nearest-rank percentile (the smallest value with at least p % of the values at or below it); 0 for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/** The standard normal's quantile, by bisection on its CDF (erf by Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
export function normalQuantile(probability: number): number {
  let low = -10;
  let high = 10;
  for (let step = 0; step < 100; step += 1) {
    const middle = (low + high) / 2;
    if (normalCdf(middle) < probability) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

export function normalCdf(x: number): number {
  return 0.5 * (1 + erf(x / Math.SQRT2));
}

function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496735) * t + 0.254829592) * t * Math.exp(-x * x);
  return sign * y;
}
