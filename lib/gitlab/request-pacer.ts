/**
 * How fast we talk to one GitLab, and how much: every attempt the requester sends
 * (./requester.ts) goes through a RequestPacer, which
 * - lets a burst of requests go at full speed, then spaces them out at a steady rate (GCRA,
 *   the virtual-scheduling form of a token bucket), so that an ordinary run is not slowed and
 *   a long one (hundreds of shards, `onboard --all`) stays inside the instance's per-user limit
 *   instead of running into it;
 * - keeps to what GitLab says is left of its window where it says so (RateLimit-Remaining and
 *   RateLimit-Reset on an answer: GitLab.com's edge sends them on answers that pass; Rack::Attack
 *   on a self-managed instance only on its 429s): with nothing left, requests wait for the reset;
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
 * throttle_authenticated_api_requests_per_period / _period_in_seconds, db/structure.sql),
 * counted by Rack::Attack in fixed windows of the period; GitLab.com allows 2000 a minute.
 * A token bucket lets through at most burst + rate x T in any span T, so in any fixed window
 * too. The default, a burst of 600 then 100 a minute, keeps any hour to 600 + 6000 = 6600
 * (under 7200) and any minute to 700 (under 2000), while a no-op onboard of a 40-shard cell
 * (about 120 requests) or a status of 100 shards (about 500) is never held back.
 */
import { GitLabHttpError } from "./http-failures";
import { rateLimitWaitMs, type RetryClock } from "./retry";

export const DEFAULT_REQUESTS_PER_MINUTE = 100;
/** Requests that may go out at full speed after a pause before pacing sets in. */
export const DEFAULT_BURST = 600;
/** A burst is never more than this many minutes of the steady rate, so a low --rate-limit keeps its burst in proportion. */
export const BURST_MINUTES_CAP = 6;
/**
 * The longest GitLab's RateLimit headers make requests wait ahead of a 429: GitLab.com's windows are a
 * minute. A window that ends later is left to GitLab: its 429 is honoured within the call's retry
 * budget (./retry.ts), which says so when the wait is longer, instead of the run hanging here.
 */
export const MAX_WINDOW_WAIT_MS = 120_000;

export interface PaceSettings {
  /** Steady rate; 0 sends without pacing (429s and GitLab's RateLimit-Remaining are still honoured). @default 100 */
  readonly requestsPerMinute: number;
  /** @default - DEFAULT_BURST (600), at most BURST_MINUTES_CAP (6) minutes of the rate: burstFor() */
  readonly burst?: number;
}

/** The default burst at a rate: 600, or 6 minutes of the rate when that is less (30 at 5 a minute). */
export function burstFor(requestsPerMinute: number): number {
  return Math.max(1, Math.min(DEFAULT_BURST, Math.floor(requestsPerMinute * BURST_MINUTES_CAP)));
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
  /** What GitLab last said of its rate-limit window, where it says it (RateLimit-Remaining, RateLimit-Reset). */
  private window?: { remaining: number; resetAtMs: number };
  private readonly meter = new Meter();

  constructor(
    settings: PaceSettings,
    private readonly clock: Pick<RetryClock, "now" | "sleep">,
    /** The wall clock GitLab's unix times are read against. @default Date.now */
    private readonly wallNow: () => number = Date.now,
  ) {
    this.intervalMs = settings.requestsPerMinute > 0 ? 60_000 / settings.requestsPerMinute : 0;
    this.toleranceMs = this.intervalMs * Math.max(0, (settings.burst ?? burstFor(settings.requestsPerMinute)) - 1);
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
    const startAt = Math.max(now, this.heldUntil, this.nextAt - this.toleranceMs, this.windowOpensAt(now));
    if (this.intervalMs > 0) this.nextAt = Math.max(this.nextAt, startAt) + this.intervalMs;
    if (startAt > now) {
      for (const meter of meters) meter.waited(now, startAt);
      await this.clock.sleep(startAt - now);
    }
    for (const meter of meters) meter.sent();
    try {
      const answer = await attempt();
      this.heard(headersOf(answer));
      return answer;
    } catch (error) {
      // A 429's own wait (Retry-After, else RateLimit-Reset) holds every request below; other answers tell of the window.
      if (error instanceof GitLabHttpError && error.status !== 429) this.heard((name) => error.headers.get(name) ?? undefined);
      if (error instanceof GitLabHttpError && error.status === 429) {
        const waitMs = rateLimitWaitMs(error.headers, this.clock.now());
        for (const meter of meters) meter.rateLimited(waitMs);
        if (waitMs !== undefined) this.heldUntil = Math.max(this.heldUntil, this.clock.now() + waitMs);
      }
      throw error;
    }
  }

  /**
   * When the next request may start as far as GitLab's window goes: now while it has requests
   * left (each start takes one, so requests in flight count before their answers do), else its
   * reset. A window that has ended is forgotten.
   */
  private windowOpensAt(now: number): number {
    if (!this.window || this.window.resetAtMs <= now) {
      this.window = undefined;
      return now;
    }
    if (this.window.remaining > 0) {
      this.window.remaining -= 1;
      return now;
    }
    return this.window.resetAtMs;
  }

  /**
   * Keeps what an answer's RateLimit-Remaining and RateLimit-Reset say; both, or neither. GitLab
   * sends the reset as a unix time (lib/gitlab/rack_attack.rb, throttled_response_headers): it is
   * turned into a wait on the wall clock, and that wait into a time on the run's clock.
   */
  private heard(header: (name: string) => string | undefined): void {
    const remaining = header("ratelimit-remaining")?.trim();
    const reset = header("ratelimit-reset")?.trim();
    if (!remaining || !reset || !/^\d+$/.test(remaining) || !/^\d+$/.test(reset)) return;
    const waitMs = Math.max(0, Number(reset) * 1000 - this.wallNow());
    this.window = waitMs > MAX_WINDOW_WAIT_MS ? undefined : { remaining: Number(remaining), resetAtMs: this.clock.now() + waitMs };
  }
}

/** "412 GitLab requests, 1m3s waiting for the request rate, 2 answered 429 (2m0s asked)" */
export function describeTally(tally: RequestTally, formatMs: (ms: number) => string): string {
  const parts = [`${tally.requests} GitLab request${tally.requests === 1 ? "" : "s"}`, `${formatMs(tally.paceWaitMs)} waiting for the request rate`];
  if (tally.rateLimited > 0) parts.push(`${tally.rateLimited} answered 429 (${formatMs(tally.rateLimitWaitMs)} asked to wait)`);
  return parts.join(", ");
}

/** The headers of a requester's answer ({ body, headers, status }, ./requester.ts), by lower-case name; none for anything else. */
function headersOf(answer: unknown): (name: string) => string | undefined {
  const headers = (answer as { headers?: unknown } | null)?.headers;
  if (!headers || typeof headers !== "object") return () => undefined;
  return (name) => {
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === "string" ? value : undefined;
  };
}
