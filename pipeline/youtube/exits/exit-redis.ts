/**
 * The Redis connection of a pipeline run or fetch worker (REDIS_URL), for
 * the fleet's exit state only. Like the server's (server/coordination/
 * redis-client.ts): no offline queue, one attempt per command, every command
 * bounded by REDIS_DEADLINE_MS, reconnecting in the background; a command
 * that fails sends the exit store to the host's file for a while
 * (fallback-exit-store.ts), so a fetch never waits on Redis.
 */
import { Redis } from "ioredis";

export interface ExitRedisOptions {
  url: string;
  /** REDIS_DEADLINE_MS. */
  deadlineMs: number;
  /** How long to wait for the first connection before going on without it, in ms. Default 2000. */
  readyWithinMs?: number;
}

/** Connects and waits up to `readyWithinMs` for Redis to answer; the connection is returned either way (it keeps trying). */
export async function connectExitRedis(options: ExitRedisOptions): Promise<Redis> {
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.deadlineMs,
    connectTimeout: 1_000,
    disconnectTimeout: options.deadlineMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Reported by the exit store's own line when a command fails; without a listener ioredis would print each attempt.
  redis.on("error", () => undefined);
  if (redis.status !== "ready") {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.readyWithinMs ?? 2_000);
      redis.once("ready", done);
      function done(): void {
        clearTimeout(timer);
        redis.off("ready", done);
        resolve();
      }
    });
  }
  return redis;
}
