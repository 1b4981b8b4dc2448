/**
 * The request handler we plug into gitbeaker's requester hook (`requesterFn`, built
 * with @gitbeaker/requester-utils' createRequesterFn). gitbeaker keeps what it does
 * well: URLs, snake_case bodies, query encoding (`tag_list[]=a`), auth headers,
 * Link-header pagination. We replace only the part that sends the request, because
 * its built-in retry (429/502 only, 10 tries 2**i * 0.25 ms apart) is effectively
 * immediate and ignores Retry-After:
 * - one fetch per attempt, with its own time limit;
 * - retries decided by ./retry.ts (Retry-After honoured, a time budget per call,
 *   transient failures retried, permanent ones not, creates never sent twice blindly);
 * - failures that keep the status, GitLab's body and the headers (./http-failures.ts),
 *   so ./errors.ts can say what went wrong. They never leave lib/gitlab: the client
 *   turns them into GitLabApiError;
 * - the rules of the wire (./wire/): the token goes to gitlab.url's origin only (redirects
 *   refused), bodies are capped and must parse, listings may not loop, and the connection
 *   takes the model's CA bundle and proxy.
 */
import { createRequesterFn, type RequesterType, type RequestOptions, type ResourceOptions } from "@gitbeaker/requester-utils";
import { fetch as undiciFetch, type Dispatcher } from "undici";
import { GitLabHttpError, GitLabNetworkError, GitLabNotReachedError, NotGitLabApiError } from "./http-failures";
import type { RequestSender } from "./request-pacer";
import { createDispatcher, proxyUrlFor, type ConnectionSettings } from "./wire/dispatcher";
import { PaginationGuard } from "./wire/pagination-guard";
import { readCappedText, refuseRedirect } from "./wire/read-answer";
import { AnswerTooLargeError, MalformedJsonError, OffOriginRequestError, RedirectRefusedError } from "./wire/wire-failures";
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK, rateLimitWaitMs, withRetry, type FailureClass, type RetryClock, type RetryEvent, type RetryPolicy } from "./retry";

export interface RequesterSettings {
  readonly policy?: RetryPolicy;
  readonly clock?: RetryClock;
  /** Time limit of one attempt. @default 30000 */
  readonly attemptTimeoutMs?: number;
  /** CA bundle and proxy of the model (gitlab.ca_file, gitlab.proxy). @default none: Node's trust store, no proxy */
  readonly connection?: ConnectionSettings;
  readonly onRetry?: (event: RetryEvent & { readonly method: string; readonly path: string }) => void;
  /** Paces and counts every attempt (./request-pacer.ts); none: sent at once, uncounted. */
  readonly pacer?: RequestSender;
  /** Most pages one listing may take before the call fails (./wire/pagination-guard.ts). @default MAX_PAGES (1000) */
  readonly maxPages?: number;
  /** Whether the GitLab answered in this run, shared by the clients of a run's cells on it (./traffic.ts). @default - this client's own */
  readonly contact?: GitLabContact;
}

/** Whether a GitLab has answered anything (any status) in this run: until it has, nothing there is not a hiccup (NOT_REACHED_CODES). */
export interface GitLabContact {
  answered: boolean;
}

/**
 * Whether a failed request may be sent again without looking first. A POST that
 * creates something (POST /user/runners, a merge request note) may have succeeded even
 * when its answer was lost; the caller decides what to do. Resetting a token again is
 * harmless: the newest token wins; verifying a token again only refreshes its contact time.
 */
export function isRetrySafe(method: string, endpoint: string): boolean {
  if (method !== "POST") return true;
  return /(^|\/)reset_authentication_token$/.test(endpoint) || /(^|\/)runners\/verify$/.test(endpoint);
}

/** Network failures worth another try. An unknown host (ENOTFOUND) is a wrong URL, not a hiccup. */
const TRANSIENT_NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EAI_AGAIN", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * Failures that mean nothing is there to talk to, when they come before GitLab ever answered in
 * this run: the connection refused, the host name unknown or not looked up, the connection never
 * accepted. Then they are a wrong gitlab.url or a GitLab that is down, and fail the call at once
 * (GitLabNotReachedError) instead of retrying for the whole budget. Once GitLab has answered,
 * the same codes are a restart or a network hiccup in the middle of a run, and are retried.
 */
const NOT_REACHED_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** The transient/permanent split: a 429 always waits and retries; 5xx and network hiccups only when the request is safe to resend. */
export function classifyFailure(error: unknown, request: { readonly retrySafe: boolean; readonly nowMs: number }): FailureClass {
  const { retrySafe, nowMs } = request;
  if (error instanceof GitLabNotReachedError) return { kind: "fatal" };
  if (error instanceof GitLabHttpError) {
    if (error.status === 429) {
      return { kind: "rate-limited", reason: `${error.method} ${error.path} was rate limited (429)`, waitMs: rateLimitWaitMs(error.headers, nowMs) };
    }
    if (error.status >= 500 && retrySafe) return { kind: "transient", reason: `${error.method} ${error.path} answered ${error.status} ${error.statusText}` };
    return { kind: "fatal" };
  }
  if (error instanceof GitLabNetworkError && retrySafe && TRANSIENT_NETWORK_CODES.has(error.code)) {
    return { kind: "transient", reason: `${error.method} ${error.path} failed: ${error.code}` };
  }
  return { kind: "fatal" };
}

/** gitbeaker's `requesterFn`: its own option handling (body, query, auth), our sending and retrying. */
export function gitlabRequesterFn(settings: RequesterSettings = {}): (resource: ResourceOptions) => RequesterType {
  const clock = settings.clock ?? SYSTEM_CLOCK;
  const timeoutMs = settings.attemptTimeoutMs ?? 30_000;
  // gitbeaker's client-side rate limiter (rateLimiters, 3000 requests a minute by default) is
  // not applied: GitLab's own limits answer 429 with Retry-After, which the retry honours.
  let dispatcher: Dispatcher | undefined | null = null;
  const pages = new PaginationGuard(settings.maxPages);
  const contact = settings.contact ?? { answered: false };
  return createRequesterFn(
    async (_resource, prepared) => prepared,
    (endpoint, options) => {
      const prepared: RequestOptions = options ?? {};
      const method = prepared.method ?? "GET";
      const base = new URL(prepared.prefixUrl?.endsWith("/") ? prepared.prefixUrl : `${prepared.prefixUrl ?? ""}/`);
      const url = new URL(endpoint, base);
      url.search = prepared.searchParams ?? "";
      if (url.origin !== base.origin) throw new OffOriginRequestError(method, url.origin, base.origin);
      // One client talks to one GitLab: its connection settings are made once, on the first request.
      if (dispatcher === null) dispatcher = createDispatcher(base, settings.connection ?? {});
      const wire = { dispatcher, baseUrl: base, pages };
      const attempt = async () => {
        try {
          const reply = await sendOnce(url, prepared, method, timeoutMs, wire);
          contact.answered = true;
          return reply;
        } catch (error) {
          if (!(error instanceof GitLabNetworkError)) contact.answered = true;
          else if (!contact.answered && NOT_REACHED_CODES.has(error.code)) throw notReached(error, base, settings.connection ?? {});
          throw error;
        }
      };
      return withRetry(() => (settings.pacer ? settings.pacer.send(attempt) : attempt()), {
        policy: settings.policy ?? DEFAULT_RETRY_POLICY,
        clock,
        classify: (error) => classifyFailure(error, { retrySafe: isRetrySafe(method, url.pathname), nowMs: clock.now() }),
        onRetry: (event) => settings.onRetry?.({ ...event, method, path: url.pathname }),
      });
    },
  );
}

/** Nothing at the first hop: GitLab's host, or the proxy's when the requests go through one. */
function notReached(error: GitLabNetworkError, base: URL, connection: ConnectionSettings): GitLabNotReachedError {
  const proxy = proxyUrlFor(base, connection);
  const hop = proxy ? new URL(proxy) : base;
  return new GitLabNotReachedError(error, hostAndPort(hop), hop.hostname, proxy !== undefined);
}

/** "gitlab.example.com:443": the port the connection used, also when the URL leaves it out. */
function hostAndPort(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

interface Wire {
  readonly dispatcher: Dispatcher | undefined;
  /** gitlab.url's API root: redirects are described against its origin. */
  readonly baseUrl: URL;
  readonly pages: PaginationGuard;
}

async function sendOnce(url: URL, prepared: RequestOptions, method: string, timeoutMs: number, wire: Wire) {
  const headers = { ...prepared.headers, accept: "application/json" };
  const signal = prepared.signal ? AbortSignal.any([prepared.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  // As messages show it: "/api/v4/runners/12" (no query: it may carry filters, never needed to explain a failure).
  const path = url.pathname;

  let response: Awaited<ReturnType<typeof undiciFetch>>;
  let text: string;
  try {
    // redirect "manual": fetch strips Authorization on a cross-origin redirect, but not PRIVATE-TOKEN.
    response = await undiciFetch(url, { method, headers, body: prepared.body as never, signal, redirect: "manual", dispatcher: wire.dispatcher });
    refuseRedirect(response, { method, path, baseUrl: wire.baseUrl });
    text = await readCappedText(response, { method, path });
  } catch (cause) {
    if (isWireRefusal(cause)) throw cause;
    throw new GitLabNetworkError(method, path, networkErrorCode(cause), { cause });
  }
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const isJson = contentType === "application/json" || contentType.endsWith("+json");
  if (!response.ok) {
    throw new GitLabHttpError(method, path, response.status, response.statusText, contentType, isJson ? parseJson(text) : text, new Headers([...response.headers])); // global Headers, as ./retry.ts reads them (undici has its own class)
  }
  const headersOut = Object.fromEntries(response.headers.entries());
  if (response.status === 204 || text === "") return { body: null, headers: headersOut, status: response.status };
  if (!isJson) throw new NotGitLabApiError(method, path, response.status, contentType);
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MalformedJsonError(method, path, response.status);
  }
  wire.pages.check(url, response.headers.get("link"));
  return { body, headers: headersOut, status: response.status };
}

/** Failures of ./wire/read-answer.ts: refusals of ours, not network errors (never retried). */
function isWireRefusal(error: unknown): boolean {
  return error instanceof RedirectRefusedError || error instanceof AnswerTooLargeError;
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function networkErrorCode(error: unknown): string {
  let current: unknown = error;
  let innermost = error instanceof Error ? error.message : "network error";
  for (let depth = 0; depth < 5 && current; depth += 1) {
    const candidate = current as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
    if (candidate.name === "TimeoutError") return "ETIMEDOUT";
    if (typeof candidate.code === "string") return candidate.code;
    if (typeof candidate.message === "string" && candidate.message) innermost = candidate.message;
    current = candidate.cause;
  }
  return innermost;
}
