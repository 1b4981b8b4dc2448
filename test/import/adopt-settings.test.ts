import { withRunnerSettings } from "../../app/import/adopt-tokens";
import type { RunnerDetails } from "../../lib/gitlab/client";

// A runner that some fleet onboarded already carries runner-fleet:<cell>; a model naming that tag is
// refused by prepare (lib/model/cell-tag.ts), so import keeps the runner's own tags only.
test("an adopted runner's settings keep its own tags and drop the fleet's reserved cell tag", () => {
  const runner = { id: 7, description: "old docker", tag_list: ["docker", "runner-fleet:cell-old", "linux"], run_untagged: false, locked: true, runner_type: "instance_type" } as unknown as RunnerDetails;
  const shard = withRunnerSettings({ name: "docker", tags: ["x"] }, runner);
  expect(shard).toMatchObject({ name: "docker", description: "old docker", tags: ["docker", "linux"], run_untagged: false, locked: true });
});
