/**
 * Graceful stop: refuse new connections, let in-flight requests finish for up
 * to `graceMs`, then cut whatever is left. Idle keep-alive connections are
 * closed at once so they do not hold the process open.
 */
import type http from "node:http";

export interface CloseGracefullyOptions {
  /** How long in-flight requests may take before their connections are destroyed. */
  graceMs: number;
}

/** Resolves with whether every request finished within the grace period. */
export function closeGracefully(server: http.Server, options: CloseGracefullyOptions): Promise<boolean> {
  return new Promise((resolve) => {
    let finishedInTime = true;
    const timer = setTimeout(() => {
      finishedInTime = false;
      server.closeAllConnections();
    }, options.graceMs);
    timer.unref();
    // Connections that become idle after their response are closed by node
    // (http.Server#close marks the server as closing); this handles those idle now.
    server.close(() => {
      clearTimeout(timer);
      resolve(finishedInTime);
    });
    server.closeIdleConnections();
  });
}
