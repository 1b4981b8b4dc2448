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

/*
 * The rules below are gitlab-runner v19.3.0's, read in its source:
 * - commands/multi.go processRunner: a job slot (limit, concurrent), then provider.Acquire, which is
 *   executors/internal/autoscaler/provider.go Acquire calling taskscaler Reserve, all before the job
 *   request: each request in flight holds a reservation, and the reserved slot is capacity taskscaler
 *   keeps or creates. The simulator keeps one request in flight per manager (REQUESTS_IN_FLIGHT).
 * - common/config.go AutoscalerPolicyConfig.PreemptiveModeEnabled: preemptive_mode when set, else
 *   idle_count > 0. Preemptive, a job is asked for only once a ready slot is reserved (the boot wait is
 *   GitLab queue time); not preemptive, the job is taken at once and waits for its instance after.
 * - runner docs, [runners.autoscaler] max_instances: "regardless of the instance state (pending,
 *   running, deleting)": a deleting instance counts, and is billed until the cloud has deleted it.
 */
describe("steady load at idle_count 0: the request in flight keeps one instance warm", () => {
  // One job at :30 of each hour, 300 s each; idle_time 600 s; boot 60 s; window 3 h.
  const hourly = () => ({ createdAt: new Float64Array([1800, 5400, 9000].map((second) => MONDAY + second)), duration: new Float64Array(3).fill(300) });
  const config = (deleteSeconds: number) => fleet({ bootSeconds: 60, deleteSeconds, policies: [policy({ idleCount: 0, idleTimeSeconds: 600 })] });

  it("starts every job at once on the reserved instance, and boots the next reservation's instance behind it", () => {
    // t=0     A ready: the manager's request in flight reserves a slot (idle_count 0 adds none).
    // t=1800  job 1 takes A at once (wait 0); the next request reserves again: B is created (ready 1860).
    // t=2100  job 1 ends; A and B are idle, one slot is wanted (the reservation).
    // t=2460  B, idle 600 s (since 1860), is removed: A still holds the reservation. A is kept to the end.
    // Each later hour the same: C from 5400 to 6060, D from 9000 to 9660.
    const run = simulateFleet(config(0), hourly(), week(3));
    expect(Array.from(run.waitSeconds)).toEqual([0, 0, 0]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 0, 0]);
    expect(run.instancesCreated).toBe(4);
    expect(run.instanceSeconds).toBeCloseTo(10_800 + 3 * 660, 6);
  });

  it("bills a removed instance until the cloud has deleted it", () => {
    // The same run; B, C and D are each deleted 30 s after their removal.
    const run = simulateFleet(config(30), hourly(), week(3));
    expect(run.instanceSeconds).toBeCloseTo(10_800 + 3 * (660 + 30), 6);
  });

  it("with max_use_count 1, gives every job a fresh instance with no wait when jobs are hours apart", () => {
    // t=0 A ready (the reservation). Each job takes the warm instance at once, and the new reservation
    // boots the next: instance k lives from job k-1's arrival (A from 0) to the end of job k, the last
    // one to the window's end (7 h). Jobs at 1 h..5 h + 17 s, 120 s each.
    const createdAt = new Float64Array([1, 2, 3, 4, 5].map((hour) => MONDAY + hour * 3600 + 17));
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75 }), { createdAt, duration: new Float64Array(5).fill(120) }, week(7));
    expect(Array.from(run.waitSeconds)).toEqual([0, 0, 0, 0, 0]);
    expect(run.instancesCreated).toBe(6);
    expect(run.instanceSeconds).toBeCloseTo(3737 + 4 * 3720 + (7 * 3600 - (5 * 3600 + 17)), 6);
    expect(run.busyInstanceSeconds).toBeCloseTo(5 * 120, 6);
  });

  it("adds at most one check_interval for the runner's next request for jobs", () => {
    const createdAt = new Float64Array([1, 2, 3].map((hour) => MONDAY + hour * 3600 + 17));
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75, checkIntervalSeconds: 3 }), { createdAt, duration: new Float64Array(3).fill(120) }, week(4));
    expect(Math.min(...run.waitSeconds)).toBeGreaterThan(0);
    expect(Math.max(...run.waitSeconds)).toBeLessThanOrEqual(3);
    expect(Array.from(run.pickupSeconds)).toEqual(Array.from(run.waitSeconds));
  });
});

describe("where a boot wait shows: GitLab's queued_duration or the job's log", () => {
  const threeAtOnce = () => ({ createdAt: new Float64Array(3).fill(MONDAY + 600), duration: new Float64Array(3).fill(120) });

  it("preemptive (idle_count 1), the runner takes a job only onto a ready slot: the third job's boot is queue time", () => {
    // t=0    A and B ready: the idle slot and the request's reserved one.
    // t=600  jobs 1 and 2 take A and B. No ready slot is left, so job 3 is not asked for; C is created for the idle slot (ready 675).
    // t=675  C is ready: job 3 is taken and starts at once (waited 75 s in GitLab's queue).
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75, policies: [policy({ idleCount: 1 })] }), threeAtOnce(), week(1));
    expect(Array.from(run.waitSeconds)).toEqual([0, 0, 75]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 0, 75]);
  });

  it("not preemptive (idle_count 0), the runner takes all three at once and the boots follow the pickups", () => {
    // t=0    A ready (the reservation). t=600: job 1 starts on A; jobs 2 and 3 are taken at once and wait
    //        for B, C (one each) and D (the next reservation), all ready at 675.
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75, policies: [policy({ idleCount: 0 })] }), threeAtOnce(), week(1));
    expect(Array.from(run.waitSeconds)).toEqual([0, 75, 75]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 0, 0]);
    expect(run.instancesCreated).toBe(4);
  });

  it("preemptive_mode: false takes jobs at once even with idle_count 1", () => {
    // A, B ready at 0 (idle slot, reservation); jobs 1 and 2 start on them, job 3 is taken at once and waits for its boot.
    const run = simulateFleet(fleet({ maxUseCount: 1, bootSeconds: 75, policies: [policy({ idleCount: 1, preemptiveMode: false })] }), threeAtOnce(), week(1));
    expect(Array.from(run.waitSeconds)).toEqual([0, 0, 75]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 0, 0]);
  });
});

describe("a burst under a scale_factor-only policy (idle_count 0, scale_factor 1)", () => {
  // 40 jobs at t=600, 1200 s each; one slot per instance; boot 60 s; room for 100 instances.
  const burst = () => ({ createdAt: new Float64Array(40).fill(MONDAY + 600), duration: new Float64Array(40).fill(1200) });
  const scaleFactorOnly = (preemptiveMode?: boolean) =>
    fleet({ maxInstances: 100, bootSeconds: 60, policies: [policy({ idleCount: 0, scaleFactor: 1, ...(preemptiveMode === undefined ? {} : { preemptiveMode }) })] });

  it("is not preemptive: every job is taken at once and waits at most one boot", () => {
    // idle_count 0 and no preemptive_mode: PreemptiveModeEnabled is false, scale_factor or not.
    // t=600  job 1 starts on the reserved instance A; jobs 2-40 are taken and wait. In use 40, so the idle
    //        target is 40: 39 + 1 (reservation) + 40 slots wanted, 80 instances created, all ready at 660.
    const run = simulateFleet(scaleFactorOnly(), burst(), week(2));
    expect(Array.from(run.waitSeconds)).toEqual([0, ...new Array<number>(39).fill(60)]);
    expect(Math.max(...run.pickupSeconds)).toBe(0);
    expect(run.instancesCreated).toBe(81);
  });

  it("with preemptive_mode: true, the fleet grows by the idle target per boot while the jobs wait in GitLab", () => {
    // Only ready slots are reserved. t=600: job 1 on A; in use 1, idle target 1: B (ready 660). Each job
    // that starts adds 1 to the idle target and so one instance: 1 job starts at 660, 2 at 720, 4 at 780,
    // 8 at 840, 16 at 900, and the last 8 at 960 (32 instances were created at 900).
    const run = simulateFleet(scaleFactorOnly(true), burst(), week(2));
    const expected = [0, 60, 120, 120, ...new Array<number>(4).fill(180), ...new Array<number>(8).fill(240), ...new Array<number>(16).fill(300), ...new Array<number>(8).fill(360)];
    expect(Array.from(run.waitSeconds).sort((a, b) => a - b)).toEqual(expected);
    expect(Array.from(run.pickupSeconds).sort((a, b) => a - b)).toEqual(expected);
  });
});

describe("max_use_count 1 near max_instances: a deleting instance still counts", () => {
  // Two instances at most, one job each; boot 60 s, deletion 30 s; three jobs of 100 s at t=600.
  const threeJobs = () => ({ createdAt: new Float64Array(3).fill(MONDAY + 600), duration: new Float64Array(3).fill(100) });
  const config = (deleteSeconds: number) => fleet({ maxUseCount: 1, maxInstances: 2, bootSeconds: 60, deleteSeconds });

  it("starts the third job only once a used instance is deleted and its replacement has booted", () => {
    // t=0    A ready (the reservation).
    // t=600  job 1 on A; B created for the reservation; job 2 taken (limit 2 x 1) and waits for B; job 3 waits in GitLab (limit reached).
    // t=660  B ready: job 2 starts (wait 60).
    // t=700  job 1 ends: A used up, removed, deleting until 730: still 2 instances, none can be created.
    // t=730  A deleted: C created; job 3 taken (pickup 130).
    // t=760  job 2 ends: B deleting until 790.  t=790: C ready, job 3 starts (wait 190); D created for the reservation.
    // t=890  job 3 ends: C deleting until 920. D stays, reserved, to the end of the hour.
    const run = simulateFleet(config(30), threeJobs(), week(1));
    expect(Array.from(run.waitSeconds)).toEqual([0, 60, 190]);
    expect(Array.from(run.pickupSeconds)).toEqual([0, 0, 130]);
    expect(run.instancesCreated).toBe(4);
    expect(run.peakInstances).toBe(2);
    expect(run.instanceSeconds).toBeCloseTo(730 + 190 + 190 + (3600 - 790), 6);
  });

  it("starts it 30 s sooner when instances are gone the moment they are removed", () => {
    // t=700 A gone at once: C created, job 3 taken; t=760 C ready and job 3 starts (wait 160).
    const run = simulateFleet(config(0), threeJobs(), week(1));
    expect(Array.from(run.waitSeconds)).toEqual([0, 60, 160]);
  });
});

describe("a small trace worked out by hand", () => {
  it("removes idle instances past idle_time down to the wanted slots, and scale_factor keeps more while jobs run", () => {
    const createdAt = new Float64Array([0, 0, 0, 0].map((second) => MONDAY + second));
    const duration = new Float64Array([600, 600, 600, 600]);
    const config = fleet({ maxInstances: 10, bootSeconds: 30, policies: [policy({ idleCount: 1, idleTimeSeconds: 300, scaleFactor: 0.5, scaleFactorLimit: 3 })] });
    const run = simulateFleet(config, { createdAt, duration }, week(2));
    // 4 jobs in use: idle target max(1, min(ceil(4 x 0.5), 3)) = 2 idle slots, and 1 reserved by the
    // request in flight, so at peak 7 instances.
    expect(run.peakInstances).toBe(7);
    // After the jobs (t=660 at the latest), the idle ones go once idle 300 s, down to 2 (1 idle slot, 1
    // reserved) well before the second hour, which keeps exactly those.
    expect(run.hourlyCapacity[0]).toBeLessThan(4);
    expect(run.hourlyCapacity[1]).toBe(2);
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
    // Off hours: the slot the request in flight reserves (idle_count 0). Office hours: 5 idle slots and
    // the reserved one, from the first minute (booting instances count as capacity) to the last.
    expect(capacity[6]).toBe(1);
    expect(capacity[7]).toBeCloseTo(6, 9);
    expect(capacity[16]).toBeCloseTo(6, 9);
    expect(capacity[17]).toBe(1);
    expect(capacity[24 + 5]).toBe(1);
    expect(capacity[24 + 6]).toBeCloseTo(6, 9);
    expect(capacity[24 + 15]).toBeCloseTo(6, 9);
    expect(capacity[24 + 16]).toBe(1);
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
