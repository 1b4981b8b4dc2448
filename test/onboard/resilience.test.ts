/** Rate limits, GitLab failures, lost answers and secret store failures: nothing lost, nothing created twice. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runOnboard, type OnboardOptions } from "../../app/commands/onboard";
import { runnerMarker } from "../../lib/gitlab/runner-spec";
import { secretLocation } from "../../lib/model/names";
import type { Shard } from "../../lib/model/schema";
import { LocalSecretStore } from "../../lib/secrets/local-store";
import { SecretStoreError, type SecretStore } from "../../lib/secrets/store";
import { type FakeRunner } from "../support/fake-gitlab";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock, type FakeClock } from "./helpers";

const gitlab = useFakeGitLab();
let clock: FakeClock;
let shard: Shard;

beforeEach(async () => {
  clock = fakeClock(Date.now());
  shard = gitlab.setup.model.shards[0];
});

function onboard(options: Partial<OnboardOptions> = {}) {
  return runOnboard({ runnerModel: gitlab.setup.model, env: gitlab.setup.env, shards: [shard.name], ...clock, log: () => {}, ...options });
}

function runnersOfShard(): FakeRunner[] {
  return [...gitlab.fake.runners.values()].filter((runner) => runner.maintenance_note.includes(runnerMarker(gitlab.setup.model, shard)));
}

function storedToken(): string | undefined {
  const file = join(gitlab.setup.secretsDir, secretLocation(gitlab.setup.model, shard).localFileName);
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).token : undefined;
}

function calls(method: string, path: RegExp) {
  return gitlab.fake.requests.filter((request) => request.method === method && path.test(request.path));
}

/** A local store whose writes fail. */
function brokenStore(): SecretStore {
  const real = new LocalSecretStore(gitlab.setup.model);
  return {
    kind: real.kind,
    needsCredentials: false,
    describe: (s) => real.describe(s),
    read: (s) => real.read(s),
    remove: (s) => real.remove(s),
    write: async () => {
      throw new SecretStoreError("disk full (simulated)");
    },
  };
}

describe("rate limits", () => {
  test("a 429 waits what Retry-After asks", async () => {
    gitlab.fake.rateLimitNext("GET", /^\/runners\/all$/, 1, { retryAfterSeconds: 7 });

    const result = await onboard();

    expect(result.exitCode).toBe(0);
    expect(clock.waits).toEqual([7000]);
    expect(runnersOfShard()).toHaveLength(1);
  });

  test("the application limiter's 429 (no headers) backs off like a 5xx, and says what GitLab said when it keeps on", async () => {
    gitlab.fake.appRateLimitNext("GET", /^\/runners\/all$/, 1);

    const recovered = await onboard();

    expect(recovered.exitCode).toBe(0);
    // Full jitter with random() = 0.5: half of the first 500 ms ceiling.
    expect(clock.waits).toEqual([250]);

    gitlab.fake.appRateLimitNext("GET", /\/runners\/\d+$/, 10_000);
    const failed = await onboard({ retryTimeout: "10s" });

    expect(failed.exitCode).toBe(1);
    expect(failed.shards[0].error).toMatch(/gave up after \d+ attempts.*429 "This endpoint has been requested too many times/);
  });

  test("a 429 without Retry-After waits until RateLimit-Reset", async () => {
    gitlab.fake.rateLimitNext("GET", /^\/runners\/all$/, 1, { resetInSeconds: 30 });
    // GitLab sends the reset in whole unix seconds of its own clock, read when it answers; our clock
    // starts now, so the wait is 30 s, less the second's fraction, plus however long the answer took.
    const before = Date.now();
    clock = fakeClock(before);

    await onboard();
    const elapsed = Date.now() - before;

    expect(clock.waits).toHaveLength(1);
    expect(clock.waits[0]).toBeGreaterThan(29_000 - 1);
    expect(clock.waits[0]).toBeLessThanOrEqual(30_000 + elapsed);
  });

  test("a 429 on the create is retried: GitLab did not process it", async () => {
    gitlab.fake.rateLimitNext("POST", /^\/user\/runners$/, 2, { retryAfterSeconds: 3 });

    const result = await onboard();

    expect(result.exitCode).toBe(0);
    expect(clock.waits).toEqual([3000, 3000]);
    expect(runnersOfShard()).toHaveLength(1);
    expect(storedToken()).toBe(runnersOfShard()[0].token);
  });
});

describe("GitLab failures", () => {
  test("5xx answers are retried with backoff, then the run succeeds", async () => {
    gitlab.fake.failNext("GET", /^\/runners\/all$/, 2, 503);

    const result = await onboard();

    expect(result.exitCode).toBe(0);
    // Full jitter with random() = 0.5: half of 500 ms, then half of 1000 ms.
    expect(clock.waits).toEqual([250, 500]);
    expect(runnersOfShard()).toHaveLength(1);
  });

  test("fails when GitLab keeps failing past the retry budget, with a clear error", async () => {
    gitlab.fake.failNext("GET", /^\/runners\/all$/, 10_000, 500);

    const result = await onboard({ retryTimeout: "30s" });

    expect(result.exitCode).toBe(1);
    expect(result.shards[0].error).toMatch(/kept failing; gave up after \d+ attempts .*retry budget 30s.*500/);
    expect(clock.waits.reduce((sum, wait) => sum + wait, 0)).toBeLessThanOrEqual(30_000);
    expect(gitlab.fake.writeCalls()).toHaveLength(0);
  });

  test("fails when a 429 asks to wait longer than the budget, without waiting", async () => {
    gitlab.fake.rateLimitNext("GET", /^\/runners\/all$/, 1, { retryAfterSeconds: 600 });

    const result = await onboard({ retryTimeout: "2m" });

    expect(result.exitCode).toBe(1);
    expect(result.shards[0].error).toContain("GitLab asked to wait 10m0s");
    expect(clock.waits).toEqual([]);
  });

  test("a 5xx on the create looks for the runner before creating again", async () => {
    gitlab.fake.failNext("POST", /^\/user\/runners$/, 1, 502);

    const result = await onboard();

    expect(result.exitCode).toBe(0);
    expect(calls("POST", /\/user\/runners$/)).toHaveLength(2);
    // Listings: the plan's search (by description, then by tags), the same search before the
    // second create, and the look for concurrent creates after it (found by description).
    expect(calls("GET", /\/runners\/all$/)).toHaveLength(5);
    expect(runnersOfShard()).toHaveLength(1);
    expect(storedToken()).toBe(runnersOfShard()[0].token);
  });

  test("a create whose answer was lost is recovered by its marker, not created again", async () => {
    gitlab.fake.dropNextCreateResponses(1);

    const result = await onboard();

    expect(result.exitCode).toBe(0);
    expect(result.shards[0].notes.join(" ")).toContain("answer was lost");
    expect(calls("POST", /\/user\/runners$/)).toHaveLength(1);
    const [runner, ...others] = runnersOfShard();
    expect(others).toHaveLength(0);
    expect(calls("POST", new RegExp(`/runners/${runner.id}/reset_authentication_token$`))).toHaveLength(1);
    expect(storedToken()).toBe(runner.token);
    expect(gitlab.fake.tokenWorks(storedToken()!)).toBe(true);
  });
});

describe("secret store failures", () => {
  test("a token that cannot be stored gets its runner deleted again", async () => {
    const result = await onboard({ secretStore: brokenStore() });

    expect(result.exitCode).toBe(1);
    expect(result.shards[0].error).toContain("disk full (simulated)");
    expect(result.shards[0].error).toContain("deleted again");
    expect(calls("DELETE", /\/runners\/\d+$/)).toHaveLength(1);
    expect(gitlab.fake.runners.size).toBe(0);

    const healed = await onboard();
    expect(healed.shards[0]).toMatchObject({ action: "create", tokenStored: true });
    expect(runnersOfShard()).toHaveLength(1);
  });

  test("when the runner cannot be deleted either, the next run adopts it", async () => {
    gitlab.fake.failNext("DELETE", /^\/runners\/\d+$/, 10_000, 500);

    const failed = await onboard({ secretStore: brokenStore(), retryTimeout: "10s" });

    expect(failed.exitCode).toBe(1);
    expect(failed.shards[0].error).toContain("the next onboard run finds it");
    expect(runnersOfShard()).toHaveLength(1);

    const healed = await onboard();

    expect(healed.shards[0]).toMatchObject({ action: "adopt", tokenStored: true });
    const [runner, ...others] = runnersOfShard();
    expect(others).toHaveLength(0);
    expect(storedToken()).toBe(runner.token);
    expect(calls("POST", /\/user\/runners$/)).toHaveLength(1);
  });
});
