/**
 * Retry policy for GitLab API calls.
 *
 * gitbeaker's own retry (429/502, 10 tries, 2**i * 0.25 ms apart) is effectively
 * immediate and ignores Retry-After, so our requester does one attempt per call and
 * this module decides whether and when to try again:
 * - 429: wait what GitLab asks (Retry-After, else RateLimit-Reset), else back off;
 * - 5xx and network errors: capped exponential backoff with full jitter;
 * - everything else: no retry.
 * Every call stops retrying once its retries would run past the time budget, and
 * then fails with RetryBudgetExceededError naming the last failure.
 *
 * Sleep, clock and randomness are injected so tests run in no time.
 */

export interface RetryPolicy {
  /** Longest time one call may keep retrying, from its first attempt. @default 120000 (2 minutes) */
  readonly budgetMs: number;
  /** First backoff ceiling; doubles per attempt. @default 500 */
  readonly baseDelayMs: number;
  /** Cap of the backoff ceiling. @default 20000 */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { budgetMs: 120_000, baseDelayMs: 500, maxDelayMs: 20_000 };

export interface RetryClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
}

export const SYSTEM_CLOCK: RetryClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

/** How a failed attempt should be treated. */
export type FailureClass =
  | { readonly kind: "fatal" }
  | { readonly kind: "transient"; readonly reason: string }
  | { readonly kind: "rate-limited"; readonly reason: string; readonly waitMs?: number };

export interface RetryEvent {
  readonly attempt: number;
  readonly delayMs: number;
  readonly reason: string;
}

export interface RetryOptions {
  readonly policy?: RetryPolicy;
  readonly clock?: RetryClock;
  readonly classify: (error: unknown) => FailureClass;
  /** Told before each wait, for progress lines. */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** Thrown when a call kept failing for longer than the budget allows. `cause` is the last failure. */
export class RetryBudgetExceededError extends Error {
  constructor(
    readonly lastReason: string,
    readonly attempts: number,
    readonly elapsedMs: number,
    readonly budgetMs: number,
    options: { cause: unknown },
    /** Set when GitLab asked (429) for a wait longer than the budget left. */
    readonly requestedWaitMs?: number,
  ) {
    super(`gave up after ${attempts} attempt${attempts === 1 ? "" : "s"} in ${formatMs(elapsedMs)} (retry budget ${formatMs(budgetMs)}): ${lastReason}`, options);
    this.name = "RetryBudgetExceededError";
  }
}

/** Full jitter: a uniform wait between 0 and min(cap, base * 2^attempt). `attempt` counts from 0. */
export function backoffDelayMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * The wait a 429 asks for, in ms: Retry-After (seconds or an HTTP date), else
 * RateLimit-Reset (a unix time in seconds). Undefined when neither is usable.
 */
export function rateLimitWaitMs(headers: Headers | Record<string, string | undefined>, nowMs: number): number | undefined {
  const get = (name: string) =>
    headers instanceof Headers ? (headers.get(name) ?? undefined) : (headers[name] ?? headers[name.toLowerCase()]);
  const retryAfter = get("retry-after")?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - nowMs);
  }
  const reset = get("ratelimit-reset")?.trim();
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - nowMs);
  return undefined;
}

export async function withRetry<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const startedAt = clock.now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      const failure = options.classify(error);
      if (failure.kind === "fatal") throw error;
      const backoff = backoffDelayMs(attempt, policy, clock.random);
      const delayMs = failure.kind === "rate-limited" && failure.waitMs !== undefined ? failure.waitMs : backoff;
      const elapsedMs = clock.now() - startedAt;
      if (elapsedMs + delayMs > policy.budgetMs) {
        const requestedWaitMs = failure.kind === "rate-limited" ? failure.waitMs : undefined;
        const reason = requestedWaitMs !== undefined ? `${failure.reason}; GitLab asked to wait ${formatMs(requestedWaitMs)}` : failure.reason;
        throw new RetryBudgetExceededError(reason, attempt + 1, elapsedMs, policy.budgetMs, { cause: error }, requestedWaitMs);
      }
      options.onRetry?.({ attempt: attempt + 1, delayMs, reason: failure.reason });
      await clock.sleep(delayMs);
    }
  }
}

/** "1.5s", "2m0s": short, for messages. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${Number(seconds.toFixed(1))}s`;
  return `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s`;
}
