/** A shard as the runner it should be, and the difference to what GitLab has. */
import type { RunnerDetails } from "../../lib/gitlab/client";
import { desiredRunner, diffRunner, hasRunnerMarker, runnerMarker, runnerSettings } from "../../lib/gitlab/runner-spec";
import { cellTag } from "../../lib/model/cell-tag";
import { modelWith } from "../support/models";

const model = modelWith("cell-1", () => {});
const shard = model.shards[0];

function asGitLabHasIt(change: Partial<RunnerDetails> = {}): RunnerDetails {
  const desired = desiredRunner(model, shard);
  return {
    id: 1,
    runner_type: desired.runner_type,
    online: false,
    status: "never_contacted",
    ...runnerSettings(desired),
    tag_list: [...desired.tag_list],
    ...change,
  };
}

test("the maintenance note carries a marker naming cell and shard", () => {
  const desired = desiredRunner(model, shard);

  expect(desired.maintenance_note).toContain(runnerMarker(model, shard));
  expect(runnerMarker(model, shard)).toBe(`[runner-fleet cell=${model.cell.id} shard=${shard.name}]`);
  expect(hasRunnerMarker(asGitLabHasIt(), model, shard)).toBe(true);
  expect(hasRunnerMarker(asGitLabHasIt(), model, model.shards[1])).toBe(false);
});

test("group and project shards carry their owner", () => {
  const group = modelWith("cell-1", (draft) => {
    draft.shards[0].runner_type = "group";
    draft.shards[0].group_id = 42;
  });

  expect(desiredRunner(group, group.shards[0])).toMatchObject({ runner_type: "group_type", group_id: 42 });
  expect(desiredRunner(group, group.shards[0])).not.toHaveProperty("project_id");
});

test("a runner as the model says has no diff; tags compare as a set", () => {
  const desired = runnerSettings(desiredRunner(model, shard));

  expect(diffRunner(desired, asGitLabHasIt({ tag_list: [...desired.tag_list].reverse() }))).toEqual({});
});

test("every runner carries the cell's tag after the model's tags; a shard may not name a tag in its namespace", () => {
  expect(desiredRunner(model, shard).tag_list).toEqual([...shard.tags, "runner-fleet:cell-1"]);
  expect(cellTag(model)).toBe("runner-fleet:cell-1");
  const reserved = modelWith("cell-1", (draft) => {
    draft.shards[0].tags = ["docker", "runner-fleet:cell-2"];
  });

  expect(() => desiredRunner(reserved, reserved.shards[0])).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining('received ["runner-fleet:cell-2"]') }));
});

test("fails when a shard names 50 tags: with the cell's, GitLab would refuse 51", () => {
  const crowded = modelWith("cell-1", (draft) => {
    draft.shards[0].tags = Array.from({ length: 50 }, (_, index) => `t${index}`);
  });

  expect(() => desiredRunner(crowded, crowded.shards[0])).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining("at most 49 tags") }));
});

test("only drifted settings are in the diff, with the model's values", () => {
  const desired = runnerSettings(desiredRunner(model, shard));

  const changes = diffRunner(desired, asGitLabHasIt({ locked: !desired.locked, maintenance_note: "edited by hand", tag_list: ["x"] }));

  expect(changes).toEqual({ locked: desired.locked, maintenance_note: desired.maintenance_note, tag_list: desired.tag_list });
});

test("fails when the maximum timeout is below GitLab's 10 minutes", () => {
  const short = modelWith("cell-1", (draft) => {
    draft.shards[0].maximum_timeout = "5m";
  });

  expect(() => desiredRunner(short, short.shards[0])).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringContaining("at least 10m") }));
});

test("fails when a shard could pick no job (no tags, run_untagged false)", () => {
  const idle = modelWith("cell-1", (draft) => {
    draft.shards[0].tags = [];
    draft.shards[0].run_untagged = false;
  });

  expect(() => desiredRunner(idle, idle.shards[0])).toThrow(expect.objectContaining({ exitCode: 2 }));
});
