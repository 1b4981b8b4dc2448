/**
 * Reads one HTTP answer the way an admin-token client must: a redirect is refused (never
 * followed, so the token cannot reach another host), and the body is read up to a cap,
 * so a hostile or broken server cannot fill memory. The attempt's time limit (an
 * AbortSignal on the fetch) also covers reading the body: a server that stops halfway
 * ends the attempt in bounded time.
 */
import { AnswerTooLargeError, RedirectRefusedError } from "./wire-failures";

/**
 * Largest body accepted, in bytes. The biggest answer we ask for is a page of 100 runner
 * jobs (a few KiB each); 4 MiB leaves ample room and stops a runaway body early.
 */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Throws RedirectRefusedError for a 3xx (fetch with redirect: "manual" hands it to us). */
export function refuseRedirect(response: Response, request: { method: string; path: string; baseUrl: URL }): void {
  if (response.status < 300 || response.status > 399 || response.status === 304) return;
  const raw = response.headers.get("location") ?? "";
  let location = "";
  let sameOrigin = false;
  if (raw) {
    try {
      const target = new URL(raw, request.baseUrl);
      // Origin and path only: a query or a user:password@ part may carry a secret.
      location = `${target.origin}${target.pathname}`;
      sameOrigin = target.origin === request.baseUrl.origin;
    } catch {
      location = "(an unreadable Location)";
    }
  }
  void response.body?.cancel().catch(() => undefined);
  throw new RedirectRefusedError(request.method, request.path, response.status, location, sameOrigin);
}

/** The body as text, or AnswerTooLargeError as soon as it passes `maxBytes`. */
export async function readCappedText(response: Response, request: { method: string; path: string }, maxBytes = MAX_ANSWER_BYTES): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw new AnswerTooLargeError(request.method, request.path, maxBytes);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLargeError(request.method, request.path, maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
