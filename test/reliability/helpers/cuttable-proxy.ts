/**
 * A loopback TCP proxy a test can cut: between a server and PostgreSQL (or
 * anything on 127.0.0.1), so the service becomes unreachable for the server
 * alone, without touching the shared PostgreSQL. Cut: open connections are
 * reset and new ones are closed at once; restored: connections pass again.
 */
import net from "node:net";

export interface CuttableProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function cuttableProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<CuttableProxy> {
  let open = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = net.connect({ port: targetPort, host: targetHost });
    sockets.add(client);
    sockets.add(upstream);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    cut() {
      open = false;
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
    },
    restore() {
      open = true;
    },
    async close() {
      open = false;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
