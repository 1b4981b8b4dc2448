/**
 * The plan for a runner that existed before runner-fleet (import --adopt stored its token): adopted
 * with its token kept, its settings and the shard's marker written; never a reset, never a create.
 * Pure (lib/onboard/plan.ts); the whole path against the fake GitLab is test/import/adopt.test.ts.
 */
import type { RunnerDetails } from "../../lib/gitlab/client";
import { desiredRunner, runnerSettings } from "../../lib/gitlab/runner-spec";
import type { ObservedShard } from "../../lib/onboard/observed";
import { planShard } from "../../lib/onboard/plan";
import { modelWith } from "../support/models";

const model = modelWith("cell-1", () => {});
const shard = model.shards[0];
const desired = { shard: shard.name, runner: desiredRunner(model, shard), secret: "local file /secrets/cell-1--small.json" };

/** Runner #7 as an older fleet left it: the model's settings but its own tags, and no marker. */
const unmarked: RunnerDetails = {
  id: 7,
  runner_type: desired.runner.runner_type,
  online: true,
  status: "online",
  ...runnerSettings(desired.runner),
  tag_list: ["docker"],
  maintenance_note: "registered by hand in 2021",
};
const imported: ObservedShard = { secret: { kind: "stored", runnerId: 7 }, runner: unmarked, foundBy: "stored-id", duplicates: [], token: { kind: "works" } };
const settings = { mode: "reconcile" as const, dryRun: false, gitlabUrl: model.gitlab.url };

describe("a runner whose token was imported", () => {
  it("is adopted: its token kept (no reset), its settings and the shard's marker written in one update", () => {
    const plan = planShard(settings, desired, imported);
    expect(plan.action).toBe("adopt-existing");
    expect(plan.runnerId).toBe(7);
    expect(plan.reason).toContain("existed before runner-fleet");
    expect(plan.steps).toEqual([{ kind: "update-runner", runnerId: 7, changes: { tag_list: desired.runner.tag_list, maintenance_note: desired.runner.maintenance_note } }]);
  });

  it("is listed the same in a dry run, where the token is not verified", () => {
    const plan = planShard({ ...settings, dryRun: true }, desired, { ...imported, token: { kind: "unverified" } });
    expect(plan.action).toBe("adopt-existing");
    expect(plan.changedFields).toEqual(["tag_list", "maintenance_note"]);
  });

  it("is not adopted as it is when GitLab refuses its token: the token is reset, as for any shard", () => {
    const plan = planShard(settings, desired, { ...imported, token: { kind: "refused", reason: "403" } });
    expect(plan.action).toBe("adopt");
    expect(plan.steps[0]).toEqual({ kind: "reset-token", runnerId: 7, because: "adopt" });
  });

  it("is an ordinary runner once it carries the shard's marker: nothing to do", () => {
    const marked = { ...unmarked, tag_list: [...desired.runner.tag_list], maintenance_note: desired.runner.maintenance_note };
    expect(planShard(settings, desired, { ...imported, runner: marked }).action).toBe("none");
  });

  it("is never a runner found by its marker alone (that is the recovery path)", () => {
    const plan = planShard(settings, desired, { ...imported, secret: { kind: "absent" }, foundBy: "marker" });
    expect(plan.action).toBe("adopt");
  });
});
