/**
 * Graceful stop: take no new connections, let every request already received
 * finish and its body reach the client, close each keep-alive connection
 * after its current response (`Connection: close` on responses not yet
 * begun, a FIN on idle connections), and cut only what is still open once
 * the grace period is over, logging how many had something in flight.
 */
import type http from "node:http";
import net from "node:net";
import { trackConnections } from "../http/connection-drain.js";
import type { Logger } from "../log.js";

export interface CloseGracefullyOptions {
  /** How long requests in flight, and the sending of their bodies, may take before their connections are destroyed. */
  graceMs: number;
  /** Where the number of connections cut at the end of the grace period is logged. Default: not logged. */
  log?: Logger;
}

/**
 * Resolves with whether every connection was closed without cutting one in
 * flight. The server's connections are those tracked since it was made
 * (createApp calls trackConnections), a worker's handed in ones included.
 */
export async function closeGracefully(server: http.Server, options: CloseGracefullyOptions): Promise<boolean> {
  const drain = trackConnections(server);
  // net's close, not http.Server#close: that destroys at once every connection it deems idle, a body still in the
  // socket's buffer or a request half received included (connection-drain.ts). A worker's server never listened:
  // this only marks it closed, so the connections its primary still hands in are refused (cluster/worker-link.ts).
  net.Server.prototype.close.call(server);
  const drained = drain.drain();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<"grace over">((resolve) => (timer = setTimeout(() => resolve("grace over"), options.graceMs)));
  const outcome = await Promise.race([drained, graceOver]);
  clearTimeout(timer);
  if (outcome !== "grace over") return true;
  const cut = drain.cut();
  options.log?.warn("grace period over; connections cut", { cut, open: drain.size, graceMs: options.graceMs });
  // Destroyed, each closes within a turn of the event loop: the access log then has its line.
  await drained;
  return cut === 0;
}
