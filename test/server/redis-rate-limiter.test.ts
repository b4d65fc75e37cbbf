/**
 * The Redis limiter on its own, against the real Redis on 127.0.0.1:6379:
 * requests of one key that arrive in one event-loop turn, or while the key's
 * call is out, are asked for in one script call, and the count stays exact across two connections (two
 * replicas): every grant has its own `remaining`, none is given twice.
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, test } from "vitest";
import { createRedisRateLimiter } from "../../server/rate-limit/redis-rate-limiter.js";
import type { RateLimitDecision } from "../../server/rate-limit/rate-limiter.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { roomInThisMinute } from "../helpers/rate-window.js";
import { dropRedisKeys, redisPrefix } from "../reliability/helpers/replicas.js";

const available = await redisAvailable("the Redis rate limiter");
const prefix = redisPrefix();
const connections: Redis[] = [];

afterAll(async () => {
  for (const redis of connections) redis.disconnect();
  if (available) await dropRedisKeys(prefix);
});

function connect(): Redis {
  const redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
  connections.push(redis);
  return redis;
}

/** A script that holds Redis (which runs one script at a time) for `micros` microseconds. */
function busyFor(micros: number): string {
  return `local s = redis.call('TIME') repeat local t = redis.call('TIME') until (t[1] - s[1]) * 1000000 + (t[2] - s[2]) > ${micros} return 1`;
}

/** Script calls Redis has run so far (EVALSHA, and EVAL the first time a script is sent). */
async function scriptCalls(redis: Redis): Promise<number> {
  const info = await redis.info("commandstats");
  let calls = 0;
  for (const [, count] of info.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)) calls += Number(count);
  return calls;
}

describe.skipIf(!available)("the Redis rate limiter", () => {
  test("150 requests of one key in one turn, over two connections: exactly 100 granted, each remaining once, a few script calls", async () => {
    await roomInThisMinute();
    const a = createRedisRateLimiter({ redis: connect(), prefix, limit: 100 });
    const b = createRedisRateLimiter({ redis: connect(), prefix, limit: 100 });
    const probe = connect();
    const before = await scriptCalls(probe);
    const now = Date.now();
    const decisions = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? a : b).consume("key-1", now)));
    const calls = (await scriptCalls(probe)) - before;

    const granted = decisions.filter((d) => d.allowed);
    expect(granted).toHaveLength(100);
    expect(granted.map((d) => d.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0)).toBe(true);
    expect(new Set(decisions.map((d) => d.resetAt)).size).toBe(1);
    expect(decisions[0]!.resetAt % 60).toBe(0);
    // One call per limiter for the key (the turn's batch), not one per request.
    expect(calls).toBeLessThanOrEqual(4);
  });

  test("requests that arrive while the key's call is out wait for it and go out together in the next call", async () => {
    await roomInThisMinute();
    const limiter = createRedisRateLimiter({ redis: connect(), prefix, limit: 100 });
    const probe = connect();
    const blocker = connect();
    const before = await scriptCalls(probe);
    // Redis runs one script at a time: this one holds it for 200 ms, so the limiter's first call stays out that long.
    // (Under REDIS_DEADLINE_MS's default, so the servers of other tests on this Redis do not count it as down.)
    const busy = blocker.eval(busyFor(200_000), 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const now = Date.now();
    const first = limiter.consume("key-5", now);
    const later: Promise<RateLimitDecision>[] = [];
    // 20 requests, each in a turn of its own, while the first call waits behind the busy script.
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      later.push(limiter.consume("key-5", now));
    }
    const decisions = await Promise.all([first, ...later]);
    await busy;
    const calls = (await scriptCalls(probe)) - before;

    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: 21 }, (_, i) => 99 - i));
    // The busy script, the first request's call and one call for the 20 (one per turn would be 20).
    expect(calls).toBeLessThanOrEqual(3);
  });

  test("keys are counted apart, and requests of later turns go on counting the same window", async () => {
    await roomInThisMinute();
    const limiter = createRedisRateLimiter({ redis: connect(), prefix, limit: 3 });
    const now = Date.now();
    const first = await Promise.all([limiter.consume("key-2", now), limiter.consume("key-3", now)]);
    expect(first.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 2],
    ]);
    const later = [];
    for (let i = 0; i < 3; i++) later.push(await limiter.consume("key-2", now));
    expect(later.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  });

  test("requests that queued behind a call past its deadline fail with it, and are never sent to Redis", async () => {
    await roomInThisMinute();
    // This connection's commands have a 50 ms deadline; the busy script holds Redis for 150 ms.
    const redis = new Redis(REDIS_URL, { enableAutoPipelining: true, commandTimeout: 50 });
    connections.push(redis);
    await redis.ping();
    const limiter = createRedisRateLimiter({ redis, prefix, limit: 100 });
    const busy = connect().eval(busyFor(150_000), 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const first = limiter.consume("key-6", Date.now());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const behind = Array.from({ length: 10 }, () => limiter.consume("key-6", Date.now()));
    const results = await Promise.allSettled([first, ...behind]);
    await busy;
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(results.map((r) => r.status)).toEqual(Array(11).fill("rejected"));
    // Redis ran the first call once the script ended (too late for its caller); the ten behind it were not sent.
    const probe = connect();
    const windows = await probe.keys(`${prefix}rl:key-6:*`);
    const counted = windows.length === 0 ? [] : await probe.mget(...windows);
    expect(counted.reduce((sum, n) => sum + Number(n), 0)).toBe(1);
  });

  test("a failed call rejects every request of its batch (the fallback limiter counts them)", async () => {
    // Nothing listens on port 1: every command fails at once.
    const redis = new Redis("redis://127.0.0.1:1", { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on("error", () => {});
    connections.push(redis);
    const limiter = createRedisRateLimiter({ redis, prefix, limit: 100 });
    const results = await Promise.allSettled([limiter.consume("key-4", Date.now()), limiter.consume("key-4", Date.now())]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
