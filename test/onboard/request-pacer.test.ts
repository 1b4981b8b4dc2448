/** Request pacing and counting (lib/gitlab/request-pacer.ts), on a fake clock, and a 429 honoured by every command. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerModel } from "../../lib/model/schema";
import { scaledEnv, scaledModel } from "../support/scaled-model";
import { runStatus } from "../../app/commands/status";
import { runOnboard } from "../../app/commands/onboard";
import { GitLabHttpError } from "../../lib/gitlab/http-failures";
import { burstFor, DEFAULT_REQUESTS_PER_MINUTE, RequestPacer } from "../../lib/gitlab/request-pacer";
import { GitLabTraffic } from "../../lib/gitlab/traffic";
import { useFakeGitLab } from "../support/fake-gitlab-setup";
import { fakeClock } from "./helpers";

/** Runs `count` sends at once. */
async function sendAll(pacer: RequestPacer, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, () => pacer.send(async () => undefined)));
}

test("a burst goes out at once, then one request per interval", async () => {
  const waits: number[] = [];
  const pacer = new RequestPacer({ requestsPerMinute: 60, burst: 3 }, { now: () => 0, sleep: async (ms) => void waits.push(ms) });

  await Promise.all(Array.from({ length: 6 }, () => pacer.send(async () => undefined)));

  // Three at once; the fourth waits one interval (1 s), the fifth two, the sixth three.
  expect(waits).toEqual([1000, 2000, 3000]);
  expect(pacer.tally()).toMatchObject({ requests: 6, rateLimited: 0, paceWaitMs: 3000 });
});

test("overlapping waits count once as time spent waiting", async () => {
  const pacer = new RequestPacer({ requestsPerMinute: 60, burst: 1 }, { now: () => 0, sleep: async () => {} });

  await Promise.all([1, 2, 3].map(() => pacer.send(async () => undefined)));

  // Waits of 1 s and 2 s, both from t=0: the run waited 2 s, not 3 s.
  expect(pacer.tally().paceWaitMs).toBe(2000);
});

test("by default a run of a few hundred requests goes at full speed, and continuous use stays inside GitLab's hourly default (7200)", async () => {
  const clock = fakeClock(0);
  const pacer = new RequestPacer({ requestsPerMinute: DEFAULT_REQUESTS_PER_MINUTE }, clock);

  await sendAll(pacer, 600);
  expect(clock.waits).toEqual([]);

  // Sent back to back for two hours from then on: 100 a minute after the burst.
  const sentAt: number[] = [];
  while (clock.now() < 2 * 3_600_000) {
    await pacer.send(async () => undefined);
    sentAt.push(clock.now());
  }
  // Rack::Attack counts fixed windows; the busiest hour starting at any send bounds them all.
  const times = [...Array<number>(600).fill(0), ...sentAt];
  let busiestHour = 0;
  for (let first = 0, last = 0; first < times.length; first += 1) {
    while (last < times.length && times[last] < times[first] + 3_600_000) last += 1;
    busiestHour = Math.max(busiestHour, last - first);
  }
  // 600 at once, then one every 600 ms from 0.6 s: 600 + 5999 in the first hour (a send at 3600 s is the next hour's).
  expect(busiestHour).toBe(6599);
  expect(busiestHour).toBeLessThanOrEqual(7200);
  // After the first hour, the steady rate alone: 100 a minute.
  expect(sentAt.filter((at) => at >= 3_600_000 && at < 7_200_000)).toHaveLength(6000);
});

test("a low rate keeps its burst in proportion: at most 6 minutes of it", () => {
  expect([burstFor(100), burstFor(1800), burstFor(10), burstFor(0.1)]).toEqual([600, 600, 60, 1]);
});

test("where GitLab says what is left of its window (RateLimit-Remaining, RateLimit-Reset), nothing goes out past it until the reset", async () => {
  const clock = fakeClock(0);
  const wallNow = 1_700_000_000_000;
  const pacer = new RequestPacer({ requestsPerMinute: 0 }, clock, () => wallNow);
  const answer = (remaining: number) => async () => ({ body: [], status: 200, headers: { "ratelimit-remaining": String(remaining), "ratelimit-reset": String(wallNow / 1000 + 40) } });

  await pacer.send(answer(2));
  await pacer.send(async () => undefined);
  await pacer.send(async () => undefined);
  expect(clock.waits).toEqual([]);
  // Both that were left are used: the next waits for the window's end, 40 s after the answer.
  await pacer.send(async () => undefined);

  expect(clock.waits).toEqual([40_000]);
  expect(pacer.tally()).toMatchObject({ requests: 4, rateLimited: 0, paceWaitMs: 40_000 });
});

test("a window GitLab says ends more than 2 minutes away is left to its 429 (and the retry budget), not waited for ahead", async () => {
  const clock = fakeClock(0);
  const wallNow = 1_700_000_000_000;
  const pacer = new RequestPacer({ requestsPerMinute: 0 }, clock, () => wallNow);

  await pacer.send(async () => ({ body: [], status: 200, headers: { "ratelimit-remaining": "0", "ratelimit-reset": String(wallNow / 1000 + 3600) } }));
  await pacer.send(async () => undefined);

  expect(clock.waits).toEqual([]);
});

test("0 requests a minute sends without waiting", async () => {
  const clock = fakeClock(0);
  const pacer = new RequestPacer({ requestsPerMinute: 0 }, clock);

  await sendAll(pacer, 50);

  expect(clock.waits).toEqual([]);
  expect(pacer.tally().requests).toBe(50);
});

test("a 429 holds back every request until the time GitLab names, not only the refused one", async () => {
  const clock = fakeClock(0);
  const pacer = new RequestPacer({ requestsPerMinute: 0 }, clock);
  const refused = new GitLabHttpError("GET", "/api/v4/runners/all", 429, "Too Many Requests", "text/plain", "Retry later\n", new Headers({ "retry-after": "30" }));

  await expect(pacer.send(async () => Promise.reject(refused))).rejects.toBe(refused);
  await pacer.send(async () => undefined);

  expect(clock.waits).toEqual([30_000]);
  expect(pacer.tally()).toEqual({ requests: 2, paceWaitMs: 30_000, rateLimited: 1, rateLimitWaitMs: 30_000 });
});

test("cells on one GitLab with one token share a pacer; another token or GitLab has its own", () => {
  const traffic = new GitLabTraffic({ requestsPerMinute: 100 }, fakeClock());

  expect(traffic.pacerFor("https://gitlab.example.com/", "a")).toBe(traffic.pacerFor("https://GITLAB.example.com", "a"));
  expect(traffic.pacerFor("https://gitlab.example.com", "b")).not.toBe(traffic.pacerFor("https://gitlab.example.com", "a"));
  expect(traffic.pacerFor("https://other.example.com", "a")).not.toBe(traffic.pacerFor("https://gitlab.example.com", "a"));
});

describe("against the fake GitLab", () => {
  const gitlab = useFakeGitLab();

  test("status waits what a 429 asks (RateLimit-Reset without Retry-After) and says so", async () => {
    await runOnboard({ runnerModel: gitlab.setup.model, env: gitlab.setup.env, ...fakeClock(), log: () => {} });
    gitlab.fake.rateLimitNext("GET", /^\/runners\/all$/, 1, { resetInSeconds: 7 });
    const waits: number[] = [];

    const started = Date.now();
    const report = await runStatus({ runnerModels: [{ file: "cell-1", model: gitlab.setup.model }], env: gitlab.setup.env, sleep: async (ms) => void waits.push(ms), log: () => {} });
    const tookMs = Date.now() - started;

    expect(report.exitCode).toBe(1); // no managers yet: attention, but every shard was checked
    expect(report.cells[0].shards.every((shard) => shard.runnerId !== undefined)).toBe(true);
    expect(report.requests.rateLimited).toBe(1);
    // RateLimit-Reset is a whole second, 7 s after the second the stand-in answered in: the wait is at
    // most 7 s, and over 6 s less the time between the answer and the client reading it (within the
    // run), since a second may turn in between.
    expect(Math.max(...waits)).toBeGreaterThan(6000 - tookMs);
    expect(Math.max(...waits)).toBeLessThanOrEqual(7000);
  });

  test("a no-op re-run of a 40-shard cell, at the default pacing under GitLab's default throttle, is not held back (at most 15 s)", async () => {
    gitlab.fake.rateLimit = { requests: 7200, periodSeconds: 3600 };
    const root = mkdtempSync(join(tmpdir(), "forty-"));
    const model = scaledModel({ cellId: "cell-40", gitlabUrl: gitlab.fake.url, shards: 40, secretsDir: join(root, "secrets") });
    const env = scaledEnv(model, gitlab.fake.adminToken, join(root, "state"));
    expect((await runOnboard({ runnerModel: model, env, log: () => {} })).exitCode).toBe(0);

    const started = Date.now();
    const again = await runOnboard({ runnerModel: model, env, log: () => {} });
    const tookMs = Date.now() - started;

    expect(again.exitCode).toBe(0);
    expect(again.shards.map((shard) => shard.action)).toEqual(Array(40).fill("none"));
    // 3 a shard and the cell's listing: 121, under the default burst of 600, so nothing waits for the rate.
    expect(again.requests).toMatchObject({ requests: 121, paceWaitMs: 0, rateLimited: 0 });
    expect(gitlab.fake.throttled).toBe(0);
    expect(tookMs).toBeLessThan(15_000);
  }, 30_000);

  describe("a GitLab whose Rack::Attack allows a few requests a second, on the real clock", () => {
    let model: RunnerModel;
    let env: NodeJS.ProcessEnv;
    beforeEach(() => {
      gitlab.fake.rateLimit = { requests: 30, periodSeconds: 1 };
      const root = mkdtempSync(join(tmpdir(), "paced-"));
      model = scaledModel({ cellId: "cell-7", gitlabUrl: gitlab.fake.url, shards: 12, secretsDir: join(root, "secrets") });
      env = scaledEnv(model, gitlab.fake.adminToken, join(root, "state"));
    });
    /** A first run and, once GitLab's window has passed, a re-run (each starts with a burst). */
    const twoRuns = async (rateLimit: number, burst?: number) => {
      // A throttle per second wants a burst far below the default (600, for GitLab's hourly window): given through the run's traffic.
      const traffic = () => (burst === undefined ? undefined : new GitLabTraffic({ requestsPerMinute: rateLimit, burst }, { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }));
      const first = await runOnboard({ runnerModel: model, env, log: () => {}, rateLimit, traffic: traffic() });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const again = await runOnboard({ runnerModel: model, env, log: () => {}, rateLimit, traffic: traffic() });
      return [first, again];
    };

    test("paced at 600 a minute (a burst of 20, then 10 a second) under 30 a second, the runs get no 429", async () => {
      const runs = await twoRuns(600, 20);

      expect(runs.map((run) => run.exitCode)).toEqual([0, 0]);
      expect(gitlab.fake.throttled).toBe(0);
      expect(runs[1].requests!.paceWaitMs).toBeGreaterThan(0);
    }, 30_000);

    test("unpaced, they run into 429s, wait what GitLab asks and still finish", async () => {
      // Tighter, so that even a fast machine's unpaced burst overruns a window.
      gitlab.fake.rateLimit = { requests: 10, periodSeconds: 1 };
      const runs = await twoRuns(0);

      expect(runs.map((run) => run.exitCode)).toEqual([0, 0]);
      expect(gitlab.fake.throttled).toBeGreaterThan(0);
      expect(runs[0].requests!.rateLimited + runs[1].requests!.rateLimited).toBe(gitlab.fake.throttled);
    }, 30_000);
  });
});
