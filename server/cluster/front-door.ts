/**
 * The port of a primary (WORKERS > 1): accepted here, paused, so that the
 * worker given a connection reads its every byte, and dealt to the serving
 * worker with the fewest open (balancer.ts). Connections that come while no
 * worker takes any (all are being replaced) wait for the next, up to a bound.
 */
import type { Worker } from "node:cluster";
import net from "node:net";
import { LeastConnections } from "./balancer.js";
import { CHANNEL, type PrimaryMessage } from "./messages.js";

/** Connections accepted while no worker takes any, held for the next; past this many, closed. */
const MAX_WAITING_CONNECTIONS = 1024;

export interface FrontDoorOptions {
  /** The port bound at start (port-reservation.ts), served from the first `listen`. */
  reservation: net.Server;
  /** Reported when the bound address has none (it always has one once listening). */
  port: number;
  /** Called once as the port starts to serve, before any connection is read. */
  onServing: () => void;
  onError: (error: Error) => void;
}

export class FrontDoor {
  readonly #balancer = new LeastConnections<Worker>();
  readonly #waiting: net.Socket[] = [];
  readonly #server = net.createServer({ pauseOnConnect: true, noDelay: true });
  readonly #options: FrontDoorOptions;
  #bound: Promise<number> | undefined;

  constructor(options: FrontDoorOptions) {
    this.#options = options;
    this.#server.on("connection", (socket: net.Socket) => {
      // Until it is handed over, an error (a reset while it waits for a worker) is this socket's end, not the primary's.
      socket.on("error", () => socket.destroy());
      this.#deal(socket);
    });
    this.#server.on("error", options.onError);
  }

  /** Serves the port bound at start, once (when the first worker serves), and resolves with the port. */
  listen(): Promise<number> {
    return (this.#bound ??= new Promise((resolve) => {
      // Connections are read only after this callback, so none is dealt before `onServing` is done.
      this.#server.listen(this.#options.reservation, () => {
        this.#options.onServing();
        const address = this.#server.address();
        resolve(typeof address === "object" && address !== null ? address.port : this.#options.port);
      });
    }));
  }

  /** A worker that takes connections from now on. */
  add(worker: Worker): void {
    this.#balancer.add(worker);
  }

  /** Deals the connections that waited for a worker. */
  dealWaiting(): void {
    for (const socket of this.#waiting.splice(0)) this.#deal(socket);
  }

  /** The worker closed `count` of its connections (one when not said). */
  closed(worker: Worker, count?: number): void {
    this.#balancer.closed(worker, count);
  }

  /** A worker that takes no more (stopping or gone). */
  remove(worker: Worker): void {
    this.#balancer.remove(worker);
  }

  /** No new connections: those open are the workers' to finish; those waiting are closed. */
  close(): void {
    if (this.#server.listening) this.#server.close();
    for (const socket of this.#waiting.splice(0)) socket.destroy();
  }

  #deal(socket: net.Socket): void {
    const worker = this.#balancer.pick();
    if (worker === undefined) {
      if (this.#waiting.length < MAX_WAITING_CONNECTIONS) this.#waiting.push(socket);
      else socket.destroy();
      return;
    }
    const message: PrimaryMessage = { channel: CHANNEL, connection: true };
    worker.send(message, socket, { keepOpen: false }, (error: Error | null) => {
      if (error === null) return;
      this.#balancer.closed(worker);
      socket.destroy();
    });
  }
}
