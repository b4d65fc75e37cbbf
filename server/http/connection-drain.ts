/**
 * What a graceful stop needs to know of each connection of a server, kept
 * from the server's making: the responses in flight on it and whether a next
 * request has begun to arrive. node's own close (http.Server#close and its
 * closeIdleConnections) counts a connection idle once res.end() was called,
 * while most of a large body may still wait in the socket's buffer for a slow
 * client, and once a request has been parsed, while the next one may be half
 * received: it destroys both, cutting the body or resetting the request.
 *
 * Here a response is done when it closed (node emits 'close' right after
 * 'finish', once the last byte is handed to the kernel, or when its
 * connection closes first); a connection is idle
 * when it has no response in flight, nothing left in its buffer, and has read
 * nothing since its last response was done. A drain ends each connection (a
 * FIN after its last byte) once it is idle, asks for `Connection: close` on
 * every response whose head is not yet written, and ends when every
 * connection has closed.
 */
import { subscribe } from "node:diagnostics_channel";
import type http from "node:http";
import type { Socket } from "node:net";

interface Connection {
  readonly socket: Socket;
  /** Responses begun on it and not yet done. */
  readonly responses: Set<http.ServerResponse>;
  /** `socket.bytesRead` when its last response was done: more read since is a next request arriving. */
  readAtRest: number;
  /** Ended by the drain. */
  ended: boolean;
  readonly drain: ConnectionDrain;
}

/** How often a draining server looks again at connections whose buffer was not yet empty. */
const DRAIN_SWEEP_MS = 20;

const drains = new WeakMap<http.Server, ConnectionDrain>();
/** The connection each response in flight was begun on (its socket is detached before 'close'). */
const responseConnections = new WeakMap<http.ServerResponse, Connection>();

function responseDone(this: http.ServerResponse): void {
  const connection = responseConnections.get(this);
  if (connection !== undefined) connection.drain.responseDone(connection, this);
}

/** Responses whose connection the stop destroyed before their last byte was sent. */
const cutResponses = new WeakSet<http.ServerResponse>();

// node publishes every request it parses here, whichever event it then emits ('request', 'checkContinue',
// 'checkExpectation'), before any of them: so a response begun during a drain is told to close before a route writes it.
subscribe("http.server.request.start", (message) => {
  const { server, socket, response } = message as { server: http.Server; socket: Socket; response: http.ServerResponse };
  drains.get(server)?.begun(socket, response);
});

/** Tracks the connections of `server` from now on (once per server), for `closeGracefully` (server/start/shutdown.ts). */
export function trackConnections(server: http.Server): ConnectionDrain {
  let drain = drains.get(server);
  if (drain === undefined) {
    drain = new ConnectionDrain(server);
    drains.set(server, drain);
  }
  return drain;
}

/** Whether a graceful stop cut this response's connection before its last byte was sent (for the access log). */
export function cutAtStop(res: http.ServerResponse): boolean {
  return cutResponses.has(res);
}

export class ConnectionDrain {
  readonly #connections = new Map<Socket, Connection>();
  #draining = false;
  #sweep: NodeJS.Timeout | undefined;
  #whenEmpty: (() => void) | undefined;

  constructor(server: http.Server) {
    // A worker's server is given its connections through this event too (cluster/worker-link.ts).
    server.on("connection", (socket: Socket) => {
      const connection: Connection = { socket, responses: new Set(), readAtRest: socket.bytesRead, ended: false, drain: this };
      this.#connections.set(socket, connection);
      socket.once("close", () => {
        this.#connections.delete(socket);
        if (this.#connections.size === 0) this.#whenEmpty?.();
      });
    });
  }

  /** Connections open now. */
  get size(): number {
    return this.#connections.size;
  }

  /** A request parsed on `socket`, answered by `res`. */
  begun(socket: Socket, res: http.ServerResponse): void {
    const connection = this.#connections.get(socket);
    if (connection === undefined) return;
    if (connection.ended) {
      // It crossed the FIN that closed its idle connection: nothing can be written there any more. The client
      // sees the connection closed without an answer, as when any server closes an idle keep-alive
      // connection, and may send it again.
      socket.destroy();
      return;
    }
    connection.responses.add(res);
    responseConnections.set(res, connection);
    if (this.#draining) res.setHeader("Connection", "close");
    // node emits 'close' on every response, after 'finish' when it was sent whole: one listener, shared by all.
    res.on("close", responseDone);
    // A body the route did not read is read (and dropped) by node after the response: not a next request.
    // A request without Content-Length or Transfer-Encoding has no body, so nothing comes after it.
    const headers = res.req.headers;
    if (headers["content-length"] !== undefined || headers["transfer-encoding"] !== undefined) {
      res.req.once("end", () => {
        if (connection.responses.size === 0) connection.readAtRest = socket.bytesRead;
      });
    }
  }

  /** A response of `connection` is done (sent, or its connection closed). */
  responseDone(connection: Connection, res: http.ServerResponse): void {
    if (!connection.responses.delete(res)) return;
    if (connection.responses.size === 0) connection.readAtRest = connection.socket.bytesRead;
    if (this.#draining) this.#endIfIdle(connection);
  }

  /**
   * Begins the drain: responses not yet begun will say `Connection: close`,
   * and each connection is ended once it is idle. Resolves once every
   * connection has closed.
   */
  drain(): Promise<void> {
    this.#draining = true;
    for (const connection of this.#connections.values()) {
      for (const res of connection.responses) if (!res.headersSent) res.setHeader("Connection", "close");
      this.#endIfIdle(connection);
    }
    // A buffer emptying and a half-received request completing have no event of their own here: looked at again.
    this.#sweep ??= setInterval(() => {
      for (const connection of this.#connections.values()) this.#endIfIdle(connection);
    }, DRAIN_SWEEP_MS);
    return new Promise<void>((resolve) => {
      this.#whenEmpty = () => {
        clearInterval(this.#sweep);
        resolve();
      };
      if (this.#connections.size === 0) this.#whenEmpty();
    });
  }

  /**
   * Destroys every connection still open. Returns how many had something in
   * flight (a response not wholly sent, or a request arriving); the others
   * had sent all and waited only for the client to close.
   */
  cut(): number {
    let cut = 0;
    for (const connection of this.#connections.values()) {
      if (this.#busy(connection)) {
        cut++;
        for (const res of connection.responses) cutResponses.add(res);
      }
      connection.socket.destroy();
    }
    return cut;
  }

  #busy(connection: Connection): boolean {
    const { socket } = connection;
    return connection.responses.size > 0 || socket.writableLength > 0 || (!connection.ended && socket.bytesRead !== connection.readAtRest);
  }

  #endIfIdle(connection: Connection): void {
    if (connection.ended || this.#busy(connection)) return;
    connection.ended = true;
    // A FIN after everything written, not a destroy: what the kernel still holds for the client reaches it, and
    // the connection closes when the client closes its side (or is cut at the end of the grace period).
    if (!connection.socket.writableEnded) connection.socket.end();
  }
}
