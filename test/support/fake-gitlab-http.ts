/** HTTP pieces of the fake GitLab: answers, bodies, GitLab's offset pagination. */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** A random string of `length` letters and digits, generated at run time. */
export function randomText(length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join("");
}

export class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export function forbidden(reason?: string): HttpAnswer {
  return new HttpAnswer(403, { message: reason ? `403 Forbidden - ${reason}` : "403 Forbidden" });
}

/**
 * Offset pagination as GitLab does it (`present` turns an item of the page into its JSON): page (1), per_page (20, at most
 * `maxPerPage`: GitLab's 100, unless a test makes pages smaller); X-Page, X-Per-Page,
 * X-Next-Page / X-Prev-Page ("" when none), X-Total, X-Total-Pages; Link rel=prev/next/first/last
 * with absolute URLs that keep the query.
 */
export function paginate<T>(url: URL, items: readonly T[], present: (item: T) => unknown = (item) => item, maxPerPage = 100): HttpAnswer {
  const perPage = Math.min(maxPerPage, Math.max(1, Number(url.searchParams.get("per_page") ?? 20) || 20));
  const totalPages = Math.max(1, Math.ceil(items.length / perPage));
  const page = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
  // Only the page's items are presented: a listing of a thousand runners answers a hundred.
  const slice = items.slice((page - 1) * perPage, page * perPage).map((item) => present(item));
  const pageUrl = (number: number) => {
    const link = new URL(url.toString());
    link.searchParams.set("page", String(number));
    link.searchParams.set("per_page", String(perPage));
    return link.toString();
  };
  const links = [
    ...(page > 1 ? [`<${pageUrl(page - 1)}>; rel="prev"`] : []),
    ...(page < totalPages ? [`<${pageUrl(page + 1)}>; rel="next"`] : []),
    `<${pageUrl(1)}>; rel="first"`,
    `<${pageUrl(totalPages)}>; rel="last"`,
  ];
  return new HttpAnswer(200, slice, {
    "x-page": String(page),
    "x-per-page": String(perPage),
    "x-next-page": page < totalPages ? String(page + 1) : "",
    "x-prev-page": page > 1 ? String(page - 1) : "",
    "x-total": String(items.length),
    "x-total-pages": String(totalPages),
    link: links.join(", "),
  });
}

/** Rack::Attack's throttle answer. */
export function rackAttack429(retryAfterSeconds?: number, resetInSeconds?: number): HttpAnswer {
  const now = Math.floor(Date.now() / 1000);
  const reset = now + (resetInSeconds ?? retryAfterSeconds ?? 60);
  return new HttpAnswer(429, "Retry later\n", {
    "content-type": "text/plain",
    ...(retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) }),
    "ratelimit-name": "throttle_authenticated_api",
    "ratelimit-limit": "600",
    "ratelimit-observed": "601",
    "ratelimit-remaining": "0",
    "ratelimit-reset": String(reset),
    "ratelimit-resettime": new Date(reset * 1000).toUTCString(),
  });
}

export function send(res: ServerResponse, answer: HttpAnswer): void {
  const headers = { ...answer.headers };
  let payload = "";
  if (answer.status !== 204) {
    if (typeof answer.body === "string") payload = answer.body;
    else {
      payload = JSON.stringify(answer.body);
      headers["content-type"] ??= "application/json";
    }
  }
  res.writeHead(answer.status, headers);
  res.end(payload);
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** A JSON or form body (arrays as `name[]`). */
export function parseBody(text: string, contentType: string | undefined): Record<string, unknown> {
  if (!text) return {};
  if (contentType?.includes("application/json")) return JSON.parse(text) as Record<string, unknown>;
  const form: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (key.endsWith("[]")) form[key.slice(0, -2)] = [...((form[key.slice(0, -2)] as string[]) ?? []), value];
    else form[key] = value;
  }
  return form;
}
