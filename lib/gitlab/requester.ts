/**
 * The HTTP requester we hand to gitbeaker (`requesterFn`) in place of its default one:
 * one fetch per attempt, retries decided by ./retry.ts (gitbeaker's built-in retry
 * ignores Retry-After and backs off for microseconds), typed errors that keep the
 * status, the body and the headers so ./errors.ts can explain them.
 *
 * It also serves the endpoints gitbeaker lacks (`resource.requester.post(...)`).
 */
import { DEFAULT_RETRY_POLICY, SYSTEM_CLOCK, rateLimitWaitMs, withRetry, type FailureClass, type RetryClock, type RetryEvent, type RetryPolicy } from "./retry";

/** gitbeaker's requester shapes (structurally the same as @gitbeaker/requester-utils' types). */
export interface FormattedResponse<T = unknown> {
  body: T;
  headers: Record<string, string>;
  status: number;
}
export interface RequestOptions {
  body?: FormData | Record<string, unknown>;
  searchParams?: Record<string, unknown>;
  sudo?: string | number;
  method?: string;
  asStream?: boolean;
  signal?: AbortSignal;
}
type RequestFn = <T = any>(endpoint: string, options?: RequestOptions) => Promise<FormattedResponse<T>>;
export interface Requester {
  get: RequestFn;
  post: RequestFn;
  put: RequestFn;
  patch: RequestFn;
  delete: RequestFn;
}
export interface ResourceOptions {
  headers: Record<string, string>;
  authHeaders: Record<string, () => Promise<string>>;
  url: string;
}

/** GitLab answered with an HTTP error status. */
export class GitLabHttpError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly statusText: string,
    readonly contentType: string,
    /** Parsed JSON when the body was JSON, else the text. */
    readonly body: unknown,
    readonly headers: Headers,
  ) {
    super(`${method} ${path} answered ${status} ${statusText}`);
    this.name = "GitLabHttpError";
  }
}

/** The request never got an HTTP answer: refused, unknown host, reset, timed out, response dropped. */
export class GitLabNetworkError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    /** ECONNREFUSED, ENOTFOUND, ECONNRESET, ETIMEDOUT, UND_ERR_SOCKET, ... */
    readonly code: string,
    options: { cause: unknown },
  ) {
    super(`${method} ${path} failed: ${code}`, options);
    this.name = "GitLabNetworkError";
  }
}

/** A success status with a body that is not JSON: the URL serves something other than the GitLab API. */
export class NotGitLabApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly contentType: string,
  ) {
    super(`${method} ${path} answered ${status} with ${contentType || "no content type"} instead of JSON`);
    this.name = "NotGitLabApiError";
  }
}

export interface RequesterSettings {
  readonly policy?: RetryPolicy;
  readonly clock?: RetryClock;
  /** Time limit of one attempt. @default 30000 */
  readonly attemptTimeoutMs?: number;
  readonly onRetry?: (event: RetryEvent & { readonly method: string; readonly path: string }) => void;
}

/**
 * Whether a failed request may be sent again without looking first. A POST that
 * creates something (POST /user/runners) may have succeeded even when its answer was
 * lost; the reconciler decides what to do. Resetting a token again is harmless: the
 * newest token wins; verifying a token again only refreshes its contact time.
 */
export function isRetrySafe(method: string, endpoint: string): boolean {
  if (method !== "POST") return true;
  return /(^|\/)reset_authentication_token$/.test(endpoint) || /(^|\/)runners\/verify$/.test(endpoint);
}

/** Network failures worth another try. An unknown host (ENOTFOUND) is a wrong URL, not a hiccup. */
const TRANSIENT_NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EAI_AGAIN", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

export function classifyFailure(error: unknown, retrySafe: boolean, nowMs: number): FailureClass {
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

export function createRequesterFn(settings: RequesterSettings = {}): (resource: ResourceOptions) => Requester {
  return (resource) => {
    const call =
      (method: string): RequestFn =>
      async (endpoint, options = {}) => {
        const retrySafe = isRetrySafe(method, endpoint);
        const clock = settings.clock ?? SYSTEM_CLOCK;
        return withRetry(() => requestOnce(resource, method, endpoint, options, settings.attemptTimeoutMs ?? 30_000), {
          policy: settings.policy ?? DEFAULT_RETRY_POLICY,
          clock,
          classify: (error) => classifyFailure(error, retrySafe, clock.now()),
          onRetry: (event) => settings.onRetry?.({ ...event, method, path: apiPath(endpoint) }),
        });
      };
    return { get: call("GET"), post: call("POST"), put: call("PUT"), patch: call("PATCH"), delete: call("DELETE") };
  };
}

async function requestOnce(resource: ResourceOptions, method: string, endpoint: string, options: RequestOptions, timeoutMs: number): Promise<FormattedResponse<any>> {
  const base = resource.url.endsWith("/") ? resource.url : `${resource.url}/`;
  const url = new URL(endpoint, base);
  const query = formatQuery(options.searchParams ?? {});
  if (query) url.search = query;
  const headers: Record<string, string> = { ...resource.headers, accept: "application/json" };
  for (const [name, value] of Object.entries(resource.authHeaders)) headers[name] = await value();
  if (options.sudo !== undefined) headers.sudo = String(options.sudo);
  let body: string | undefined;
  if (options.body && !(options.body instanceof FormData)) {
    body = JSON.stringify(decamelizeKeys(options.body));
    headers["content-type"] = "application/json";
  }
  const path = apiPath(endpoint);
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);

  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, signal });
  } catch (cause) {
    throw new GitLabNetworkError(method, path, networkErrorCode(cause), { cause });
  }
  const contentType = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  let text: string;
  try {
    text = await response.text();
  } catch (cause) {
    throw new GitLabNetworkError(method, path, networkErrorCode(cause), { cause });
  }
  const isJson = contentType === "application/json" || contentType.endsWith("+json");
  if (!response.ok) {
    throw new GitLabHttpError(method, path, response.status, response.statusText, contentType, isJson ? parseJson(text) : text, response.headers);
  }
  if (response.status === 204 || (text === "" && method === "DELETE")) {
    return { body: null, headers: Object.fromEntries(response.headers.entries()), status: response.status };
  }
  if (!isJson) throw new NotGitLabApiError(method, path, response.status, contentType);
  return { body: parseJson(text), headers: Object.fromEntries(response.headers.entries()), status: response.status };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** "/api/v4/runners/12": how paths appear in messages. */
function apiPath(endpoint: string): string {
  return `/api/v4/${endpoint.replace(/^\//, "").split("?")[0]}`;
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

/** `tagList` -> `tag_list`: gitbeaker hands us camelCase option names. */
export function decamelize(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function decamelizeKeys(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined).map(([key, value]) => [decamelize(key), value]));
}

/** GitLab's query encoding as gitbeaker does it: snake_case names, arrays as `name[]=a&name[]=b`. */
export function formatQuery(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    const name = decamelize(key);
    if (Array.isArray(value)) for (const item of value) search.append(`${name}[]`, String(item));
    else search.append(name, String(value));
  }
  return search.toString();
}
