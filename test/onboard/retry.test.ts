/** The retry policy on its own: backoff, what 429s ask for, the time budget. */
import { backoffDelayMs, DEFAULT_RETRY_POLICY, rateLimitWaitMs, RetryBudgetExceededError, withRetry, type FailureClass } from "../../lib/gitlab/retry";
import { GitLabHttpError, GitLabNetworkError } from "../../lib/gitlab/http-failures";
import { classifyFailure, isRetrySafe } from "../../lib/gitlab/requester";
import { fakeClock } from "./helpers";

const policy = { budgetMs: 10_000, baseDelayMs: 100, maxDelayMs: 1_000 };

describe("backoffDelayMs", () => {
  test("is full jitter under a doubling ceiling", () => {
    expect([0, 1, 2, 3].map((attempt) => backoffDelayMs(attempt, policy, () => 0.999))).toEqual([99, 199, 399, 799]);
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
  });

  test("never exceeds the cap", () => {
    expect(backoffDelayMs(30, policy, () => 0.999)).toBeLessThan(policy.maxDelayMs);
  });
});

describe("rateLimitWaitMs", () => {
  const now = Date.parse("2025-06-01T12:00:00Z");

  test("reads Retry-After in seconds", () => {
    expect(rateLimitWaitMs(new Headers({ "Retry-After": "60" }), now)).toBe(60_000);
  });

  test("reads Retry-After as an HTTP date", () => {
    expect(rateLimitWaitMs(new Headers({ "Retry-After": new Date(now + 5_000).toUTCString() }), now)).toBe(5_000);
  });

  test("falls back to RateLimit-Reset (unix seconds)", () => {
    expect(rateLimitWaitMs({ "ratelimit-reset": String(now / 1000 + 42) }, now)).toBe(42_000);
  });

  test("is undefined when GitLab says nothing (the app limiter's 429)", () => {
    expect(rateLimitWaitMs(new Headers(), now)).toBeUndefined();
  });
});

describe("withRetry", () => {
  const transient: FailureClass = { kind: "transient", reason: "503" };

  test("retries transient failures until one succeeds", async () => {
    const clock = fakeClock();
    let calls = 0;
    const value = await withRetry(
      async () => {
        calls += 1;
        if (calls < 3) throw new Error("flaky");
        return "ok";
      },
      { policy, clock, classify: () => transient },
    );
    expect(value).toBe("ok");
    expect(clock.waits).toEqual([50, 100]);
  });

  test("fails at once on a fatal failure", async () => {
    const clock = fakeClock();
    const failure = new Error("400");
    await expect(withRetry(async () => Promise.reject(failure), { policy, clock, classify: () => ({ kind: "fatal" }) })).rejects.toBe(failure);
    expect(clock.waits).toEqual([]);
  });

  test("waits what a rate limit asks instead of backing off", async () => {
    const clock = fakeClock();
    let calls = 0;
    await withRetry(
      async () => {
        if ((calls += 1) === 1) throw new Error("429");
      },
      { policy, clock, classify: () => ({ kind: "rate-limited", reason: "429", waitMs: 3_000 }) },
    );
    expect(clock.waits).toEqual([3_000]);
  });

  test("fails when the retries would run past the budget, keeping the last failure", async () => {
    const clock = fakeClock();
    const last = new Error("still 503");
    const error = await withRetry(async () => Promise.reject(last), { policy, clock, classify: () => transient }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RetryBudgetExceededError);
    expect((error as RetryBudgetExceededError).cause).toBe(last);
    expect(clock.waits.reduce((sum, wait) => sum + wait, 0)).toBeLessThanOrEqual(policy.budgetMs);
    expect((error as RetryBudgetExceededError).attempts).toBe(clock.waits.length + 1);
  });

  test("defaults to a two-minute budget", () => {
    expect(DEFAULT_RETRY_POLICY.budgetMs).toBe(120_000);
  });
});

describe("which requests are retried", () => {
  const now = Date.now();
  const http = (method: string, status: number, headers: Record<string, string> = {}) =>
    new GitLabHttpError(method, "/api/v4/x", status, "", "application/json", {}, new Headers(headers));

  test("a create is never sent again after a 5xx or a lost connection; a 429 is", () => {
    expect(isRetrySafe("POST", "user/runners")).toBe(false);
    expect(isRetrySafe("POST", "projects/42/merge_requests/7/notes")).toBe(false);
    expect(classifyFailure(http("POST", 502), { retrySafe: false, nowMs: now })).toEqual({ kind: "fatal" });
    expect(classifyFailure(new GitLabNetworkError("POST", "/x", "UND_ERR_SOCKET", { cause: null }), { retrySafe: false, nowMs: now })).toEqual({ kind: "fatal" });
    expect(classifyFailure(http("POST", 429, { "retry-after": "2" }), { retrySafe: false, nowMs: now })).toMatchObject({ kind: "rate-limited", waitMs: 2000 });
  });

  test("reads, updates, deletes and token resets are retried on 5xx and network errors", () => {
    expect(["GET", "PUT", "DELETE"].every((method) => isRetrySafe(method, "runners/1"))).toBe(true);
    expect(isRetrySafe("POST", "runners/1/reset_authentication_token")).toBe(true);
    expect(classifyFailure(http("GET", 503), { retrySafe: true, nowMs: now }).kind).toBe("transient");
    expect(classifyFailure(new GitLabNetworkError("GET", "/x", "ECONNRESET", { cause: null }), { retrySafe: true, nowMs: now }).kind).toBe("transient");
  });

  test("client errors and unknown hosts are not retried", () => {
    expect(classifyFailure(http("GET", 400), { retrySafe: true, nowMs: now })).toEqual({ kind: "fatal" });
    expect(classifyFailure(http("GET", 401), { retrySafe: true, nowMs: now })).toEqual({ kind: "fatal" });
    expect(classifyFailure(new GitLabNetworkError("GET", "/x", "ENOTFOUND", { cause: null }), { retrySafe: true, nowMs: now })).toEqual({ kind: "fatal" });
  });
});
