/**
 * HOST:PORT, bound first thing at start, before the slow part (the demo
 * build, verifying and warming the set): a port in use stops the start in a
 * moment with one line, before it has changed anything. The server takes the
 * bound socket over once it serves (`server.listen(reservation)`), so nothing
 * can take the port meanwhile. Until then each connection is reset as it
 * comes: a client sees what it would see with nothing listening, not a
 * server that accepts and never answers.
 */
import net from "node:net";

/** The address could not be bound; the message is one line, naming it and what to do. */
export class ListenError extends Error {
  override name = "ListenError";
}

/** Binds `host`:`port` (0: a free port) and resets every connection until a server takes the socket over. */
export function reservePort(host: string, port: number): Promise<net.Server> {
  const reservation = net.createServer((socket) => socket.resetAndDestroy());
  return new Promise((resolve, reject) => {
    reservation.once("error", (error: NodeJS.ErrnoException) => reject(new ListenError(listenProblem(host, port, error))));
    reservation.listen(port, host, () => resolve(reservation));
  });
}

/** `reservePort`, but an address that cannot be bound ends the process with its one line and exit code 1. */
export async function reservePortOrExit(host: string, port: number): Promise<net.Server> {
  try {
    return await reservePort(host, port);
  } catch (error) {
    if (error instanceof ListenError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** One line for an address that cannot be bound: where, why, and the settings that choose another. */
export function listenProblem(host: string, port: number, error: NodeJS.ErrnoException): string {
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const why =
    {
      EADDRINUSE: "the address is in use (another server, or another npm start, listens there)",
      EACCES: "permission denied (a port below 1024 needs privileges)",
      EADDRNOTAVAIL: "HOST is not an address of this machine",
      ENOTFOUND: "HOST is not a known host name",
    }[error.code ?? ""] ?? error.message;
  return `Cannot listen on ${where}: ${why}. Set PORT (or HOST) to choose another, e.g. PORT=${port < 65535 ? port + 1 : 3000} npm start.`;
}
