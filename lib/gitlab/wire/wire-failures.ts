/**
 * Answers the requester refuses before gitbeaker or the client ever sees them. Like
 * ../http-failures.ts they never leave lib/gitlab: ../errors.ts turns each into a
 * GitLabApiError. None keeps a body or a query string (either may carry a token).
 */

/** GitLab (or something in front of it) answered 3xx. Following it could send the token elsewhere. */
export class RedirectRefusedError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    /** Origin and path of the Location, without its query; "" when there was none. */
    readonly location: string,
    /** Whether the Location is on the origin of gitlab.url. */
    readonly sameOrigin: boolean,
  ) {
    super(`${method} ${path} answered ${status} redirecting to ${location || "(no Location)"}`);
    this.name = "RedirectRefusedError";
  }
}

/** A body longer than the requester accepts: no GitLab answer of ours comes near it. */
export class AnswerTooLargeError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly limitBytes: number,
  ) {
    super(`${method} ${path} answered more than ${limitBytes} bytes`);
    this.name = "AnswerTooLargeError";
  }
}

/** A body labelled JSON that does not parse (cut short, or not JSON at all). */
export class MalformedJsonError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
  ) {
    super(`${method} ${path} answered ${status} with JSON that does not parse`);
    this.name = "MalformedJsonError";
  }
}

/** A listing whose Link rel="next" went back to a page already read, or past the page cap. */
export class PaginationLoopError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`the listing ${path} ${reason}`);
    this.name = "PaginationLoopError";
  }
}

/** The requester was asked to send to another origin than gitlab.url's (never done). */
export class OffOriginRequestError extends Error {
  constructor(
    readonly method: string,
    readonly origin: string,
    readonly expectedOrigin: string,
  ) {
    super(`${method} to ${origin} refused: the token only goes to ${expectedOrigin}`);
    this.name = "OffOriginRequestError";
  }
}
