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
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let closed = false;
  // `ask` and `expect` are defined below; the limiter calls them only once a request comes.
  const rateLimiter = createLeasedRateLimiter(async (keyId, nowMs) => expect(await ask({ op: "rate", keyId, nowMs }), "rate"));

  let server: http.Server | undefined;
  /** Until the server closes (a graceful stop): then a connection still handed over is closed. */
  let accepting = false;
  const open = new Set<Socket>();
  const send = (message: WorkerMessage): void => {
    // Unsent (the primary is gone), nothing is waiting on it there.
    if (!closed && channel.connected) channel.send?.(message, undefined, {}, () => undefined);
  };
  const adopt = (socket: Socket): void => {
    // As node's own listener does: past maxConnections a connection is closed at once.
    if (server === undefined || !accepting || (server.maxConnections > 0 && open.size >= server.maxConnections)) {
      socket.destroy();
      send({ channel: CHANNEL, closed: 1 });
      return;
    }
    open.add(socket);
    socket.once("close", () => {
      open.delete(socket);
      send({ channel: CHANNEL, closed: 1 });
    });
    server.emit("connection", socket);
    // The primary accepted it paused, so that no byte was read before it was handed over.
    socket.resume();
  };

  const onMessage = (message: unknown, handle?: unknown): void => {
    if (!isServiceMessage(message)) return;
    const sent = message as PrimaryMessage;
    if ("connection" in sent) {
      if (handle !== undefined) adopt(handle as Socket);
      return;
    }
    if ("recall" in sent) {
      const { keyId, window } = sent.recall;
      // Answered once this turn's promise jobs have run: a lease the primary sent before the recall may have
      // arrived in the same read, its answer resolved but not yet kept by the limiter (which happens after an
      // await). Given back now, it would be missed, held here unused, and those requests lost for the window.
      setImmediate(() => {
        const returned: WorkerMessage = { channel: CHANNEL, returned: { keyId, window, ranges: rateLimiter.recall(keyId, window) } };
        // Unsent (the primary is gone), the recall times out there and what was held counts as taken.
        if (!closed && channel.connected) channel.send?.(returned, undefined, {}, () => undefined);
      });
      return;
    }
    const { id, answer } = sent;
    const entry = pending.get(id);
    if (entry === undefined) return;
    if (answer.op === "outcome") {
      pending.delete(id);
      entry.outcome?.(answer.outcome);
      return;
    }
    // A follower's claim stays pending until its outcome arrives.
    if (!(answer.op === "claim" && answer.role === "follower")) pending.delete(id);
    entry.resolve(answer);
  };
  const onDisconnect = (): void => {
    closed = true;
    for (const entry of pending.values()) {
      entry.reject(unavailable());
      entry.outcome?.({ kind: "abandoned" });
    }
    pending.clear();
  };
  channel.on("message", onMessage);
  channel.on("disconnect", onDisconnect);

  const ask = (question: Ask, outcome?: (outcome: FetchOutcome) => void): Promise<Answer> =>
    new Promise<Answer>((resolve, reject) => {
      if (closed || channel.send === undefined || !channel.connected) return reject(unavailable());
      const id = ++nextId;
      pending.set(id, { resolve, reject, ...(outcome ? { outcome } : {}) });
      const message: WorkerMessage = { channel: CHANNEL, id, ask: question };
      channel.send(message, undefined, {}, (error) => {
        if (error === null || error === undefined) return;
        pending.delete(id);
        reject(unavailable());
      });
    });

  const expect = <O extends Answer["op"]>(answer: Answer, op: O): Extract<Answer, { op: O }> => {
    if (answer.op !== op) throw new Error(`expected a ${op} answer from the primary, got ${answer.op}`);
    return answer as Extract<Answer, { op: O }>;
  };

  const claim = async (key: string): Promise<Claim> => {
    let settleOutcome!: (outcome: FetchOutcome) => void;
    const outcome = new Promise<FetchOutcome>((resolve) => (settleOutcome = resolve));
    const answer = expect(await ask({ op: "claim", key }, settleOutcome), "claim");
    if (answer.role === "follower") return { role: "follower", outcome };
    let settled = false;
    return {
      role: "leader",
      settle(result) {
        if (settled) return;
        settled = true;
        // A lost settle is not lost work: the primary abandons the claim when this worker exits.
        ask({ op: "settle", key, outcome: result }).catch(() => undefined);
      },
    };
  };

  return {
    rateLimiter,
    coordination: {
      claims: { claim },
      negative: {
        async get(videoId, lang) {
          const { error } = expect(await ask({ op: "negative-get", videoId, lang }), "negative-get");
          return error === null ? undefined : youTubeErrorFrom(error);
        },
        async remember(videoId, lang, error) {
          return expect(await ask({ op: "negative-remember", videoId, lang, error: shareYouTubeError(error) }), "negative-remember").remembered;
        },
      },
    },
    serve(httpServer, details) {
      server = httpServer;
      accepting = true;
      // node tracks a server's connections (closeIdleConnections, its headers and request timeouts) from its
      // 'listening' event on, and this server never listens itself.
      httpServer.emit("listening");
      httpServer.once("close", () => {
        accepting = false;
        send({ channel: CHANNEL, stopping: true });
      });
      send({ channel: CHANNEL, listening: details });
      return open;
    },
    close() {
      channel.off("message", onMessage);
      channel.off("disconnect", onDisconnect);
    },
  };
}
