/**
 * Graceful stop: refuse new connections, let in-flight requests finish for up
 * to `graceMs`, then cut whatever is left. Idle keep-alive connections are
 * closed at once so they do not hold the process open.
 */
import type http from "node:http";
import type { Socket } from "node:net";

export interface CloseGracefullyOptions {
  /** How long in-flight requests may take before their connections are destroyed. */
  graceMs: number;
  /**
   * Connections handed to this server by another process (a worker's, from
   * its primary: cluster/worker-link.ts), open now. The server did not
   * accept them, so node's close neither waits for them nor closes one that
   * is kept alive once its last response is sent: each is closed as soon as
   * it is idle, and the close waits until none is left.
   */
  handedIn?: ReadonlySet<Socket>;
}

/** How often connections handed in are looked at for one gone idle. */
const IDLE_SWEEP_MS = 20;

/** Resolves with whether every request finished within the grace period. */
export function closeGracefully(server: http.Server, options: CloseGracefullyOptions): Promise<boolean> {
  return new Promise((resolve) => {
    let finishedInTime = true;
    let sweep: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      finishedInTime = false;
      server.closeAllConnections();
      // Every connection handed in is cut, whether or not node lists it among the server's own.
      for (const socket of options.handedIn ?? []) socket.destroy();
    }, options.graceMs);
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      clearInterval(sweep);
      resolve(finishedInTime);
    };
    const handedIn = options.handedIn;
    if (handedIn === undefined) {
      // Connections that become idle after their response are closed by node
      // (http.Server#close marks the server as closing); this handles those idle now.
      server.close(done);
      server.closeIdleConnections();
      return;
    }
    // The server never listened: its close only stops it taking connections (and reports it was not running).
    server.close(() => undefined);
    const check = (): void => {
      server.closeIdleConnections();
      // A destroyed connection is gone, whether or not its close event has come yet.
      for (const socket of handedIn) if (!socket.destroyed) return;
      done();
    };
    sweep = setInterval(check, IDLE_SWEEP_MS);
    check();
  });
}
