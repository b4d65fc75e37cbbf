/**
 * A cap on the connections one client address may hold open, so a single
 * client (a slowloris, a leaky pool) cannot take all of MAX_CONNECTIONS and
 * starve everyone else. Behind a reverse proxy every connection comes from
 * the proxy's address: raise the cap to MAX_CONNECTIONS there.
 */
import type http from "node:http";
import type net from "node:net";

export function limitConnectionsPerClient(server: http.Server, maxPerClient: number): void {
  const open = new Map<string, number>();
  server.on("connection", (socket: net.Socket) => {
    const client = socket.remoteAddress ?? "unknown";
    const count = open.get(client) ?? 0;
    if (count >= maxPerClient) {
      socket.destroy();
      return;
    }
    open.set(client, count + 1);
    socket.once("close", () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left <= 0) open.delete(client);
      else open.set(client, left);
    });
  });
}
