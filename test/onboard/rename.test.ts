/**
 * A shard renamed with renamed_from keeps its runner: onboard against the fake GitLab finds it by the
 * runner id stored with its token (the secret keeps the former name, which the managers read at boot:
 * lib/model/names.ts cloudShardName), renames it in place (description, maintenance note marker) and
 * keeps its token; without the secret it finds it by the former name's marker. --prune leaves it alone.
 */
import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { secretLocation } from "../../lib/model/names";
import type { RunnerModel } from "../../lib/model/schema";
import type { FakeGitLab, FakeRunner } from "../support/fake-gitlab";
import type { FakeModelSetup } from "../support/fake-gitlab-model";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock, runnerChanges } from "./helpers";

const gitlab = useFakeGitLab();
let fake: FakeGitLab;
let setup: FakeModelSetup;
/** The fake's model, its first shard with the default description (<cell>-<shard>), onboarded. */
let base: RunnerModel;
/** base with its first shard renamed to "renamed" (renamed_from: its old name). */
let renamed: RunnerModel;
let oldName: string;

beforeEach(async () => {
  fake = gitlab.fake;
  setup = gitlab.setup;
  base = structuredClone(setup.model);
  delete (base.shards[0] as { description?: string }).description;
  await onboard(base);
  oldName = base.shards[0].name;
  renamed = structuredClone(base);
  renamed.shards[0] = { ...renamed.shards[0], name: "renamed", renamed_from: oldName };
});

function onboard(runnerModel: RunnerModel, options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel, env: setup.env, ...fakeClock(), now: Date.now, log: () => {}, ...options });
}

function runnersMarked(model: RunnerModel, index: number): FakeRunner[] {
  return [...fake.runners.values()].filter((runner) => runner.maintenance_note.includes(runnerMarker(model, model.shards[index])));
}

const secretFile = (model: RunnerModel, index: number) => join(setup.secretsDir, secretLocation(model, model.shards[index]).localFileName);

test("onboard renames the runner in place: same runner, same token, new description and marker, no create, no token reset", async () => {
  const [runner] = runnersMarked(base, 0);
  const token = runner.token;
  const stored = readFileSync(secretFile(base, 0), "utf8");
  const before = fake.requests.length;

  const result = await onboard(renamed);

  expect(result.exitCode).toBe(0);
  expect(result.shards[0]).toMatchObject({ shard: "renamed", action: "update", changedFields: expect.arrayContaining(["description", "maintenance_note"]) });
  expect(result.shards[0].reason).toContain(`runner #${runner.id} of shard ${oldName}, renamed to renamed`);
  const writes = runnerChanges(fake.requests.slice(before)).map((request) => `${request.method} ${request.path}`);
  expect(writes).toEqual([`PUT /api/v4/runners/${runner.id}`]);
  expect(fake.runners.size).toBe(base.shards.length);
  expect(runner).toMatchObject({ description: `${setup.model.cell.id}-renamed`, token });
  expect(runner.maintenance_note).toContain(runnerMarker(renamed, renamed.shards[0]));
  expect(runner.maintenance_note).not.toContain(runnerMarker(base, base.shards[0]));
  // The secret keeps the name the managers read at boot, and its content.
  expect(secretFile(renamed, 0)).toBe(secretFile(base, 0));
  expect(readFileSync(secretFile(renamed, 0), "utf8")).toBe(stored);

  // Converged: the next run changes nothing.
  const again = await onboard(renamed);
  expect(again.shards.map((outcome) => outcome.action)).toEqual(["none", "none"]);
});

test("without the stored token, the runner is found by its former name's marker and adopted (token reset), not created again", async () => {
  const [runner] = runnersMarked(base, 0);
  unlinkSync(secretFile(base, 0));

  const result = await onboard(renamed);

  expect(result.shards[0]).toMatchObject({ action: "adopt", runnerId: runner.id });
  expect(fake.runners.size).toBe(base.shards.length);
  expect(runner.maintenance_note).toContain(runnerMarker(renamed, renamed.shards[0]));
  expect(JSON.parse(readFileSync(secretFile(renamed, 0), "utf8"))).toMatchObject({ runnerId: runner.id, token: runner.token });
});

test("--prune before onboard has renamed it does not take the runner for a removed shard's", async () => {
  const [runner] = runnersMarked(base, 0);

  const result = await onboard(renamed, { prune: true });

  expect(fake.runners.has(runner.id)).toBe(true);
  expect(existsSync(secretFile(base, 0))).toBe(true);
  expect(result.prune).toBeDefined();
  expect(result.prune!.runners).toEqual([]);
});

test("fails when renamed_from is dropped from the model: the runner of the old name is a removed shard's, and a new runner is created", async () => {
  const dropped = structuredClone(base);
  dropped.shards[0] = { ...dropped.shards[0], name: "renamed" };

  const result = await onboard(dropped);

  expect(result.shards[0]).toMatchObject({ action: "create" });
  expect(fake.runners.size).toBe(base.shards.length + 1);
});
