/**
 * What can go wrong with one request, as the requester (./requester.ts) and the client
 * (./client.ts) see it. Internal to lib/gitlab: ./errors.ts turns each into a GitLabApiError
 * with a kind. Kept apart from the requester so that ./errors.ts loads without gitbeaker.
 */

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

/**
 * The run's first requests found no GitLab at gitlab.url: the connection was refused, the host
 * name does not resolve, or the host never accepted the connection. Nothing has answered from
 * there in this run, so this is a wrong URL or a GitLab that is down, not a hiccup: it is not
 * retried (./requester.ts), and every call of the run would fail the same way.
 */
export class GitLabNotReachedError extends GitLabNetworkError {
  constructor(
    network: GitLabNetworkError,
    /** The host and port the connection went to: "127.0.0.1:8080", "gitlab.example.com:443" (the proxy's, through one). */
    readonly hostAndPort: string,
    readonly hostname: string,
    /** Set when the connection went to gitlab.proxy, not to GitLab: then the proxy is what is not there. */
    readonly throughProxy: boolean,
  ) {
    super(network.method, network.path, network.code, { cause: network.cause });
    this.name = "GitLabNotReachedError";
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

/** A success whose body is not what GitLab documents for the call (the body is not kept: it may hold a token). */
export class UnexpectedAnswerError extends Error {
  constructor(
    /** "POST /api/v4/user/runners" */
    readonly call: string,
    /** Where the body differs, e.g. "token: expected string". */
    readonly detail: string,
  ) {
    super(`${call} answered an unexpected shape: ${detail}`);
    this.name = "UnexpectedAnswerError";
  }
}
