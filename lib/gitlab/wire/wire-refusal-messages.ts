/** The sentences ../errors.ts uses for the refusals of ./wire-failures.ts: what happened at which host, and the likely cause. */
import { formatBytes } from "./format-bytes";
import { AnswerTooLargeError, MalformedJsonError, OffOriginRequestError, PaginationLoopError, RedirectRefusedError } from "./wire-failures";

export interface WireRefusal {
  /** Kinds of ../errors.ts GitLabFailureKind (named here, not imported: errors.ts imports this file). */
  readonly kind: "no-api" | "unexpected-answer";
  readonly text: string;
  readonly status?: number;
}

/** `at`: gitlab.url, as messages show it. Undefined when `error` is not a wire refusal. */
export function describeWireRefusal(error: unknown, at: string): WireRefusal | undefined {
  if (error instanceof RedirectRefusedError) {
    const where = error.location || "no Location";
    const cause = error.sameOrigin
      ? "GitLab moved this address; set gitlab.url to the instance's root URL as it is served (https, host and path)"
      : "a proxy or login page in front of GitLab, or a gitlab.url that is not the instance's root URL (http instead of https, an old host name)";
    return {
      kind: "no-api",
      status: error.status,
      text: `GitLab at ${at} answered ${error.method} ${error.path} with a redirect (${error.status}) to ${where}. Redirects are never followed, so the token is not sent there. Likely cause: ${cause}.`,
    };
  }
  if (error instanceof AnswerTooLargeError) {
    return { kind: "unexpected-answer", text: `GitLab at ${at} answered ${error.method} ${error.path} with more than ${formatBytes(error.limitBytes)}, which no GitLab answer of ours comes near; nothing was read from it. Check gitlab.url: a proxy may stand in front of GitLab.` };
  }
  if (error instanceof MalformedJsonError) {
    return { kind: "unexpected-answer", status: error.status, text: `GitLab at ${at} answered ${error.method} ${error.path} with JSON that does not parse (cut short, or not JSON); nothing was done with it. Try again; if it persists, check what stands between here and GitLab.` };
  }
  if (error instanceof PaginationLoopError) {
    return { kind: "unexpected-answer", text: `GitLab at ${at}: ${error.message}; the listing was abandoned rather than trusted. Check what stands between here and GitLab.` };
  }
  if (error instanceof OffOriginRequestError) {
    return { kind: "no-api", text: `a request to ${error.origin} was refused: the token only goes to GitLab at ${error.expectedOrigin}.` };
  }
  return undefined;
}
