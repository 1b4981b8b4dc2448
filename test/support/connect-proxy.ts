/**
 * A forward proxy that does what corporate proxies do for https: CONNECT host:port, then
 * blind byte piping (RFC 9110 section 9.3.6). It records the CONNECT targets and every
 * byte it relayed, so a test can show the token crossed it only inside TLS.
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

export interface ConnectProxy {
  readonly url: string;
  readonly tunnels: string[];
  /** Everything relayed in either direction, as latin1 text. */
  relayed(): string;
  stop(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_request, response) => {
    response.writeHead(405);
    response.end();
  });
  server.on("connect", (request, client: Socket, head: Buffer) => {
    tunnels.push(request.url ?? "");
    const [host, port] = (request.url ?? "").split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      client.on("data", (data: Buffer) => chunks.push(data));
      upstream.on("data", (data: Buffer) => chunks.push(data));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    relayed: () => Buffer.concat(chunks).toString("latin1"),
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
