/**
 * A worker's side of the IPC channel to its primary (WORKERS > 1): the rate
 * limiter (counting from leases of the primary's count,
 * leased-rate-limiter.ts), the fetch claims and the negative cache of
 * `hub.ts`, behind the same interfaces as their one-process versions. When
 * the primary cannot be asked (it is gone), the question fails as a 503
 * problem rather than being answered by this worker alone; requests it can
 * count from a lease it holds still pass.
 */
import type http from "node:http";
import type { Socket } from "node:net";
import { HttpError } from "../problem/http-error.js";
import {
  shareYouTubeError,
  youTubeErrorFrom,
  type Claim,
  type FetchCoordination,
  type FetchOutcome,
} from "../live/fetch-coordination.js";
import type { RateLimiter } from "../rate-limit/rate-limiter.js";
import { createLeasedRateLimiter } from "./leased-rate-limiter.js";
import { CHANNEL, isServiceMessage, type Answer, type Ask, type PrimaryMessage, type WorkerMessage } from "./messages.js";

export interface WorkerLink {
  rateLimiter: RateLimiter;
  coordination: FetchCoordination;
  /**
   * Serves the connections the primary accepts and gives this worker
   * (balancer.ts) with `server`, and tells the primary it takes them and,
   * as each closes, that it has. Each is given to `server` as its
   * 'connection' event, so a graceful stop drains it like one the server
   * accepted (server/start/shutdown.ts). Returns those open now.
   */
  serve(server: http.Server, details: { dataset: string; builtAt: string; usableKeys: number }): ReadonlySet<Socket>;
  close(): void;
}

interface Pending {
  /** The first answer. */
  resolve(answer: Answer): void;
  reject(error: Error): void;
  /** A follower claim's later outcome. */
  outcome?: (outcome: FetchOutcome) => void;
}

function unavailable(): HttpError {
  return new HttpError(503, "coordination_unavailable", "The service is restarting; try again shortly.", { headers: { "Retry-After": "1" } });
}

export function connectWorker(channel: NodeJS.Process = process): WorkerLink {
  const primary = new PrimaryLine(channel);
  const rateLimiter = createLeasedRateLimiter(async (keyId, nowMs) => expectAnswer(await primary.ask({ op: "rate", keyId, nowMs }), "rate"));
  const connections = new HandedConnections(primary);
  const onMessage = (message: unknown, handle?: unknown): void => {
    if (!isServiceMessage(message)) return;
    const sent = message as PrimaryMessage;
    if ("connection" in sent) {
      if (handle !== undefined) connections.adopt(handle as Socket);
      return;
    }
    if ("recall" in sent) {
      const { keyId, window } = sent.recall;
      // Answered once this turn's promise jobs have run: a lease the primary sent before the recall may have
      // arrived in the same read, its answer resolved but not yet kept by the limiter (which happens after an
      // await). Given back now, it would be missed, held here unused, and those requests lost for the window.
      // Unsent (the primary is gone), the recall times out there and what was held counts as taken.
      setImmediate(() => primary.send({ channel: CHANNEL, returned: { keyId, window, ranges: rateLimiter.recall(keyId, window) } }));
      return;
    }
    primary.answered(sent.id, sent.answer);
  };
  const onDisconnect = (): void => primary.disconnected();
  channel.on("message", onMessage);
  channel.on("disconnect", onDisconnect);
  return {
    rateLimiter,
    coordination: askedCoordination(primary),
    serve: (server, details) => connections.serve(server, details),
    close() {
      channel.off("message", onMessage);
      channel.off("disconnect", onDisconnect);
    },
  };
}

/** The questions this worker asks its primary, each waiting for its answer, and the messages it tells it. */
class PrimaryLine {
  readonly #channel: NodeJS.Process;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #closed = false;

  constructor(channel: NodeJS.Process) {
    this.#channel = channel;
  }

  ask(question: Ask, outcome?: (outcome: FetchOutcome) => void): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const channel = this.#channel;
      if (this.#closed || channel.send === undefined || !channel.connected) return reject(unavailable());
      const id = ++this.#nextId;
      this.#pending.set(id, { resolve, reject, ...(outcome ? { outcome } : {}) });
      const message: WorkerMessage = { channel: CHANNEL, id, ask: question };
      channel.send(message, undefined, {}, (error) => {
        if (error === null || error === undefined) return;
        this.#pending.delete(id);
        reject(unavailable());
      });
    });
  }

  /** Tells the primary; unsent when it is gone (then nothing is waiting on it there). */
  send(message: WorkerMessage): void {
    if (!this.#closed && this.#channel.connected) this.#channel.send?.(message, undefined, {}, () => undefined);
  }

  answered(id: number, answer: Answer): void {
    const entry = this.#pending.get(id);
    if (entry === undefined) return;
    if (answer.op === "outcome") {
      this.#pending.delete(id);
      entry.outcome?.(answer.outcome);
      return;
    }
    // A follower's claim stays pending until its outcome arrives.
    if (!(answer.op === "claim" && answer.role === "follower")) this.#pending.delete(id);
    entry.resolve(answer);
  }

  /** The primary is gone: every question waiting fails as a 503, and a follower's outcome is abandoned. */
  disconnected(): void {
    this.#closed = true;
    for (const entry of this.#pending.values()) {
      entry.reject(unavailable());
      entry.outcome?.({ kind: "abandoned" });
    }
    this.#pending.clear();
  }
}

function expectAnswer<O extends Answer["op"]>(answer: Answer, op: O): Extract<Answer, { op: O }> {
  if (answer.op !== op) throw new Error(`expected a ${op} answer from the primary, got ${answer.op}`);
  return answer as Extract<Answer, { op: O }>;
}

/** The fetch claims and the negative cache of the primary's hub, asked over the line. */
function askedCoordination(primary: PrimaryLine): FetchCoordination {
  const claim = async (key: string): Promise<Claim> => {
    let settleOutcome!: (outcome: FetchOutcome) => void;
    const outcome = new Promise<FetchOutcome>((resolve) => (settleOutcome = resolve));
    const answer = expectAnswer(await primary.ask({ op: "claim", key }, settleOutcome), "claim");
    if (answer.role === "follower") return { role: "follower", outcome };
    let settled = false;
    return {
      role: "leader",
      settle(result) {
        if (settled) return;
        settled = true;
        // A lost settle is not lost work: the primary abandons the claim when this worker exits.
        primary.ask({ op: "settle", key, outcome: result }).catch(() => undefined);
      },
    };
  };
  return {
    claims: { claim },
    negative: {
      async get(videoId, lang) {
        const { error } = expectAnswer(await primary.ask({ op: "negative-get", videoId, lang }), "negative-get");
        return error === null ? undefined : youTubeErrorFrom(error);
      },
      async remember(videoId, lang, error) {
        return expectAnswer(await primary.ask({ op: "negative-remember", videoId, lang, error: shareYouTubeError(error) }), "negative-remember").remembered;
      },
    },
  };
}

/** The connections the primary hands this worker, given to its server as if it had accepted them. */
class HandedConnections {
  readonly open = new Set<Socket>();
  readonly #primary: PrimaryLine;
  #server: http.Server | undefined;
  /** Until the server closes (a graceful stop): then a connection still handed over is closed. */
  #accepting = false;

  constructor(primary: PrimaryLine) {
    this.#primary = primary;
  }

  adopt(socket: Socket): void {
    const server = this.#server;
    // As node's own listener does: past maxConnections a connection is closed at once.
    if (server === undefined || !this.#accepting || (server.maxConnections > 0 && this.open.size >= server.maxConnections)) {
      socket.destroy();
      this.#primary.send({ channel: CHANNEL, closed: 1 });
      return;
    }
    this.open.add(socket);
    socket.once("close", () => {
      this.open.delete(socket);
      this.#primary.send({ channel: CHANNEL, closed: 1 });
    });
    server.emit("connection", socket);
    // The primary accepted it paused, so that no byte was read before it was handed over.
    socket.resume();
  }

  serve(server: http.Server, details: { dataset: string; builtAt: string; usableKeys: number }): ReadonlySet<Socket> {
    this.#server = server;
    this.#accepting = true;
    // node tracks a server's connections (closeIdleConnections, its headers and request timeouts) from its
    // 'listening' event on, and this server never listens itself.
    server.emit("listening");
    server.once("close", () => {
      this.#accepting = false;
      this.#primary.send({ channel: CHANNEL, stopping: true });
    });
    this.#primary.send({ channel: CHANNEL, listening: details });
    return this.open;
  }
}
