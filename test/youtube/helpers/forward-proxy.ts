/**
 * A tiny HTTP proxy for the rotation tests. It tunnels CONNECT (what
 * undici's ProxyAgent sends by default) and forwards absolute-URI requests
 * (what it sends with `proxyTunnel: false`), and logs the request line of
 * every request it carried so a test can see which call left through which proxy.
 */
import { createServer, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface ProxyLogEntry {
  proxy: string;
  requestLine: string;
}

export interface ForwardProxy {
  url: string;
  name: string;
  /** Requests carried: one per CONNECT tunnel or forwarded request. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startForwardProxy(name: string, log: ProxyLogEntry[]): Promise<ForwardProxy> {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    requests++;
    log.push({ proxy: name, requestLine: `${req.method} ${new URL(req.url ?? "/").pathname}` });
    const target = new URL(req.url ?? "/");
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    requests++;
    const [host, port] = (req.url ?? "").split(":");
    const upstream = connect(Number(port), host ?? "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      client.once("data", (chunk: Buffer) => {
        const line = chunk.toString("latin1").split("\r\n")[0] ?? "";
        const [method, target] = line.split(" ");
        log.push({ proxy: name, requestLine: `${method} ${(target ?? "").split("?")[0]}` });
      });
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    name,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
