/** `onboard --status`: runners and their managers as GitLab sees them. */
import { formatOnboardReport, runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import type { Shard } from "../../lib/model/schema";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock, runnerChanges } from "./helpers";

const gitlab = useFakeGitLab();
const HOUR = 3600_000;
let small: Shard;
let large: Shard;

beforeEach(async () => {
  [small, large] = gitlab.setup.model.shards;
  await onboard();
});

function onboard(options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel: gitlab.setup.model, env: gitlab.setup.env, ...fakeClock(), log: () => {}, ...options });
}

function runnerIdOf(shard: Shard): number {
  return [...gitlab.fake.runners.values()].find((runner) => runner.maintenance_note.includes(runnerMarker(gitlab.setup.model, shard)))!.id;
}

test("lists each shard's runner with its managers' status", async () => {
  gitlab.fake.addManager(runnerIdOf(small), 5 * 60_000, "s_online");
  gitlab.fake.addManager(runnerIdOf(small), 10 * 24 * HOUR, "s_stale");
  gitlab.fake.addManager(runnerIdOf(large), null, "s_new");
  const before = runnerChanges(gitlab.fake.requests).length;

  const result = await onboard({ status: true });

  expect(result.exitCode).toBe(0);
  expect(result.status).toEqual([
    expect.objectContaining({
      shard: small.name,
      runnerId: runnerIdOf(small),
      foundBy: "stored-id",
      tokenStored: true,
      onlineManagers: 1,
      managers: [expect.objectContaining({ systemId: "s_online", status: "online" }), expect.objectContaining({ systemId: "s_stale", status: "stale" })],
    }),
    expect.objectContaining({ shard: large.name, onlineManagers: 0, managers: [expect.objectContaining({ systemId: "s_new", status: "never_contacted" })] }),
  ]);
  expect(runnerChanges(gitlab.fake.requests)).toHaveLength(before);
  const table = formatOnboardReport(result);
  expect(table).toMatch(new RegExp(`${small.name}\\s+#${runnerIdOf(small)}\\s+online\\s+1/2 online\\s+stored`));
  expect(table).toContain("manager s_stale: stale");
});

test("--require-online fails when a shard has no online manager, naming it", async () => {
  gitlab.fake.addManager(runnerIdOf(small), 60_000);
  gitlab.fake.addManager(runnerIdOf(large), 3 * HOUR);

  const result = await onboard({ status: true, requireOnline: true });

  expect(result.exitCode).toBe(1);
  expect(result.problems).toEqual([`shard ${large.name}: no online runner manager`]);
});

test("--require-online passes when every shard has an online manager", async () => {
  gitlab.fake.addManager(runnerIdOf(small), 60_000);
  gitlab.fake.addManager(runnerIdOf(large), 60_000);

  const result = await onboard({ status: true, requireOnline: true });

  expect(result.exitCode).toBe(0);
});

test("reports a shard whose runner is missing", async () => {
  gitlab.fake.runners.delete(runnerIdOf(large));

  const result = await onboard({ status: true, requireOnline: true });

  expect(result.status![1]).toMatchObject({ shard: large.name, foundBy: "none", tokenStored: false, managers: [] });
  expect(result.exitCode).toBe(1);
});

test("fails when --require-online comes without --status", async () => {
  await expect(onboard({ requireOnline: true })).rejects.toMatchObject({ exitCode: 2 });
});
