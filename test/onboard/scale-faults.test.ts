/**
 * The fault and concurrency guarantees at scale: a cell of 12 shards sharing one tag, next to
 * runners of other teams, with lost create answers, 500s, and two operators on two machines
 * (separate locks, one secret store) onboarding at once. Whatever the interleaving, each
 * shard ends with exactly one runner, whose working token is the one stored.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runOnboard } from "../../app/commands/onboard";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { secretLocation } from "../../lib/model/names";
import type { RunnerModel } from "../../lib/model/schema";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { scaledEnv, scaledModel, seedUnrelatedRunners } from "../support/scaled-model";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
let model: RunnerModel;
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "scale-faults-"));
  model = scaledModel({ cellId: "cell-7", gitlabUrl: gitlab.fake.url, shards: 12, secretsDir: join(root, "secrets") });
  seedUnrelatedRunners(gitlab.fake, 120);
});

/** One operator's machine: its own lock directory, the shared store. */
function operator(name: string) {
  return runOnboard({ runnerModel: model, env: scaledEnv(model, gitlab.fake.adminToken, join(root, `state-${name}`)), ...fakeClock(), log: () => {} });
}

function expectOneRunnerPerShardWithItsTokenStored(): void {
  for (const shard of model.shards) {
    const runners = [...gitlab.fake.runners.values()].filter((runner) => runner.maintenance_note.includes(runnerMarker(model, shard)));
    expect({ shard: shard.name, runners: runners.length }).toEqual({ shard: shard.name, runners: 1 });
    const stored = JSON.parse(readFileSync(join(root, "secrets", secretLocation(model, shard).localFileName), "utf8"));
    expect(stored.runnerId).toBe(runners[0].id);
    expect(gitlab.fake.tokenWorks(stored.token)).toBe(true);
  }
}

test("lost create answers and 500s on listings, reads and creates: one runner per shard, created once", async () => {
  gitlab.fake.dropNextCreateResponses(3);
  gitlab.fake.failNext("GET", /^\/runners\/all$/, 2, 500);
  gitlab.fake.failNext("GET", /^\/runners\/\d+$/, 3, 502);
  gitlab.fake.failNext("POST", /^\/user\/runners$/, 2, 500);

  const result = await operator("a");

  expect(result.exitCode).toBe(0);
  expectOneRunnerPerShardWithItsTokenStored();
  // Every shard's runner was created by one successful or lost POST, never a second one after a lost answer.
  expect(gitlab.fake.requests.filter((request) => request.method === "POST" && request.path === "/api/v4/user/runners" && request.status !== 500)).toHaveLength(12);
  expect(result.shards.filter((outcome) => outcome.notes.some((note) => note.includes("answer was lost")))).toHaveLength(3);
});

test("two operators on two machines at once, then a re-run of each: they agree on one runner per shard", async () => {
  // Slow answers make the two runs overlap for their whole length.
  gitlab.fake.latencyMs = 10;

  const [first, second] = await Promise.all([operator("a"), operator("b")]);

  expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
  // Both planned every create before either's runners showed: the race did happen, and was settled.
  const creates = gitlab.fake.requests.filter((request) => request.method === "POST" && request.path === "/api/v4/user/runners").length;
  expect(creates).toBeGreaterThan(12);
  // Each extra runner is reported deleted (by one run, or by both when both saw it).
  const settled = new Set([...first.shards, ...second.shards].flatMap((outcome) => outcome.duplicates ?? []));
  expect(settled.size).toBe(creates - 12);
  expectOneRunnerPerShardWithItsTokenStored();

  gitlab.fake.latencyMs = 0;
  const again = [await operator("a"), await operator("b")];
  expect(again.map((run) => run.shards.every((outcome) => outcome.action === "none"))).toEqual([true, true]);
  expectOneRunnerPerShardWithItsTokenStored();
}, 30_000);
