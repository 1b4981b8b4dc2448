/** Fleets and loads for the simulator's tests, written out so each test shows what it simulates. */
import type { FleetConfig, SimulatedPolicy } from "../../lib/simulate/fleet-config";

/** 2024-01-08 00:00 UTC: a Monday, a whole minute. */
export const MONDAY = Date.UTC(2024, 0, 8) / 1000;

export function policy(overrides: Partial<SimulatedPolicy> = {}): SimulatedPolicy {
  return { periods: ["* * * * *"], timezone: "UTC", idleCount: 0, idleTimeSeconds: 1200, scaleFactor: 0, ...overrides };
}

export function fleet(overrides: Partial<FleetConfig> = {}): FleetConfig {
  return {
    managers: 1,
    concurrent: 1000,
    capacityPerInstance: 1,
    maxUseCount: 0,
    maxInstances: 10,
    policies: [policy()],
    bootSeconds: 60,
    checkIntervalSeconds: 0,
    ...overrides,
  };
}

/** A small seeded generator of the tests' own (an LCG), so the loads do not depend on the code under test. */
export function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
}

/** Poisson arrivals at `rate` a second and exponential durations of mean `meanSeconds`, from MONDAY. */
export function poissonLoad(jobs: number, rate: number, meanSeconds: number, seed: number): { createdAt: Float64Array; duration: Float64Array } {
  const random = lcg(seed);
  const createdAt = new Float64Array(jobs);
  const duration = new Float64Array(jobs);
  let time = MONDAY;
  for (let job = 0; job < jobs; job += 1) {
    time += -Math.log(random()) / rate;
    createdAt[job] = time;
    duration[job] = -Math.log(random()) * meanSeconds;
  }
  return { createdAt, duration };
}
