/** A model's trace, routed to its shards and priced at the dry run's prices. */
import { listPrice, PRICE_TABLE } from "../../lib/cost/price-table";
import { JobTraceBuilder } from "../../lib/simulate/job-trace";
import { routeJobs } from "../../lib/simulate/route-jobs";
import { adviseIdleCounts } from "../../lib/simulate/idle-count-advice";
import { syntheticTraceFor } from "../../lib/simulate/model-synthetic-week";
import { PolicyTimeline } from "../../lib/simulate/policy-timeline";
import { simulateFleet } from "../../lib/simulate/simulate-fleet";
import { prepareSimulation, simulateModel } from "../../lib/simulate/simulate-model";
import { percentileOfSorted } from "../../lib/simulate/wait-statistics";
import { exampleModel, modelWith } from "../support/models";
import { parse } from "smol-toml";
import { parseGoDurationSeconds } from "../../lib/model/duration";
import { renderConfigToml } from "../../lib/render/manager-files";
import { MONDAY } from "./fleet-fixture";

describe("routing a trace to shards", () => {
  const shards = [
    { name: "small", tags: ["docker", "small"], runUntagged: true },
    { name: "large", tags: ["docker", "large"], runUntagged: false },
    { name: "any", tags: ["docker", "small", "large"], runUntagged: false },
  ];
  const builder = new JobTraceBuilder();
  builder.add(MONDAY, 60, []);
  builder.add(MONDAY + 1, 60, ["docker"]);
  builder.add(MONDAY + 2, 60, ["large"]);
  builder.add(MONDAY + 3, 60, ["gpu"]);
  builder.add(MONDAY + 4, 60, ["gpu"]);
  builder.add(MONDAY + 5, 60, ["small", "large"]);
  const routing = routeJobs(builder.build(), shards);

  it("gives a job to the first shard whose tags include all of its tags; an untagged one only to run_untagged shards", () => {
    expect(routing.jobsOf.map((jobs) => Array.from(jobs))).toEqual([[0, 1], [2], [5]]);
    // "docker" matches all three; "large" matches large and any.
    expect(routing.sharedWithLater).toEqual([1, 1, 0]);
  });

  it("counts the jobs no shard takes, by tag set", () => {
    expect(routing.unmatched).toBe(2);
    expect(routing.unmatchedTagSets).toEqual([{ tags: ["gpu"], jobs: 2 }]);
  });
});

describe("the cell's own tag", () => {
  it("routes a job that asks for runner-fleet:<cell> to the cell's shards, as onboard tags every runner with it", () => {
    const model = exampleModel("cell-1");
    const builder = new JobTraceBuilder();
    builder.add(MONDAY, 60, ["runner-fleet:cell-1", "saas-linux-large-amd64"]);
    builder.add(MONDAY + 1, 60, ["runner-fleet:cell-2"]);
    const report = simulateModel(model, builder.build(), {});
    expect(report.shards.map((shard) => shard.jobs)).toEqual([0, 1]);
    expect(report.trace.unmatched_tag_sets).toEqual([{ tags: ["runner-fleet:cell-2"], jobs: 1 }]);
  });
});

describe("a fleet that never scales", () => {
  it("costs instances x hours x price, plus its managers", () => {
    // Idle capacity equal to every slot, no use limit: all 60 instances of each manager live all day.
    const model = modelWith("cell-1", (draft) => {
      const shard = draft.shards[0];
      shard.workers.max_use_count = 0;
      for (const policy of shard.autoscaling.policies) policy.idle_count = shard.workers.max_instances * shard.workers.capacity_per_instance;
    });
    const builder = new JobTraceBuilder();
    for (let job = 0; job < 500; job += 1) builder.add(MONDAY + job * 150, 400, ["saas-linux-small-amd64"]);
    const report = simulateModel(model, builder.build(), { shards: ["small-amd64"], fromSeconds: MONDAY, toSeconds: MONDAY + 24 * 3600 });
    const shard = report.shards[0];
    const small = model.shards[0];
    const instances = small.managers.count * small.workers.max_instances;
    const worker = listPrice(PRICE_TABLE, "google", model.cloud.region, small.workers.machine_type)!;
    const manager = listPrice(PRICE_TABLE, "google", model.cloud.region, small.managers.machine_type)!;
    expect(shard.instance_hours.total).toBeCloseTo(instances * 24, 6);
    expect(shard.cost_usd).toBeCloseTo(instances * 24 * worker + small.managers.count * 24 * manager, 6);
    expect(shard.monthly_cost_usd).toBeCloseTo((shard.cost_usd! * PRICE_TABLE.hours_per_month) / 24, 6);
    expect(shard.wait_seconds.max).toBeLessThanOrEqual(3);
    expect(shard.instances_created).toBe(instances);
  });
});

describe("recorded waits", () => {
  it("puts the trace's queued_duration beside the simulated waits", () => {
    const model = modelWith("cell-1", () => undefined);
    const builder = new JobTraceBuilder();
    builder.add(MONDAY + 10, 60, ["saas-linux-large-amd64"], 100);
    builder.add(MONDAY + 4000, 60, ["saas-linux-large-amd64"], 80);
    builder.add(MONDAY + 8000, 60, ["saas-linux-large-amd64"]);
    const report = simulateModel(model, builder.build(), { shards: ["large-amd64"] });
    expect(report.shards[0].recorded_queued_seconds).toMatchObject({ jobs: 2, mean: 90, max: 100 });
    expect(report.shards[0].jobs).toBe(3);
  });
});

describe("idle_count advice", () => {
  it("gives the smallest idle_count that keeps the period's p95 under the target: one less does not", () => {
    const model = exampleModel("cell-1");
    const trace = syntheticTraceFor(model, { seed: 2, jobs: 4000 });
    const target = 20;
    const advice = adviseIdleCounts(model, trace, target, { shards: ["small-amd64"] });
    expect(advice.map((entry) => entry.policy)).toEqual([0, 1]);
    const prepared = prepareSimulation(model, trace, { shards: ["small-amd64"] });
    const [load] = prepared.loads;
    const timeline = new PolicyTimeline(load.fleet.policies, prepared.window.startSeconds);
    /** p95 wait of the jobs created while `policy` is in force, with that policy keeping `idleCount` idle slots. */
    const p95With = (policy: number, idleCount: number): number => {
      const fleet = { ...load.fleet, policies: load.fleet.policies.map((other, index) => (index === policy ? { ...other, idleCount } : other)) };
      const run = simulateFleet(fleet, load, prepared.window);
      const waits = Array.from(run.waitSeconds).filter((_, job) => timeline.at(Math.floor((load.createdAt[job] - prepared.window.startSeconds) / 60)) === policy);
      return percentileOfSorted(Float64Array.from(waits).sort(), 0.95);
    };
    for (const entry of advice) {
      expect(entry.advised_idle_count).not.toBeNull();
      expect(p95With(entry.policy, entry.advised_idle_count!)).toBeLessThanOrEqual(target);
      if (entry.advised_idle_count! > 0) expect(p95With(entry.policy, entry.advised_idle_count! - 1)).toBeGreaterThan(target);
      expect(entry.p95_wait_seconds).toBeCloseTo(p95With(entry.policy, entry.idle_count), 9);
    }
  });
});

describe("the policies config.toml carries", () => {
  // Office hours only: config.toml gets a leading catch-all (lib/model/policy-coverage.ts) so the
  // uncovered hours keep idle workers for the first policy's idle_time; gitlab-runner runs those hours
  // under it, and so must the simulation.
  const model = modelWith("cell-1", (m) => {
    m.shards[1].autoscaling.policies = [{ periods: ["* 7-19 * * mon-fri"], timezone: "Europe/Amsterdam", idle_count: 4, idle_time: "45m", scale_factor: 0 }];
  });
  const trace = syntheticTraceFor(model, { seed: 3, jobs: 400 });

  it("are the policies the simulation replays, the catch-all first", () => {
    const rendered = (parse(renderConfigToml(model, model.shards[1], 0)) as { runners: Array<{ autoscaler: { policy: Array<Record<string, unknown>> } }> }).runners[0].autoscaler.policy;
    const [load] = prepareSimulation(model, trace, { shards: ["large-amd64"] }).loads;
    expect(load.fleet.policies.map((policy) => [policy.periods, policy.timezone, policy.idleCount, policy.idleTimeSeconds, policy.scaleFactor])).toEqual(
      rendered.map((policy) => [policy.periods, policy.timezone, policy.idle_count, parseGoDurationSeconds(policy.idle_time as string), policy.scale_factor]),
    );
    expect(load.fleet.policies.map((policy) => policy.modelIndex)).toEqual([undefined, 0]);
  });

  it("advises on the model's own policies only: the catch-all is not in the model to change", () => {
    const advice = adviseIdleCounts(model, trace, 30, { shards: ["large-amd64"] });
    expect(advice.map((entry) => [entry.policy, entry.periods])).toEqual([[0, ["* 7-19 * * mon-fri"]]]);
  });
});
