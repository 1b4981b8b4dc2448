/**
 * How fast we talk to one GitLab, and how much: every attempt the requester sends
 * (./requester.ts) goes through a RequestPacer, which
 * - spaces requests out at a steady rate with a small burst (GCRA, the virtual-scheduling
 *   form of a token bucket), so a run over hundreds of shards stays under the instance's
 *   per-user limit instead of running into it;
 * - holds every request back when GitLab answers 429 with a wait (Retry-After, else
 *   RateLimit-Reset; ./retry.ts rateLimitWaitMs), not only the one that was refused, since
 *   the limit is per user, not per request;
 * - counts requests, 429s and the time spent waiting, for the run's summary line.
 *
 * Why hand-written and not bottleneck or p-throttle: both wait on real timers, while our
 * waits go through the run's injected clock (the retry's), so tests pace in no time and
 * count deterministically; and neither knows GitLab's 429 headers. The algorithm is
 * the ten lines of GCRA below.
 *
 * GitLab's default authenticated API limit, when enabled on a self-managed instance, is
 * 7200 requests per 3600 s per user (application_settings
 * throttle_authenticated_api_requests_per_period / _period_in_seconds, db/structure.sql);
 * GitLab.com allows 2000 a minute. The default here, 100 a minute with a burst of 20,
 * stays under the first: at most 6020 in any hour.
 */
import { GitLabHttpError } from "./http-failures";
import { rateLimitWaitMs, type RetryClock } from "./retry";

export const DEFAULT_REQUESTS_PER_MINUTE = 100;
/** Requests that may go out at once after a pause before pacing sets in. */
export const DEFAULT_BURST = 20;

export interface PaceSettings {
  /** Steady rate; 0 sends without pacing (429s are still honoured). @default 100 */
  readonly requestsPerMinute: number;
  /** @default 20 */
  readonly burst?: number;
}

/** What one GitLab (or all of a run's) was asked, and how long requests waited. */
export interface RequestTally {
  /** HTTP requests sent, retries included. */
  readonly requests: number;
  /** Wall time during which requests were held back by the request rate (overlapping waits count once). */
  readonly paceWaitMs: number;
  /** Answers that were 429. */
  readonly rateLimited: number;
  /** Waits GitLab asked for with its 429s. */
  readonly rateLimitWaitMs: number;
}

export const EMPTY_TALLY: RequestTally = { requests: 0, paceWaitMs: 0, rateLimited: 0, rateLimitWaitMs: 0 };

export function addTallies(tallies: readonly RequestTally[]): RequestTally {
  return tallies.reduce(
    (sum, tally) => ({
      requests: sum.requests + tally.requests,
      paceWaitMs: sum.paceWaitMs + tally.paceWaitMs,
      rateLimited: sum.rateLimited + tally.rateLimited,
      rateLimitWaitMs: sum.rateLimitWaitMs + tally.rateLimitWaitMs,
    }),
    EMPTY_TALLY,
  );
}

/** Sends requests: a pacer, or one cell's share of it (RequestPacer.metered). */
export interface RequestSender {
  send<T>(attempt: () => Promise<T>): Promise<T>;
}

/** Counts of one pacer, or of one cell's requests through a shared pacer. */
class Meter {
  /** End of the waits already counted, so overlapping waits count once. */
  private countedUntil = Number.NEGATIVE_INFINITY;
  private counts = { ...EMPTY_TALLY };

  waited(now: number, until: number): void {
    this.counts.paceWaitMs += Math.max(0, until - Math.max(now, this.countedUntil));
    this.countedUntil = Math.max(this.countedUntil, until);
  }

  sent(): void {
    this.counts.requests += 1;
  }

  rateLimited(waitMs: number | undefined): void {
    this.counts.rateLimited += 1;
    this.counts.rateLimitWaitMs += waitMs ?? 0;
  }

  tally(): RequestTally {
    return { ...this.counts };
  }
}

export class RequestPacer implements RequestSender {
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  /** GCRA's theoretical arrival time of the next request. */
  private nextAt = Number.NEGATIVE_INFINITY;
  /** No request starts before this (a 429's wait). */
  private heldUntil = Number.NEGATIVE_INFINITY;
  private readonly meter = new Meter();

  constructor(
    settings: PaceSettings,
    private readonly clock: Pick<RetryClock, "now" | "sleep">,
  ) {
    this.intervalMs = settings.requestsPerMinute > 0 ? 60_000 / settings.requestsPerMinute : 0;
    this.toleranceMs = this.intervalMs * Math.max(0, (settings.burst ?? DEFAULT_BURST) - 1);
  }

  /** Sends one attempt when its turn comes. The slot is reserved before waiting, so concurrent callers queue in order. */
  send<T>(attempt: () => Promise<T>): Promise<T> {
    return this.sendCounted(attempt, []);
  }

  /** The same pacer, counting (also) what goes through this handle: one cell's requests when cells share the pacer. */
  metered(): RequestSender & { tally(): RequestTally } {
    const meter = new Meter();
    return { send: (attempt) => this.sendCounted(attempt, [meter]), tally: () => meter.tally() };
  }

  tally(): RequestTally {
    return this.meter.tally();
  }

  private async sendCounted<T>(attempt: () => Promise<T>, extra: readonly Meter[]): Promise<T> {
    const meters = [this.meter, ...extra];
    const now = this.clock.now();
    const startAt = Math.max(now, this.heldUntil, this.nextAt - this.toleranceMs);
    if (this.intervalMs > 0) this.nextAt = Math.max(this.nextAt, startAt) + this.intervalMs;
    if (startAt > now) {
      for (const meter of meters) meter.waited(now, startAt);
      await this.clock.sleep(startAt - now);
    }
    for (const meter of meters) meter.sent();
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof GitLabHttpError && error.status === 429) {
        const waitMs = rateLimitWaitMs(error.headers, this.clock.now());
        for (const meter of meters) meter.rateLimited(waitMs);
        if (waitMs !== undefined) this.heldUntil = Math.max(this.heldUntil, this.clock.now() + waitMs);
      }
      throw error;
    }
  }
}

/** "412 GitLab requests, 1m3s waiting for the request rate, 2 answered 429 (2m0s asked)" */
export function describeTally(tally: RequestTally, formatMs: (ms: number) => string): string {
  const parts = [`${tally.requests} GitLab request${tally.requests === 1 ? "" : "s"}`, `${formatMs(tally.paceWaitMs)} waiting for the request rate`];
  if (tally.rateLimited > 0) parts.push(`${tally.rateLimited} answered 429 (${formatMs(tally.rateLimitWaitMs)} asked to wait)`);
  return parts.join(", ");
}
