/**
 * Where the admin token may travel. It goes to the origin of gitlab.url and nowhere else:
 * - gitlab.url is https://, or plain http:// on a loopback address (a GitLab on this machine,
 *   or a test stand-in), or plain http:// with the model's loudly named
 *   `gitlab.allow_insecure_http_token_in_clear_text: true`, which every run repeats as a warning;
 * - no request leaves that origin: redirects are refused (lib/gitlab/wire/read-answer.ts), and the
 *   requester checks each URL it sends against the base URL's origin.
 */
import ipaddr from "ipaddr.js";

/** The model setting that lets the token travel in clear text, named so that nobody sets it by accident. */
export const INSECURE_HTTP_SETTING = "allow_insecure_http_token_in_clear_text";

/** localhost, *.localhost (RFC 6761 keeps them on this machine), 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host);
  return address.range() === "loopback";
}

/** Why the token may not be sent to `url`, or undefined when it may. */
export function insecureUrlProblem(url: string, allowInsecureHttp: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (parsed.protocol === "https:") return undefined;
  if (parsed.protocol !== "http:") return `${parsed.protocol} is not http(s)`;
  if (isLoopbackHost(parsed.hostname) || allowInsecureHttp) return undefined;
  return `${parsed.origin} is plain http on a host that is not this machine: the GitLab token would cross the network in clear text. Use https://, or set gitlab.${INSECURE_HTTP_SETTING}: true to accept that risk`;
}

/** The warning every run prints while the insecure setting is on and the URL is plain http on another host. */
export function insecureHttpWarning(url: string, allowInsecureHttp: boolean): string | undefined {
  if (!allowInsecureHttp || insecureUrlProblem(url, false) === undefined) return undefined;
  return `WARNING: gitlab.${INSECURE_HTTP_SETTING} is set: the GitLab token is sent in clear text to ${new URL(url).origin}; anyone on the network path can read it and administer the runners`;
}
