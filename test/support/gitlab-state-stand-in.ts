/**
 * GitLab-managed Terraform state, as GitLab's lib/api/terraform/state.rb serves it to Terraform's http
 * backend (gitlabhq/gitlabhq), for the real `terraform` to write and read:
 *
 * - every request authenticates (`authenticate!`: HTTP Basic, the password a token): 401 without a
 *   token GitLab takes;
 * - `GET /projects/:id/terraform/state/:name`: 200 with the state, 204 for a state with no file yet
 *   ("Empty state"), 404 for a name the project has none of;
 * - `POST` of the same path (`?ID=<lock id>`): stores the body, the new state;
 * - `POST .../lock` with the lock's JSON: 200, or 409 when another lock holds it; `DELETE .../lock`: 200.
 *
 * The requests are kept, with the user each named, for the tests to read.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface StateRequest {
  readonly method: string;
  readonly path: string;
  readonly user?: string;
}

export class GitLabStateStandIn {
  readonly requests: StateRequest[] = [];
  private readonly states = new Map<string, string>();
  private readonly locks = new Map<string, string>();
  /** States whose reads are never answered (a GitLab behind a proxy that holds the connection). */
  private readonly unanswered = new Set<string>();
  private server?: Server;

  constructor(private readonly token: string) {}

  /** The API's v4 URL, as a model's state.api_url names it. */
  get apiUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/api/v4`;
  }

  /** A state as an earlier apply left it ("" is a state with no file yet: 204). */
  seed(projectId: string, name: string, state: string): void {
    this.states.set(statePath(projectId, name), state);
  }

  neverAnswer(projectId: string, name: string): void {
    this.unanswered.add(statePath(projectId, name));
  }

  stateOf(projectId: string, name: string): string | undefined {
    return this.states.get(statePath(projectId, name));
  }

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => (body += chunk));
      request.on("end", () => {
        if (this.unanswered.has(new URL(request.url ?? "/", "http://stand-in").pathname)) return;
        const { status, text } = this.answer(request, body);
        response.writeHead(status, { "content-type": "application/json" }).end(text);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private answer(request: IncomingMessage, body: string): { status: number; text?: string } {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const credentials = basicCredentials(request.headers.authorization);
    this.requests.push({ method: request.method ?? "", path: url.pathname, user: credentials?.user });
    if (credentials?.password !== this.token) return { status: 401, text: '{"message":"401 Unauthorized"}' };
    const lock = url.pathname.endsWith("/lock");
    const path = lock ? url.pathname.slice(0, -"/lock".length) : url.pathname;
    if (!/^\/api\/v4\/projects\/[^/]+\/terraform\/state\/[^/]+$/.test(path)) return { status: 404, text: '{"message":"404 Not Found"}' };
    if (lock && request.method === "POST") {
      if (this.locks.has(path)) return { status: 409, text: this.locks.get(path) };
      this.locks.set(path, body);
      return { status: 200 };
    }
    if (lock && request.method === "DELETE") {
      this.locks.delete(path);
      return { status: 200 };
    }
    if (request.method === "GET") {
      const state = this.states.get(path);
      if (state === undefined) return { status: 404, text: '{"message":"404 Not Found"}' };
      return state === "" ? { status: 204 } : { status: 200, text: state };
    }
    if (request.method === "POST") {
      this.states.set(path, body);
      return { status: 200 };
    }
    return { status: 405 };
  }
}

function statePath(projectId: string, name: string): string {
  return `/api/v4/projects/${encodeURIComponent(projectId)}/terraform/state/${encodeURIComponent(name)}`;
}

function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  if (!header?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
