/** `onboard --status`: runners and their managers as GitLab sees them. */
import { formatOnboardReport, runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import type { Shard } from "../../lib/model/schema";
import { FakeGitLab } from "../support/fake-gitlab";
import { fakeModel, type FakeModelSetup } from "../support/fake-gitlab-model";
import { fakeClock, runnerChanges } from "./helpers";

const HOUR = 3600_000;
let fake: FakeGitLab;
let setup: FakeModelSetup;
let small: Shard;
let large: Shard;

beforeEach(async () => {
  fake = new FakeGitLab();
  await fake.start();
  setup = fakeModel(fake);
  [small, large] = setup.model.shards;
  await onboard();
});
afterEach(() => fake.stop());

function onboard(options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel: setup.model, env: setup.env, ...fakeClock(), log: () => {}, ...options });
}

function runnerIdOf(shard: Shard): number {
  return [...fake.runners.values()].find((runner) => runner.maintenance_note.includes(runnerMarker(setup.model, shard)))!.id;
}

test("lists each shard's runner with its managers' status", async () => {
  fake.addManager(runnerIdOf(small), 5 * 60_000, "s_online");
  fake.addManager(runnerIdOf(small), 10 * 24 * HOUR, "s_stale");
  fake.addManager(runnerIdOf(large), null, "s_new");
  const before = runnerChanges(fake.requests).length;

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
  expect(runnerChanges(fake.requests)).toHaveLength(before);
  const table = formatOnboardReport(result);
  expect(table).toMatch(new RegExp(`${small.name}\\s+#${runnerIdOf(small)}\\s+online\\s+1/2 online\\s+stored`));
  expect(table).toContain("manager s_stale: stale");
});

test("--require-online fails when a shard has no online manager, naming it", async () => {
  fake.addManager(runnerIdOf(small), 60_000);
  fake.addManager(runnerIdOf(large), 3 * HOUR);

  const result = await onboard({ status: true, requireOnline: true });

  expect(result.exitCode).toBe(1);
  expect(result.problems).toEqual([`shard ${large.name}: no online runner manager`]);
});

test("--require-online passes when every shard has an online manager", async () => {
  fake.addManager(runnerIdOf(small), 60_000);
  fake.addManager(runnerIdOf(large), 60_000);

  const result = await onboard({ status: true, requireOnline: true });

  expect(result.exitCode).toBe(0);
});

test("reports a shard whose runner is missing", async () => {
  fake.runners.delete(runnerIdOf(large));

  const result = await onboard({ status: true, requireOnline: true });

  expect(result.status![1]).toMatchObject({ shard: large.name, foundBy: "none", tokenStored: false, managers: [] });
  expect(result.exitCode).toBe(1);
});

test("fails when --require-online comes without --status", async () => {
  await expect(onboard({ requireOnline: true })).rejects.toMatchObject({ exitCode: 2 });
});
