import type { RunnerModel, Shard } from "../../lib/model/schema";
import { capacityOf } from "../../lib/review/capacity";
import { exampleModel, modelWith } from "../support/models";

/**
 * The fleet simulated machine by machine: every manager gets max_instances
 * workers of capacity_per_instance slots; it runs at most `concurrent` jobs;
 * idle capacity is filled one whole worker at a time until idle_count slots are ready.
 */
function simulate(shard: Shard) {
  const managers = Array.from({ length: shard.managers.count }, () => Array.from({ length: shard.workers.max_instances }, () => shard.workers.capacity_per_instance));
  const jobs = managers.map((workers) => Math.min(shard.managers.concurrent, workers.reduce((sum, slots) => sum + slots, 0)));
  const idle = shard.autoscaling.policies.map((policy) => {
    let jobs = 0;
    let instances = 0;
    for (const workers of managers) {
      let ready = 0;
      for (const slots of workers) {
        if (ready >= policy.idle_count) break;
        ready += slots;
        instances++;
      }
      jobs += policy.idle_count;
    }
    return { periods: policy.periods, timezone: policy.timezone, idleJobs: jobs, idleInstances: instances };
  });
  return {
    shard: shard.name,
    managers: managers.length,
    maxConcurrentJobs: jobs.reduce((sum, value) => sum + value, 0),
    maxWorkers: managers.reduce((sum, workers) => sum + workers.length, 0),
    policies: idle,
  };
}

function expectMatchesSimulation(model: RunnerModel) {
  const capacity = capacityOf(model);
  const simulated = model.shards.map(simulate);

  expect(capacity.shards).toMatchObject(simulated.map(({ policies, ...rest }) => ({ ...rest, policies: policies.map((policy) => expect.objectContaining(policy)) })));
  expect(capacity.total).toEqual({
    managers: simulated.reduce((sum, shard) => sum + shard.managers, 0),
    maxConcurrentJobs: simulated.reduce((sum, shard) => sum + shard.maxConcurrentJobs, 0),
    maxWorkers: simulated.reduce((sum, shard) => sum + shard.maxWorkers, 0),
  });
}

describe("capacityOf", () => {
  it("matches a machine-by-machine simulation of cell-1 (Google Cloud)", () => {
    expectMatchesSimulation(exampleModel("cell-1"));
  });

  it("matches a machine-by-machine simulation of cell-2 (AWS)", () => {
    expectMatchesSimulation(exampleModel("cell-2"));
  });

  it("caps a manager's jobs at its workers' slots when concurrent is higher", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[0].managers.concurrent = 500;
    });

    const [shard] = capacityOf(model).shards;

    expect(shard.maxJobsPerManager).toBe(model.shards[0].workers.max_instances * model.shards[0].workers.capacity_per_instance);
    expectMatchesSimulation(model);
  });

  it("rounds idle instances up when idle jobs do not fill whole workers", () => {
    const model = modelWith("cell-1", (m) => {
      m.shards[1].workers.capacity_per_instance = 3;
      m.shards[1].autoscaling.policies[0].idle_count = 4;
    });

    const policy = capacityOf(model).shards[1].policies[0];

    // 4 idle jobs need a second 3-slot worker on each manager.
    expect(policy.idleInstances).toBe(model.shards[1].managers.count * 2);
    expectMatchesSimulation(model);
  });

  it("keeps each policy's periods and time zone", () => {
    const model = exampleModel("cell-1");

    const policies = capacityOf(model).shards[0].policies;

    expect(policies.map((policy) => [policy.periods, policy.timezone, policy.idleTime])).toEqual(
      model.shards[0].autoscaling.policies.map((policy) => [policy.periods, policy.timezone, policy.idle_time]),
    );
  });
});
