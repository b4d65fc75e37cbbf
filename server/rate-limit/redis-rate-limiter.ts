/**
 * The fixed-window limiter in Redis (REDIS_URL), for replicas that must share
 * one count per key. One Lua script reads, checks and increments the window's
 * counter atomically, so concurrent requests on any number of replicas are
 * counted exactly; the window is taken from Redis's clock (TIME), so replicas
 * with skewed clocks still agree on it. When Redis cannot answer, `consume`
 * rejects and the request is counted by the local limiter instead
 * (fallback-rate-limiter.ts).
 */
import type { Redis } from "ioredis";
import { WINDOW_MS } from "./memory-rate-limiter.js";
import type { RateLimitDecision, RateLimiter } from "./rate-limiter.js";

/** KEYS[1]: the key's counter prefix; ARGV: limit, window ms. Returns {allowed, count, window}. */
const CONSUME = `
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = math.floor(nowMs / tonumber(ARGV[2]))
local key = KEYS[1] .. ':' .. window
local count = tonumber(redis.call('GET', key) or '0')
if count >= tonumber(ARGV[1]) then return {0, count, window} end
count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, 2 * tonumber(ARGV[2])) end
return {1, count, window}
`;

export interface RedisRateLimiterOptions {
  redis: Redis;
  /** Prefix of every key this service writes (several services may share one Redis). */
  prefix: string;
  limit: number;
}

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { redis, prefix, limit } = options;
  redis.defineCommand("transcriptServiceConsume", { numberOfKeys: 1, lua: CONSUME });
  const consume = (redis as unknown as { transcriptServiceConsume(key: string, limit: number, windowMs: number): Promise<[number, number, number]> })
    .transcriptServiceConsume;
  return {
    async consume(keyId: string): Promise<RateLimitDecision> {
      const answer = await consume.call(redis, `${prefix}rl:${keyId}`, limit, WINDOW_MS);
      const [allowed, count, window] = answer;
      return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetAt: ((window + 1) * WINDOW_MS) / 1000 };
    },
  };
}
