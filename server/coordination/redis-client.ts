/**
 * The Redis connection of a replica (REDIS_URL). Commands fail fast while
 * Redis is unreachable (no offline queue, one attempt, a short timeout)
 * instead of holding requests; the client reconnects on its own. While it is
 * not ready, what Redis shares (rate limits, fetch claims, the negative
 * cache) is kept by this process instead (`usable()` says which): one
 * warning when Redis goes, one line when it is back.
 */
import { Redis } from "ioredis";
import { errorFields, type Logger } from "../log.js";

export interface RedisConnection {
  readonly redis: Redis;
  /** Ready for commands now; otherwise callers use their local fallback without asking. */
  usable(): boolean;
  /** Called on each change: false when Redis went, true when it is back. */
  onChange(listener: (up: boolean) => void): void;
  disconnect(): void;
}

/** What serves while Redis is down, as the warning and /healthz say it. */
export const REDIS_FALLBACK = "redis unreachable: rate limits counted per process, fetch claims and negative cache in memory";

export function connectRedis(url: string, log: Logger, timeoutMs = 1_000): RedisConnection {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    lazyConnect: false,
    // The commands of one event-loop turn (many requests' rate-limit checks under load) go out as one write.
    enableAutoPipelining: true,
  });
  const listeners: ((up: boolean) => void)[] = [];
  let down = false;
  const goDown = (error?: unknown): void => {
    if (down) return;
    down = true;
    log.warn(`${REDIS_FALLBACK}; reconnecting`, error === undefined ? {} : errorFields(error));
    for (const listener of listeners) listener(false);
  };
  // A refused connection says `error`; a server that goes away says `close` (and `error` only on the next attempt).
  redis.on("error", (error) => goDown(error));
  redis.on("close", () => goDown());
  redis.on("ready", () => {
    if (!down) return;
    down = false;
    log.info("redis reachable again: rate limits, fetch claims and negative cache shared again");
    for (const listener of listeners) listener(true);
  });
  return {
    redis,
    usable: () => redis.status === "ready",
    onChange: (listener) => void listeners.push(listener),
    disconnect: () => redis.disconnect(),
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
