/**
 * The fixed-window limiter in Redis (REDIS_URL), for replicas that must share
 * one count per key. One Lua script reads, checks and increments the window's
 * counter atomically, so concurrent requests on any number of replicas are
 * counted exactly; the window is taken from Redis's clock (TIME), so replicas
 * with skewed clocks still agree on it. When Redis cannot answer, `consume`
 * rejects and the request is counted by the local limiter instead
 * (fallback-rate-limiter.ts).
 *
 * Requests of one key are asked for in batches, one script call ("take up to
 * n") per batch, and each key has at most one call in flight per process: the
 * requests of one event-loop turn form a batch, and those that arrive while
 * the key's call is out wait for it and go in the next. Under load that is
 * one round trip and one script run per key per round trip instead of one
 * per request, with the same count. Within a batch, requests are granted in
 * arrival order. When a call fails, the requests that queued behind it are
 * rejected with it, not sent after it.
 */
import type { Redis } from "ioredis";
import { WINDOW_MS } from "./memory-rate-limiter.js";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.js";

/**
 * KEYS[1]: the key's counter prefix; ARGV: limit, window ms, requests asked
 * for. Returns {granted, count before, window}: the first `granted` of the
 * requests are counted, the rest refused.
 */
const CONSUME = `
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = math.floor(nowMs / tonumber(ARGV[2]))
local key = KEYS[1] .. ':' .. window
local limit = tonumber(ARGV[1])
local before = tonumber(redis.call('GET', key) or '0')
local granted = math.max(0, math.min(tonumber(ARGV[3]), limit - before))
if granted > 0 then
  redis.call('INCRBY', key, granted)
  if before == 0 then redis.call('PEXPIRE', key, 2 * tonumber(ARGV[2])) end
end
return {granted, before, window}
`;

/** The script's command name on the connection. */
const CONSUME_COMMAND = "transcriptServiceConsumeMany";

export interface RedisRateLimiterOptions {
  redis: Redis;
  /** Prefix of every key this service writes (several services may share one Redis). */
  prefix: string;
  limit: number;
}

interface Waiting {
  resolve: (decision: RateLimitDecision) => void;
  reject: (error: unknown) => void;
}

/** Always a promise: Redis answers every call. */
export interface RedisRateLimiter extends RateLimiter {
  consume(keyId: string, nowMs: number): Promise<RateLimitDecision>;
}

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  const { redis, prefix, limit } = options;
  redis.defineCommand(CONSUME_COMMAND, { numberOfKeys: 1, lua: CONSUME });
  // This limiter batches its calls itself: ioredis's auto-pipelining (redis-client.ts) would only add its own work to each.
  if (!redis.options.autoPipeliningIgnoredCommands?.includes(CONSUME_COMMAND)) {
    redis.options.autoPipeliningIgnoredCommands = [...(redis.options.autoPipeliningIgnoredCommands ?? []), CONSUME_COMMAND];
  }
  const consumeMany = (redis as unknown as { transcriptServiceConsumeMany(key: string, limit: number, windowMs: number, n: number): Promise<[number, number, number]> })
    .transcriptServiceConsumeMany;
  /** This turn's requests, by key, in arrival order: asked for at the end of the turn. */
  let pending = new Map<string, Waiting[]>();
  /** Keys with a call out, and the requests that arrived since: asked for when it returns. */
  const inFlight = new Map<string, Waiting[]>();

  const ask = async (keyId: string, waiting: Waiting[]) => {
    inFlight.set(keyId, []);
    let failure: { error: unknown } | undefined;
    try {
      const [granted, before, window] = await consumeMany.call(redis, `${prefix}rl:${keyId}`, limit, WINDOW_MS, waiting.length);
      const resetAt = ((window + 1) * WINDOW_MS) / 1000;
      waiting.forEach(({ resolve }, i) =>
        resolve(i < granted ? { allowed: true, limit, remaining: limit - (before + i + 1), resetAt } : { allowed: false, limit, remaining: 0, resetAt }),
      );
    } catch (error) {
      failure = { error };
      for (const { reject } of waiting) reject(error);
    } finally {
      const next = inFlight.get(keyId)!;
      inFlight.delete(keyId);
      // Those that queued behind a failed call fail with it (the fallback counts them), rather than
      // wait out another deadline on a server that just missed one.
      if (failure !== undefined) for (const { reject } of next) reject(failure.error);
      else if (next.length > 0) void ask(keyId, next);
    }
  };
  const flush = () => {
    const batch = pending;
    pending = new Map();
    for (const [keyId, waiting] of batch) {
      const queued = inFlight.get(keyId);
      if (queued) queued.push(...waiting);
      else void ask(keyId, waiting);
    }
  };

  return {
    consume(keyId: string): Promise<RateLimitDecision> {
      return new Promise((resolve, reject) => {
        const queued = inFlight.get(keyId) ?? pending.get(keyId);
        if (queued) {
          queued.push({ resolve, reject });
          return;
        }
        // After this turn's I/O callbacks (setImmediate), so the requests read in the same turn join the batch.
        if (pending.size === 0) setImmediate(flush);
        pending.set(keyId, [{ resolve, reject }]);
      });
    },
  };
}
