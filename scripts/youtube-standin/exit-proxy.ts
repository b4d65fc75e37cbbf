/**
 * A small HTTP forward proxy that stands in for one exit: it carries CONNECT
 * tunnels (what undici's ProxyAgent sends) and absolute-form requests, and
 * opens every upstream connection from its own loopback source address
 * (127.0.0.2, 127.0.0.3, …; Linux routes all of 127.0.0.0/8 to loopback), so
 * the stand-in's limits see each proxy as a distinct client.
 */
import { createServer, request as httpRequest } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

export interface ExitProxy {
  /** `http://127.0.0.1:<port>`, for YOUTUBE_PROXY_URLS. */
  url: string;
  /** The source address its upstream connections leave from. */
  localAddress: string;
  /** Requests carried: one per CONNECT tunnel or forwarded request. */
  readonly requests: number;
  close(): Promise<void>;
}

export interface ExitProxyOptions {
  /** Source address of the upstream connections, e.g. 127.0.0.2. */
  localAddress: string;
  /** Where the proxy listens. Default 127.0.0.1, port 0. */
  host?: string;
  port?: number;
  /**
   * Told the method and path (no query) of each request carried, so a test
   * can see which call left through which exit: a forwarded request's own
   * line, a tunnel's first request line.
   */
  onRequest?: (requestLine: string) => void;
}

export async function startExitProxy(options: ExitProxyOptions): Promise<ExitProxy> {
  const { localAddress, onRequest } = options;
  let requests = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  };
  const server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? "");
    } catch {
      res.writeHead(400, { "content-type": "text/plain" }).end("absolute-form request expected\n");
      return;
    }
    requests++;
    onRequest?.(`${req.method} ${target.pathname}`);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers: req.headers, localAddress },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  });
  server.on("connection", track);
  server.on("connect", (req, client: Socket, head: Buffer) => {
    requests++;
    const { hostname, port } = new URL(`http://${req.url ?? ""}`);
    let established = false;
    const upstream = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port || 443), localAddress }, () => {
      established = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      if (onRequest) {
        const tell = (chunk: Buffer): void => {
          const [method, target] = (chunk.toString("latin1").split("\r\n")[0] ?? "").split(" ");
          onRequest(`${method} ${(target ?? "").split("?")[0]}`);
        };
        if (head.length > 0) tell(head);
        else client.once("data", tell);
      }
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on("error", () => {
      if (!established && client.writable) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
      else client.destroy();
    });
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    localAddress,
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

/** `count` exit proxies leaving from 127.0.0.2, 127.0.0.3, … (the first `firstHost` can move the range). */
export async function startExitProxies(count: number, firstHost = 2): Promise<ExitProxy[]> {
  if (!Number.isInteger(count) || count < 0 || firstHost + count > 255) throw new RangeError("Expected at most 253 exit proxies from 127.0.0.2 on");
  return Promise.all(Array.from({ length: count }, (_, i) => startExitProxy({ localAddress: `127.0.0.${firstHost + i}` })));
}
