/**
 * The Redis connection of a replica (REDIS_URL). Commands fail fast while
 * Redis is unreachable (no offline queue, one attempt) instead of holding
 * requests, and every command has a deadline (REDIS_DEADLINE_MS). A Redis
 * that misses it counts as down, like one that refused the connection: a
 * stopped or swamped server keeps its connection open, so a request would
 * otherwise wait out every command. While it is down, what Redis shares
 * (rate limits, fetch claims, the negative cache) is kept by this process
 * instead (`usable()` says which), and nothing on the request path asks it.
 * One warning when Redis goes, one line when it is back.
 *
 * Probing it back is ioredis's own reconnect: a missed deadline drops the
 * connection, and a new one is ready only once Redis answers its ready check
 * (INFO) within the deadline. A PING every `probeMs` notices a stall while
 * no request asks Redis anything.
 */
import { Redis } from "ioredis";
import { errorFields, type LogFields, type Logger } from "../log.js";

export interface RedisConnectionOptions {
  url: string;
  log: Logger;
  /** How long any command may take before Redis counts as down, in ms (REDIS_DEADLINE_MS). Default 250. */
  deadlineMs?: number;
  /** How often Redis is pinged while it counts as up, in ms. Default 1000. */
  probeMs?: number;
}

export interface RedisConnection {
  readonly redis: Redis;
  /** Ready for commands now; otherwise callers use their local fallback without asking. */
  usable(): boolean;
  /** A command failed: if it missed the deadline, Redis counts as down until a new connection answers in time. */
  failed(error: unknown): void;
  /** Called on each change: false when Redis went, true when it is back. */
  onChange(listener: (up: boolean) => void): void;
  disconnect(): void;
}

/** What serves while Redis is down, as the warning and /healthz say it. */
export const REDIS_FALLBACK = "redis unreachable: rate limits counted per process, fetch claims and negative cache in memory";

/** The TCP connect itself: not on the request path (no offline queue), so longer than the deadline. */
const CONNECT_TIMEOUT_MS = 1_000;

/** Whether `error` is ioredis's `commandTimeout` rejection. */
function missedDeadline(error: unknown): boolean {
  return error instanceof Error && error.message === "Command timed out";
}

export function connectRedis(options: RedisConnectionOptions): RedisConnection {
  const { url, log } = options;
  const deadlineMs = options.deadlineMs ?? 250;
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    // A command out when the connection drops fails then; never sent again after a reconnect, where a
    // rate-limit call already counted by the fallback would be counted twice.
    maxRetriesPerRequest: 0,
    commandTimeout: deadlineMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // A stalled server never closes its side: the dropped socket is destroyed after this long.
    disconnectTimeout: deadlineMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    lazyConnect: false,
    // The commands of one event-loop turn (many requests' rate-limit checks under load) go out as one write.
    enableAutoPipelining: true,
  });
  const listeners: ((up: boolean) => void)[] = [];
  /** A command missed the deadline on this connection: down until a new one is ready. */
  let stalled = false;
  let down = false;
  const goDown = (fields: LogFields = {}): void => {
    if (down) return;
    down = true;
    log.warn(`${REDIS_FALLBACK}; reconnecting`, fields);
    for (const listener of listeners) listener(false);
  };
  const failed = (error: unknown): void => {
    if (stalled || !missedDeadline(error) || redis.status !== "ready") return;
    stalled = true;
    goDown({ reason: "no answer within REDIS_DEADLINE_MS", deadlineMs });
    redis.disconnect(true);
  };
  // A refused connection says `error`; a server that goes away says `close` (and `error` only on the next attempt).
  redis.on("error", (error) => goDown(errorFields(error)));
  redis.on("close", () => goDown());
  redis.on("ready", () => {
    stalled = false;
    if (!down) return;
    down = false;
    log.info("redis reachable again: rate limits, fetch claims and negative cache shared again");
    for (const listener of listeners) listener(true);
  });
  let pinging = false;
  const probe = setInterval(() => {
    if (pinging || stalled || redis.status !== "ready") return;
    pinging = true;
    redis
      .ping()
      .catch(failed)
      .finally(() => (pinging = false));
  }, options.probeMs ?? 1_000);
  probe.unref();
  return {
    redis,
    usable: () => redis.status === "ready" && !stalled,
    failed,
    onChange: (listener) => void listeners.push(listener),
    disconnect: () => {
      clearInterval(probe);
      redis.disconnect();
    },
  };
}

/** Resolves true once the connection is ready, false after `timeoutMs`. */
export function untilReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === "ready") return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once("ready", onReady);
  });
}
