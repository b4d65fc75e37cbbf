/**
 * The Redis connection of a replica (REDIS_URL). Commands fail fast while
 * Redis is unreachable (no offline queue, one attempt, a short timeout)
 * instead of holding requests; the client reconnects on its own.
 */
import { Redis } from "ioredis";
import { errorFields, type Logger } from "../log.js";

export function connectRedis(url: string, log: Logger, timeoutMs = 1_000): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    lazyConnect: false,
  });
  let down = false;
  redis.on("error", (error) => {
    if (!down) log.warn("redis unreachable; retrying", errorFields(error));
    down = true;
  });
  redis.on("ready", () => {
    if (down) log.info("redis reachable again");
    down = false;
  });
  return redis;
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
