/**
 * A small stand-in for GitLab's merge request notes API, on 127.0.0.1 and a
 * free port: PRIVATE-TOKEN (or Bearer) auth, GET with GitLab's offset
 * pagination headers and Link, POST to create, PUT to edit.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeNote {
  id: number;
  body: string;
  system: boolean;
  author: { id: number; username: string };
  created_at: string;
  updated_at: string;
}

export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
}

export interface FakeGitLabNotesOptions {
  /** The token that may read and write. */
  readonly token: string;
  /** A token that may read but gets 403 on writes. */
  readonly readOnlyToken?: string;
  /** Merge requests that exist, as "<projectId>!<iid>" (project ids as sent, URL-decoded). */
  readonly mergeRequests: readonly string[];
  /** GitLab's default page size is 20. */
  readonly defaultPerPage?: number;
}

export interface FakeGitLabNotes {
  readonly url: string;
  readonly requests: FakeRequest[];
  /** Notes of one merge request, in creation order. */
  notes(projectId: string, iid: number): FakeNote[];
  /** Adds notes as if people had commented. */
  seed(projectId: string, iid: number, bodies: readonly string[], options?: { system?: boolean }): void;
  close(): Promise<void>;
}

export async function startFakeGitLabNotes(options: FakeGitLabNotesOptions): Promise<FakeGitLabNotes> {
  const store = new Map<string, FakeNote[]>(options.mergeRequests.map((key) => [key, []]));
  const requests: FakeRequest[] = [];
  let nextId = 1000;
  const now = () => new Date().toISOString();
  const addNote = (key: string, body: string, system = false): FakeNote => {
    const note = { id: nextId++, body, system, author: { id: 7, username: "review-bot" }, created_at: now(), updated_at: now() };
    store.get(key)!.push(note);
    return note;
  };

  const server: Server = createServer((request, response) => {
    readBody(request).then(
      (raw) => handle(request, response, raw),
      () => send(response, 400, { error: "bad body" }),
    );
  });

  const handle = (request: IncomingMessage, response: ServerResponse, raw: string) => {
    const url = new URL(request.url ?? "/", `http://${request.headers.host}`);
    const query = Object.fromEntries(url.searchParams.entries());
    requests.push({ method: request.method ?? "GET", path: url.pathname, query });

    const token = request.headers["private-token"] ?? bearer(request.headers.authorization);
    const writable = token === options.token;
    const readable = writable || (options.readOnlyToken !== undefined && token === options.readOnlyToken);
    if (!readable) return send(response, 401, { message: "401 Unauthorized" });

    const match = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(url.pathname);
    if (!match) return send(response, 404, { error: "404 Not Found" });
    const key = `${decodeURIComponent(match[1])}!${match[2]}`;
    const notes = store.get(key);
    if (!notes) return send(response, 404, { message: "404 Not found" });
    const noteId = match[3] ? Number(match[3]) : undefined;

    if (request.method === "GET" && noteId === undefined) return sendPage(response, url, notes, options.defaultPerPage ?? 20);
    if (request.method !== "GET" && !writable) return send(response, 403, { message: "403 Forbidden" });
    const body = parseBody(request, raw).body;
    if (request.method === "POST" && noteId === undefined) {
      if (typeof body !== "string" || body === "") return send(response, 400, { error: "body is missing" });
      return send(response, 201, addNote(key, body));
    }
    if (request.method === "PUT" && noteId !== undefined) {
      const note = notes.find((candidate) => candidate.id === noteId);
      if (!note) return send(response, 404, { message: "404 Note Not Found" });
      if (typeof body !== "string") return send(response, 400, { error: "body is missing" });
      note.body = body;
      note.updated_at = now();
      return send(response, 200, note);
    }
    return send(response, 405, { message: "405 Method Not Allowed" });
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    notes: (projectId, iid) => store.get(`${projectId}!${iid}`) ?? [],
    seed: (projectId, iid, bodies, seedOptions) => {
      for (const body of bodies) addNote(`${projectId}!${iid}`, body, seedOptions?.system);
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** Offset pagination as GitLab does it: X-* headers and a Link header with absolute URLs keeping the query. */
function sendPage(response: ServerResponse, url: URL, notes: readonly FakeNote[], defaultPerPage: number): void {
  const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get("per_page")) || defaultPerPage));
  const page = Math.max(1, Number(url.searchParams.get("page")) || 1);
  const descending = (url.searchParams.get("sort") ?? "desc") === "desc";
  const ordered = descending ? [...notes].reverse() : [...notes];
  const totalPages = Math.max(1, Math.ceil(ordered.length / perPage));
  const items = ordered.slice((page - 1) * perPage, page * perPage);
  const pageUrl = (target: number) => {
    const link = new URL(url.toString());
    link.searchParams.set("page", String(target));
    link.searchParams.set("per_page", String(perPage));
    return link.toString();
  };
  const links = [
    page > 1 ? `<${pageUrl(page - 1)}>; rel="prev"` : undefined,
    page < totalPages ? `<${pageUrl(page + 1)}>; rel="next"` : undefined,
    `<${pageUrl(1)}>; rel="first"`,
    `<${pageUrl(totalPages)}>; rel="last"`,
  ].filter(Boolean);
  response.setHeader("X-Page", String(page));
  response.setHeader("X-Per-Page", String(perPage));
  response.setHeader("X-Next-Page", page < totalPages ? String(page + 1) : "");
  response.setHeader("X-Prev-Page", page > 1 ? String(page - 1) : "");
  response.setHeader("X-Total", String(ordered.length));
  response.setHeader("X-Total-Pages", String(totalPages));
  response.setHeader("Link", links.join(", "));
  send(response, 200, items);
}

function send(response: ServerResponse, status: number, payload: unknown): void {
  response.writeHead(status, { "Content-Type": "application/json" });
  response.end(JSON.stringify(payload));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function parseBody(request: IncomingMessage, raw: string): Record<string, unknown> {
  if (raw === "") return {};
  const type = request.headers["content-type"] ?? "";
  if (type.includes("application/json")) return JSON.parse(raw) as Record<string, unknown>;
  return Object.fromEntries(new URLSearchParams(raw).entries());
}

function bearer(header: string | undefined): string | undefined {
  return header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
}
