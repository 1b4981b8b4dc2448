/** The gate's arithmetic, checked against values worked by hand (and a normal table). */
import { failureSignal, normalQuantile, percentile, queueSignal } from "../../lib/rollout/gate-statistics";

const settings = { max_ratio: 2, margin: 0.005, confidence: 0.99 };

describe("gate statistics", () => {
  it("the normal quantiles of a table: 1.645 (95 %), 2.326 (99 %)", () => {
    expect(normalQuantile(0.95)).toBeCloseTo(1.645, 3);
    expect(normalQuantile(0.99)).toBeCloseTo(2.326, 3);
  });

  it("fails a five-fold rise over enough jobs: 5 % of 400 against 1 % of 2000 (z = 5.70)", () => {
    const signal = failureSignal({ jobs: 400, failures: 20 }, { jobs: 2000, failures: 20 }, settings);
    // pooled 40/2400; se = sqrt(0.01667 x 0.98333 x (1/400 + 1/2000)) = 0.00701; z = 0.04 / 0.00701
    expect(signal.z).toBeCloseTo(5.70, 2);
    expect(signal.threshold).toBeCloseTo(0.025, 6);
    expect(signal.failed).toBe(true);
  });

  it("passes a rise that is chance: 2 failures of 100 against 1 % (above the ratio, not significant)", () => {
    const signal = failureSignal({ jobs: 100, failures: 3 }, { jobs: 1000, failures: 10 }, settings);
    expect(signal.wave.rate).toBeGreaterThan(signal.threshold);
    expect(signal.z).toBeLessThan(signal.zCritical);
    expect(signal.failed).toBe(false);
  });

  it("passes a significant rise too small to matter (under the ratio and margin)", () => {
    const signal = failureSignal({ jobs: 100_000, failures: 1_200 }, { jobs: 100_000, failures: 1_000 }, settings);
    expect(signal.z).toBeGreaterThan(signal.zCritical);
    expect(signal.failed).toBe(false);
  });

  it("no failure anywhere is no rise", () => {
    expect(failureSignal({ jobs: 200, failures: 0 }, { jobs: 200, failures: 0 }, settings)).toMatchObject({ z: 0, failed: false });
  });

  it("nearest-rank percentiles and the queue limit", () => {
    expect(percentile([5, 1, 4, 2, 3, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(percentile([], 90)).toBe(0);
    expect(queueSignal([100, 100], [10, 10], { percentile: 90, max_ratio: 1.5, marginSeconds: 30 })).toEqual({ percentile: 90, wave: 100, baseline: 10, threshold: 45, failed: true });
  });
});
