/**
 * A loopback TCP proxy a test can cut or stall: between a server and
 * PostgreSQL (or anything on 127.0.0.1), so the service becomes unreachable
 * or silent for the server alone, without touching the shared PostgreSQL.
 * Cut: open connections are reset and new ones are closed at once; restored:
 * connections pass again. Stalled: connections stay open and new ones are
 * accepted, but no byte passes either way (as with a stopped server); flowing
 * again: what was held back passes, then the rest.
 */
import net from "node:net";

export interface CuttableProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  stall(): void;
  flow(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

export async function cuttableProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<CuttableProxy> {
  let open = true;
  let stalled = false;
  const pairs = new Set<Pair>();
  const link = ({ client, upstream }: Pair): void => {
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const hold = ({ client, upstream }: Pair): void => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  const server = net.createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const pair = { client, upstream: net.connect({ port: targetPort, host: targetHost }) };
    pairs.add(pair);
    const end = (): void => {
      pair.client.destroy();
      pair.upstream.destroy();
      pairs.delete(pair);
    };
    pair.client.on("error", end).on("close", end);
    pair.upstream.on("error", end).on("close", end);
    if (stalled) hold(pair);
    else link(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    cut() {
      open = false;
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
    },
    restore() {
      open = true;
    },
    stall() {
      stalled = true;
      for (const pair of pairs) hold(pair);
    },
    flow() {
      stalled = false;
      for (const pair of pairs) link(pair);
    },
    async close() {
      open = false;
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
