/**
 * Onboarding refuses runner tokens that expire (lib/gitlab/expiring-token.ts says why), against
 * the gitlab.fake GitLab with token expiration turned on.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { secretLocation } from "../../lib/model/names";
import type { Shard } from "../../lib/model/schema";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock } from "./helpers";

const gitlab = useFakeGitLab();
const EXPIRES_AT = "2027-01-15T10:00:00.000Z";

const onboard = (options: Partial<OnboardOptions> = {}) => runOnboard({ runnerModel: gitlab.setup.model, env: gitlab.setup.env, ...fakeClock(), log: () => {}, ...options });
const storedFile = (shard: Shard) => join(gitlab.setup.secretsDir, secretLocation(gitlab.setup.model, shard).localFileName);
const runnersOf = (shard: Shard) => [...gitlab.fake.runners.values()].filter((runner) => runner.maintenance_note.includes(runnerMarker(gitlab.setup.model, shard)));

test("a new runner whose token expires is deleted again, nothing is stored, and the error says why and what to change", async () => {
  gitlab.fake.tokenExpiresAt = EXPIRES_AT;
  const shard = gitlab.setup.model.shards[0];

  const result = await onboard({ shards: [shard.name] });

  expect(result.exitCode).toBe(1);
  expect(result.shards[0]).toMatchObject({ shard: shard.name, action: "create", ok: false, tokenStored: false });
  expect(result.shards[0].error).toContain(`a token that expires at ${EXPIRES_AT}`);
  expect(result.shards[0].error).toContain("share that one token");
  expect(result.shards[0].error).toContain("Runner expiration");
  expect(result.shards[0].error).toContain("The new runner was deleted again.");
  expect(runnersOf(shard)).toEqual([]);
  expect(existsSync(storedFile(shard))).toBe(false);
  const deletes = gitlab.fake.requests.filter((request) => request.method === "DELETE" && /^\/api\/v4\/runners\/\d+$/.test(request.path));
  expect(deletes).toHaveLength(1);
});

test("a rotation that yields an expiring token stores it (the old one is already refused) and fails the shard", async () => {
  const shard = gitlab.setup.model.shards[0];
  expect((await onboard({ shards: [shard.name] })).exitCode).toBe(0);
  const oldToken = JSON.parse(readFileSync(storedFile(shard), "utf8")).token;
  gitlab.fake.tokenExpiresAt = EXPIRES_AT;

  const result = await onboard({ rotate: true, shards: [shard.name] });

  expect(result.exitCode).toBe(1);
  expect(result.shards[0]).toMatchObject({ action: "rotate", ok: false, tokenStored: true });
  expect(result.shards[0].error).toContain("The new token is stored so the managers keep working until it expires.");
  const stored = JSON.parse(readFileSync(storedFile(shard), "utf8"));
  expect(stored.token).not.toBe(oldToken);
  expect(stored.token).toBe(runnersOf(shard)[0].token);
  expect(stored.tokenExpiresAt).toBe(EXPIRES_AT);
  for (const problem of result.problems) expect(problem).not.toContain(stored.token);
});

test("once expiration is off again, rotating replaces the expiring token and succeeds", async () => {
  const shard = gitlab.setup.model.shards[0];
  await onboard({ shards: [shard.name] });
  gitlab.fake.tokenExpiresAt = EXPIRES_AT;
  await onboard({ rotate: true, shards: [shard.name] });
  gitlab.fake.tokenExpiresAt = null;

  const result = await onboard({ rotate: true, shards: [shard.name] });

  expect(result.exitCode).toBe(0);
  expect(JSON.parse(readFileSync(storedFile(shard), "utf8")).tokenExpiresAt).toBeNull();
});
