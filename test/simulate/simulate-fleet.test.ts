/**
 * The simulator against results that do not come from it: queueing theory for a fleet that does not
 * scale, boot times for one that scales from nothing, a trace worked out by hand, and the policy
 * switch at a period's edge across a daylight-saving change.
 */
import { simulateFleet } from "../../lib/simulate/simulate-fleet";
import { PolicyTimeline } from "../../lib/simulate/policy-timeline";
import { fleet, MONDAY, poissonLoad, policy } from "./fleet-fixture";

/** First-come-first-served with c servers, worked out directly: each job takes the server that frees first. */
function fcfsWaits(createdAt: Float64Array, duration: Float64Array, servers: number): number[] {
  const freeAt = new Array<number>(servers).fill(-Infinity);
  const waits: number[] = [];
  for (let job = 0; job < createdAt.length; job += 1) {
    let earliest = 0;
    for (let server = 1; server < servers; server += 1) if (freeAt[server] < freeAt[earliest]) earliest = server;
    const start = Math.max(createdAt[job], freeAt[earliest]);
    waits.push(start - createdAt[job]);
    freeAt[earliest] = start + duration[job];
  }
  return waits;
}

/** Erlang C: the mean wait in an M/M/c queue with arrival rate lambda and service rate mu. */
function erlangCMeanWait(lambda: number, mu: number, servers: number): number {
  const load = lambda / mu;
  let term = 1;
  let sum = 1;
  for (let k = 1; k < servers; k += 1) {
    term *= load / k;
    sum += term;
  }
  const last = (term * load) / servers;
  const rho = load / servers;
  const waitProbability = last / (1 - rho) / (sum + last / (1 - rho));
  return waitProbability / (servers * mu - lambda);
}

/** The jobs whose wait is not `expected`'s to the millisecond (toBeCloseTo(…, 3)), checked at once: an expect() per job costs microseconds each. */
function waitsFarFrom(waits: ArrayLike<number>, expected: readonly number[]): Array<{ job: number; wait: number; expected: number }> {
  return Array.from(waits).flatMap((wait, job) => (Math.abs(wait - expected[job]) < 0.0005 ? [] : [{ job, wait, expected: expected[job] }]));
}

const week = (hours = 24 * 7) => ({ startSeconds: MONDAY, endSeconds: MONDAY + hours * 3600 });

describe("a fixed fleet (idle capacity = max_instances, no use limit)", () => {
  it("is a first-come-first-served queue with c servers: every job's wait follows from the arrivals and durations", () => {
    const load = poissonLoad(3000, 1 / 40, 300, 11);
    const run = simulateFleet(fleet({ maxInstances: 8, policies: [policy({ idleCount: 8 })] }), load, week(40));
    // To the millisecond: the trace's times are Unix seconds, whose doubles hold about 0.2 microseconds.
    const expected = fcfsWaits(load.createdAt, load.duration, 8);
    expect(expected.filter((wait) => wait > 0).length).toBeGreaterThan(100);
    expect(waitsFarFrom(run.waitSeconds, expected)).toEqual([]);
    expect(run.instancesCreated).toBe(8);
  });

  it("is the same queue when its servers are spread over managers", () => {
    const load = poissonLoad(2000, 1 / 40, 300, 12);
    const run = simulateFleet(fleet({ managers: 2, maxInstances: 4, policies: [policy({ idleCount: 4 })] }), load, week(30));
    const expected = fcfsWaits(load.createdAt, load.duration, 8);
    expect(waitsFarFrom(run.waitSeconds, expected)).toEqual([]);
  });

  it("has the Erlang C mean wait under Poisson arrivals (within 10%)", () => {
    const servers = 10;
    const mu = 1 / 300;
    const lambda = 0.85 * servers * mu;
    const load = poissonLoad(150_000, lambda, 300, 5);
    const run = simulateFleet(fleet({ maxInstances: servers, policies: [policy({ idleCount: servers })] }), load, week(24 * 60));
    const mean = run.waitSeconds.reduce((sum, wait) => sum + wait, 0) / run.waitSeconds.length;
    const theory = erlangCMeanWait(lambda, mu, servers);
    expect(theory).toBeGreaterThan(60);
    expect(Math.abs(mean - theory) / theory).toBeLessThan(0.1);
  });

  it("waits on max_instances, not concurrent, when its slots are the ceiling", () => {
    const load = poissonLoad(500, 1 / 20, 300, 3);
    const run = simulateFleet(fleet({ maxInstances: 4, policies: [policy({ idleCount: 4 })] }), load, week(4));
    expect(run.waitedOnMaxInstances).toBe(Array.from(run.waitSeconds).filter((wait) => wait > 0).length);
    expect(run.waitedOnConcurrent).toBe(0);
    const bounded = simulateFleet(fleet({ concurrent: 2, maxInstances: 4, policies: [policy({ idleCount: 4 })] }), load, week(4));
    expect(bounded.waitedOnConcurrent).toBeGreaterThan(0);
    expect(bounded.waitedOnMaxInstances).toBe(0);
  });

  it("costs every instance for every hour of the window, busy or not", () => {
    const load = poissonLoad(100, 1 / 60, 100, 4);
    const run = simulateFleet(fleet({ managers: 2, maxInstances: 3, policies: [policy({ idleCount: 3 })] }), load, week(10));
    expect(run.instanceSeconds / 3600).toBeCloseTo(2 * 3 * 10, 6);
    const busy = Array.from(load.duration).reduce((sum, seconds) => sum + seconds, 0);
    expect(run.busyInstanceSeconds).toBeLessThanOrEqual(busy + 1e-6);
    expect(run.busyInstanceSeconds).toBeGreaterThan(busy * 0.5);
  });
});

describe("an empty fleet with max_use_count 1", () => {
  const hoursApart = () => {
    const createdAt = new Float64Array([1, 2, 3, 4, 5].map((hour) => MONDAY + hour * 3600 + 17));
    return { createdAt, duration: new Float64Array(5).fill(120) };
  };

  it("makes every job wait one boot time when its jobs are hours apart", () => {
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75 }), hoursApart(), week(7));
    expect(Array.from(run.waitSeconds)).toEqual([75, 75, 75, 75, 75]);
    expect(run.instancesCreated).toBe(5);
    // Each instance lives its boot and its one job, then is removed.
    expect(run.instanceSeconds).toBeCloseTo(5 * (75 + 120), 6);
    expect(run.busyInstanceSeconds).toBeCloseTo(5 * 120, 6);
  });

  it("adds at most one check_interval for the runner's next request for jobs", () => {
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75, checkIntervalSeconds: 3 }), hoursApart(), week(7));
    expect(Math.min(...run.waitSeconds)).toBeGreaterThanOrEqual(75);
    expect(Math.max(...run.waitSeconds)).toBeLessThanOrEqual(78);
    expect(Math.max(...run.pickupSeconds)).toBeLessThanOrEqual(3);
  });
});

describe("where a boot wait shows: GitLab's queued_duration or the job's log", () => {
  const twoAtOnce = () => ({ createdAt: new Float64Array([MONDAY + 600, MONDAY + 600]), duration: new Float64Array([120, 120]) });

  it("with idle scaling on, the runner takes a job only onto a running instance: the second job's boot is queue time", () => {
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75, policies: [policy({ idleCount: 1 })] }), twoAtOnce(), week(1));
    expect(Array.from(run.waitSeconds)).toEqual([0, 75]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 75]);
  });

  it("without idle scaling, the runner takes both at once and the boot follows the pickup", () => {
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75, policies: [policy({ idleCount: 0 })] }), twoAtOnce(), week(1));
    expect(Array.from(run.waitSeconds)).toEqual([75, 75]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 0]);
  });
});

describe("a small trace worked out by hand", () => {
  it("follows idle_count, max_use_count and max_instances step by step", () => {
    // One manager; slots of one job; an instance runs two jobs; two instances at most; one idle slot.
    // t=0    the fleet starts with A ready (idle_count 1). Job 1 (100 s) starts on A; A's slot is
    //        taken, so B is created for the idle slot (ready at 60).
    // t=10   job 2 (50 s): no running instance has a free slot (B boots), so the runner, which reserves
    //        capacity first (idle_count > 0), does not take it yet; at 60 B is ready: job 2 is taken and starts (waits 50).
    // t=70   job 3 (10 s): both instances busy and max_instances reached; it waits.
    // t=100  job 1 ends; A has a use left: job 3 starts on A (waits 30). A has run its two jobs.
    // t=110  jobs 2 and 3 end; A is removed (max_use_count); B stays as the idle slot to the end.
    const createdAt = new Float64Array([0, 10, 70].map((second) => MONDAY + second));
    const duration = new Float64Array([100, 50, 10]);
    const run = simulateFleet(
      fleet({ maxUseCount: 2, maxInstances: 2, bootSeconds: 60, policies: [policy({ idleCount: 1, idleTimeSeconds: 600 })] }),
      { createdAt, duration },
      week(1),
    );
    expect(Array.from(run.waitSeconds)).toEqual([0, 50, 30]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 50, 30]);
    expect(run.waitedOnMaxInstances).toBe(1);
    expect(run.instancesCreated).toBe(2);
    expect(run.instanceSeconds).toBeCloseTo(110 + 3600, 6);
    expect(run.busyInstanceSeconds).toBeCloseTo(110 + 50, 6);
    expect(run.hourlyDemand[0]).toBeCloseTo((100 + 100 + 40) / 3600, 9);
    expect(run.hourlyCapacity[0]).toBeCloseTo((110 + 3600) / 3600, 9);
  });

  it("removes idle instances past idle_time down to the idle target, and scale_factor keeps more while jobs run", () => {
    const createdAt = new Float64Array([0, 0, 0, 0].map((second) => MONDAY + second));
    const duration = new Float64Array([600, 600, 600, 600]);
    const config = fleet({ maxInstances: 10, bootSeconds: 30, policies: [policy({ idleCount: 1, idleTimeSeconds: 300, scaleFactor: 0.5, scaleFactorLimit: 3 })] });
    const run = simulateFleet(config, { createdAt, duration }, week(1));
    // 4 jobs in use: idle target max(1, min(ceil(4 x 0.5), 3)) = 2 idle slots, so at peak 6 instances.
    expect(run.peakInstances).toBe(6);
    // After the jobs (t=630 at the latest), the idle ones go once idle 300 s, down to 1 by t=960 or so:
    // the last hour's capacity is far below 6 x 3600.
    expect(run.hourlyCapacity[0]).toBeLessThan(3);
  });
});

describe("the policy switch at a period's edge in a time zone with daylight saving", () => {
  // Europe/Amsterdam moved from UTC+1 to UTC+2 at 2024-03-31 01:00 UTC.
  const start = Date.UTC(2024, 2, 30) / 1000;
  const policies = [policy({ idleCount: 0, idleTimeSeconds: 60 }), policy({ periods: ["* 8-17 * * *"], timezone: "Europe/Amsterdam", idleCount: 5, idleTimeSeconds: 60 })];

  it("starts office hours at 07:00 UTC before the change and 06:00 UTC after it", () => {
    const timeline = new PolicyTimeline(policies, start);
    const minute = (day: number, hour: number, min: number) => day * 1440 + hour * 60 + min;
    expect(timeline.at(minute(0, 6, 59))).toBe(0);
    expect(timeline.at(minute(0, 7, 0))).toBe(1);
    expect(timeline.at(minute(0, 16, 59))).toBe(1);
    expect(timeline.at(minute(0, 17, 0))).toBe(0);
    expect(timeline.at(minute(1, 5, 59))).toBe(0);
    expect(timeline.at(minute(1, 6, 0))).toBe(1);
    expect(timeline.at(minute(1, 15, 59))).toBe(1);
    expect(timeline.at(minute(1, 16, 0))).toBe(0);
  });

  it("keeps the idle fleet from the period's first minute to its last, in local time", () => {
    const run = simulateFleet(fleet({ bootSeconds: 60, policies }), { createdAt: new Float64Array(0), duration: new Float64Array(0) }, { startSeconds: start, endSeconds: start + 48 * 3600 });
    const capacity = Array.from(run.hourlyCapacity);
    expect(capacity[6]).toBe(0);
    expect(capacity[7]).toBeCloseTo(5, 9);
    expect(capacity[16]).toBeCloseTo(5, 9);
    expect(capacity[17]).toBe(0);
    expect(capacity[24 + 5]).toBe(0);
    expect(capacity[24 + 6]).toBeCloseTo(5, 9);
    expect(capacity[24 + 15]).toBeCloseTo(5, 9);
    expect(capacity[24 + 16]).toBe(0);
  });
});

describe("determinism", () => {
  it("gives the same result for the same load and fleet", () => {
    const load = poissonLoad(2000, 1 / 30, 300, 9);
    const config = fleet({ managers: 2, maxUseCount: 1, maxInstances: 20, checkIntervalSeconds: 3, policies: [policy({ idleCount: 2 })] });
    const first = simulateFleet(config, load, week(20));
    const second = simulateFleet(config, load, week(20));
    expect(Array.from(second.waitSeconds)).toEqual(Array.from(first.waitSeconds));
    expect(second.instanceSeconds).toBe(first.instanceSeconds);
  });
});

describe("spot workers with an interruption rate", () => {
  it("retries the jobs of a reclaimed instance, counting their waits over both attempts", () => {
    // A fixed fleet of one instance, reclaimed after a lifetime of mean 1 h: a 4 h job is certain to meet reclaims.
    const config = fleet({ maxInstances: 1, bootSeconds: 60, policies: [policy({ idleCount: 1 })], spotInterruptionsPerHour: 1, seed: 3 });
    const load = { createdAt: new Float64Array([MONDAY + 60]), duration: new Float64Array([4 * 3600]) };
    const run = simulateFleet(config, load, week(48));
    expect(run.spotInterruptions).toBeGreaterThan(1);
    expect(run.jobsInterrupted).toBeGreaterThan(0);
    // Each retry waits at least one boot (the replacement instance); the first attempt started at once.
    expect(run.waitSeconds[0]).toBeGreaterThanOrEqual(60 * run.jobsInterrupted);
    // The instance-hours include the lost attempts: more busy time than the job's own duration.
    expect(run.busyInstanceSeconds).toBeGreaterThan(4 * 3600);
  });

  it("is the same run for the same seed, and no reclaim without a rate", () => {
    const load = poissonLoad(300, 1 / 60, 600, 21);
    const spot = fleet({ maxInstances: 20, maxUseCount: 1, policies: [policy({ idleCount: 2 })], spotInterruptionsPerHour: 0.5, seed: 9 });
    const first = simulateFleet(spot, load, week(6));
    const again = simulateFleet(spot, load, week(6));
    expect(again.jobsInterrupted).toBe(first.jobsInterrupted);
    expect(Array.from(again.waitSeconds)).toEqual(Array.from(first.waitSeconds));
    expect(first.jobsInterrupted).toBeGreaterThan(0);
    const steady = simulateFleet({ ...spot, spotInterruptionsPerHour: 0 }, load, week(6));
    expect(steady.spotInterruptions).toBe(0);
    expect(steady.jobsInterrupted).toBe(0);
  });
});
