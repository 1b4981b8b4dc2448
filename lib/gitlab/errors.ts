/**
 * Turns what went wrong talking to GitLab into one plain sentence for the person
 * running the command: which call, what GitLab said, and what to check. Tokens never
 * appear: every message goes through the redaction of lib/text/redact.ts.
 */
import { OperationalError } from "../process/errors";
import { redactSecrets, redactValue } from "../text/redact";
import { GitLabHttpError, GitLabNetworkError, GitLabNotReachedError, NotGitLabApiError, UnexpectedAnswerError } from "./http-failures";
import { RetryBudgetExceededError, formatMs } from "./retry";
import { describeTlsFailure, isTlsFailure } from "./wire/tls-failures";
import { describeWireRefusal } from "./wire/wire-refusal-messages";

/** The one vocabulary of GitLab failures, for every caller (onboard, status, prune, review notes). */
export type GitLabFailureKind =
  /** 401: the token is wrong, expired or revoked. */
  | "unauthorized"
  /** 403: the token lacks a scope or a role. */
  | "forbidden"
  /** Another 4xx: GitLab refused the request as sent (its words are quoted). */
  | "rejected"
  /** 404 for an object ({"message"}): it does not exist, or the token cannot see it. */
  | "not-found"
  /** The URL serves something other than GitLab's API (an HTML page, a 404 route). */
  | "no-api"
  /** No HTTP answer: refused, unknown host, reset, timed out. */
  | "unreachable"
  /** Nothing answered at gitlab.url in this run (refused, unknown host): the same for every call, so its message names no call. */
  | "not-reached"
  /** 5xx. */
  | "server"
  /** 409 or 412: not possible in the object's current state. */
  | "conflict"
  /** 429 that was not retried. */
  | "rate-limited"
  /** A success whose body is not GitLab's documented shape. */
  | "unexpected-answer"
  /** Retried until the time budget ran out; the message names the last failure. */
  | "gave-up";

/** What to tell the user for a kind of failure, when the default (runner administration) does not fit the call. */
export type FailureHints = Partial<Record<"forbidden" | "not-found", string>>;

/** What is known of a GitLab failure besides its message. */
export interface GitLabFailure {
  readonly kind: GitLabFailureKind;
  /** The request may have been carried out although no answer came back. @default false */
  readonly outcomeUnknown?: boolean;
  /** The HTTP status GitLab answered, when it answered. */
  readonly status?: number;
  /** Worth another try later. @default - only a "server" failure */
  readonly transient?: boolean;
}

/** An OperationalError (exit 1) that still knows what kind of failure it was. */
export class GitLabApiError extends OperationalError {
  /** Worth another try later: GitLab failed (5xx) or could not be reached (except an unknown host). */
  readonly transient: boolean;
  readonly kind: GitLabFailureKind;
  /** True when the request may have been carried out although no answer came back (5xx, dropped connection, timeout). */
  readonly outcomeUnknown: boolean;
  readonly status?: number;
  constructor(message: string, failure: GitLabFailure, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GitLabApiError";
    this.kind = failure.kind;
    this.outcomeUnknown = Boolean(failure.outcomeUnknown);
    this.status = failure.status;
    this.transient = failure.transient ?? failure.kind === "server";
  }
}

/** GitLab cannot be used at all for now (not reached, or kept failing past the retry budget): later calls of the run would fail the same way. */
export function isOutOfReach(kind: GitLabFailureKind): boolean {
  return kind === "unreachable" || kind === "not-reached" || kind === "gave-up";
}

export interface FailureContext {
  /** What we were doing, as a verb phrase: "create the runner of shard small-amd64". */
  readonly action: string;
  readonly baseUrl: string;
  readonly tokenEnv: string;
  /** Secret values to scrub from messages even when they carry no known prefix. */
  readonly secrets?: readonly (string | undefined)[];
  readonly hints?: FailureHints;
  /** Where the URL was set, as messages tell the user to check it. @default "gitlab.url in the model" */
  readonly urlSource?: string;
}

/** GitLab's error text in any of its body shapes: {"error"}, {"message": "..."}, {"message": {field: [..]}}. */
export function gitlabErrorText(body: unknown): string | undefined {
  // A text body is a proxy's or a web server's page, not GitLab's words: its first line, cut short, keeps the message one line.
  if (typeof body === "string") return firstLine(body) || undefined;
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  const { message, error, error_description: description } = record;
  if (typeof message === "string") return message;
  if (message && typeof message === "object") {
    if (typeof (message as Record<string, unknown>).error === "string") return (message as Record<string, string>).error;
    return Object.entries(message as Record<string, unknown>)
      .map(([field, problems]) => `${field} ${Array.isArray(problems) ? problems.join(", ") : String(problems)}`)
      .join("; ");
  }
  if (typeof error === "string") return typeof description === "string" ? `${error}: ${description}` : error;
  return undefined;
}

const MAX_QUOTED_CHARS = 200;

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0]?.trim() ?? "";
  return line.length > MAX_QUOTED_CHARS ? `${line.slice(0, MAX_QUOTED_CHARS)}…` : line;
}

/** A 404 about a missing object ({"message": "404 ... Not found"}), not an unknown route ({"error": "404 Not Found"}). */
export function isMissingObject(error: unknown): boolean {
  return (
    error instanceof GitLabHttpError &&
    error.status === 404 &&
    typeof error.body === "object" &&
    error.body !== null &&
    typeof (error.body as Record<string, unknown>).message === "string"
  );
}

export function describeGitLabFailure(error: unknown, context: FailureContext): GitLabApiError {
  const scrub = (text: string) => context.secrets?.reduce<string>((out, secret) => redactValue(out, secret), text) ?? redactSecrets(text);
  const make = (kind: GitLabFailureKind, text: string, facts: Omit<GitLabFailure, "kind"> = {}) =>
    new GitLabApiError(scrub(`cannot ${context.action}: ${text}`), { kind, ...facts }, { cause: error });
  const at = context.baseUrl;

  if (error instanceof GitLabApiError) return error;
  if (error instanceof RetryBudgetExceededError) {
    const last = describeGitLabFailure(error.cause, context);
    const lastText = last.message.replace(`cannot ${context.action}: `, "");
    const attempts = `${error.attempts} attempt${error.attempts === 1 ? "" : "s"}`;
    const asked = error.requestedWaitMs === undefined ? "" : ` GitLab asked to wait ${formatMs(error.requestedWaitMs)}, longer than the retry budget allows.`;
    return new GitLabApiError(
      scrub(
        `cannot ${context.action}: GitLab at ${at} kept failing; gave up after ${attempts} in ${formatMs(error.elapsedMs)} (retry budget ${formatMs(error.budgetMs)}, set --retry-timeout).${asked} Last failure: ${lastText}`,
      ),
      { kind: "gave-up", outcomeUnknown: last.outcomeUnknown, status: last.status },
      { cause: error },
    );
  }
  if (error instanceof GitLabNotReachedError) {
    // One cause for every call of the run: said once, without the call that happened to go first.
    return new GitLabApiError(scrub(`cannot reach GitLab at ${at}: ${describeNotReached(error, context.urlSource ?? "gitlab.url in the model")}`), { kind: "not-reached", transient: false }, { cause: error });
  }
  const refusal = describeWireRefusal(error, at);
  if (refusal) return make(refusal.kind, refusal.text, { status: refusal.status });
  if (error instanceof UnexpectedAnswerError) {
    return make("unexpected-answer", `GitLab at ${at} answered ${error.call} with something other than the documented shape (${error.detail}). Check gitlab.url: a proxy may stand in front of GitLab.`);
  }
  if (error instanceof NotGitLabApiError) {
    return make(
      "no-api",
      `${at} does not look like a GitLab instance: ${error.method} ${error.path} answered ${error.status} with ${error.contentType || "no content type"} instead of JSON. Check gitlab.url in the model: it must be the instance's root URL, such as https://gitlab.example.com.`,
      { status: error.status },
    );
  }
  if (error instanceof GitLabNetworkError && isTlsFailure(error.code)) {
    // Nothing was sent: the handshake failed before any request (and the token) left.
    return make("unreachable", `cannot reach GitLab at ${at} (${error.method} ${error.path}): ${describeTlsFailure(error.code)}`, { transient: false });
  }
  if (error instanceof GitLabNetworkError) {
    const what =
      error.code === "ECONNREFUSED"
        ? "the connection was refused"
        : error.code === "ENOTFOUND" || error.code === "EAI_AGAIN"
          ? "the host name does not resolve"
          : error.code === "ETIMEDOUT" || (error.code.startsWith("UND_ERR_") && error.code.endsWith("TIMEOUT"))
            ? "the request timed out"
            : error.code === "UND_ERR_SOCKET" || error.code === "ECONNRESET"
              ? "the connection closed before GitLab answered"
              : `a network error (${error.code})`;
    const unknown = !["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"].includes(error.code);
    // An unknown host is a wrong URL, not a hiccup: not worth another try.
    const transient = error.code !== "ENOTFOUND";
    return make("unreachable", `cannot reach GitLab at ${at} (${error.method} ${error.path}): ${what}. Check gitlab.url and that the host is up and reachable from here.`, {
      outcomeUnknown: unknown,
      transient,
    });
  }
  if (error instanceof GitLabHttpError) {
    const said = gitlabErrorText(error.body);
    const answer = `${error.method} ${error.path} answered ${error.status}${said ? ` ${JSON.stringify(said)}` : ` ${error.statusText}`}`;
    switch (true) {
      case error.status === 401:
        return make("unauthorized", `GitLab at ${at} rejected the token in $${context.tokenEnv} (${answer}): it is wrong, expired or revoked.`, { status: 401 });
      case error.status === 403:
        return make(
          "forbidden",
          `GitLab at ${at} refused (${answer}). ${
            context.hints?.forbidden ??
            `The token in $${context.tokenEnv} needs the api scope (or create_runner and manage_runner), and instance runners need an administrator's token (group and project runners: the Owner role).`
          }`,
          { status: 403 },
        );
      case error.status === 404 && typeof error.body === "string":
        return make(
          "no-api",
          `${at} does not look like a GitLab instance: ${error.method} ${error.path} answered 404 with ${error.contentType || "no content type"} instead of GitLab's JSON. Check gitlab.url in the model: it must be the instance's root URL, such as https://gitlab.example.com.`,
          { status: 404 },
        );
      case error.status === 404 && !isMissingObject(error):
        return make(
          "no-api",
          `GitLab at ${at} has no such API route (${answer}). Check gitlab.url (the instance's root URL) and that GitLab is 16.0 or newer.`,
          { status: 404 },
        );
      case error.status === 404:
        return make("not-found", context.hints?.["not-found"] ? `${answer}: ${context.hints["not-found"]}` : answer, { status: 404 });
      case error.status === 409 || error.status === 412:
        return make("conflict", `GitLab at ${at} refused the change in the object's current state (${answer}).`, { status: error.status });
      case error.status === 429:
        return make("rate-limited", `GitLab at ${at} is rate limiting this token (${answer}).`, { status: 429 });
      case error.status >= 500:
        return make("server", `GitLab at ${at} failed (${answer}).`, { outcomeUnknown: true, status: error.status });
      default:
        return make("rejected", `GitLab rejected the request (${answer}).`, { status: error.status });
    }
  }
  const text = error instanceof Error ? error.message : String(error);
  return make("unreachable", `unexpected failure talking to GitLab at ${at}: ${text}`, { outcomeUnknown: true });
}

/** What was not there, and what to check: "the connection to 127.0.0.1:8080 was refused: nothing listens there. Check ..." */
function describeNotReached(error: GitLabNotReachedError, urlSource: string): string {
  if (error.throughProxy) {
    const what = error.code === "ECONNREFUSED" ? "was refused: nothing listens there" : error.code === "ENOTFOUND" ? "failed: its host name does not resolve" : `failed (${error.code})`;
    return `the connection to the proxy at ${error.hostAndPort} ${what}. Check gitlab.proxy in the model and that the proxy is running.`;
  }
  switch (error.code) {
    case "ECONNREFUSED":
      return `the connection to ${error.hostAndPort} was refused: nothing listens there. Check ${urlSource} (host and port) and that GitLab is running.`;
    case "ENOTFOUND":
      return `the host name ${error.hostname} does not resolve. Check ${urlSource} for a typo, and this machine's DNS.`;
    case "EAI_AGAIN":
      return `the host name ${error.hostname} could not be looked up (no answer from DNS). Check this machine's DNS, and ${urlSource}.`;
    default:
      return `${error.hostAndPort} did not accept the connection in time (${error.code}): a firewall dropping it, or the wrong host. Check ${urlSource} and that this machine may reach it.`;
  }
}
