/**
 * A local HTTP(S) server whose every answer the test decides: the broken or hostile
 * "GitLab" of the wire tests (redirects, junk bodies, loops, silence). It records what
 * each request carried, so a test can show where a token did or did not go.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";

export interface SeenRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface HostileServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  handle: Handler;
  stop(): Promise<void>;
}

/** Starts a server on 127.0.0.1 (https when `tls` is given); `handle` may be replaced at any time. */
export async function startHostileServer(handle: Handler = (_request, response) => response.end(), tls?: { key: string; cert: string }): Promise<HostileServer> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server: { handle: Handler } = { handle };
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers });
    server.handle(request, response);
  };
  const http: Server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener);
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    get handle() {
      return server.handle;
    },
    set handle(next: Handler) {
      server.handle = next;
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Answers JSON with `status`, as GitLab does. */
export function json(response: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/** Every header value a server saw, lowercased names: to look for a token anywhere in them. */
export function headerText(requests: readonly SeenRequest[]): string {
  return requests.map((request) => JSON.stringify(request.headers)).join("\n");
}
