/**
 * The live-fetch claims in Redis on their own (two claim sets over one real
 * Redis, as two replicas): the first claim leads and the second follows and
 * gets the outcome; a leader's claim outlives its TTL while it renews; a claim
 * whose holder stops renewing (a killed replica) expires and its follower is
 * told it was abandoned; Redis unreachable makes every claim a leader.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, test } from "vitest";
import { createRedisFetchClaims } from "../../server/coordination/redis-fetch-claims.js";
import type { Claim, FetchOutcome } from "../../server/live/fetch-coordination.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";

const available = await redisAvailable("live-fetch claims in Redis");
const prefix = `t_${randomBytes(6).toString("hex")}:`;
const connections: Redis[] = [];

function connection(url = REDIS_URL): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 500, commandTimeout: 500, retryStrategy: () => null });
  redis.on("error", () => undefined);
  connections.push(redis);
  return redis;
}

afterAll(async () => {
  const redis = connections[0];
  if (available && redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  for (const c of connections) c.disconnect();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ready(redis: Redis): Promise<Redis> {
  if (redis.status !== "ready") await new Promise((resolve) => redis.once("ready", resolve));
  return redis;
}

describe.skipIf(!available)("live-fetch claims in Redis", () => {
  test("one leads, the other follows and gets the outcome; the claim is free again after", async () => {
    const a = createRedisFetchClaims({ redis: await ready(connection()), prefix, ttlMs: 1_000, pollMs: 20 });
    const b = createRedisFetchClaims({ redis: await ready(connection()), prefix, ttlMs: 1_000, pollMs: 20 });
    const lead = await a.claim("vid00000001\u0000en");
    const follow = await b.claim("vid00000001\u0000en");
    expect(lead.role).toBe("leader");
    expect(follow.role).toBe("follower");
    // Renewed past its TTL while the fetch runs: still a follower's wait, not an expiry.
    await sleep(1_500);
    const outcome: FetchOutcome = { kind: "stored", method: "innertube", usedProxy: false, seq: 7 };
    (lead as Extract<Claim, { role: "leader" }>).settle(outcome);
    expect(await (follow as Extract<Claim, { role: "follower" }>).outcome).toEqual(outcome);
    expect((await b.claim("vid00000001\u0000en")).role).toBe("leader");
  });

  test("a holder that stops renewing (killed): the claim expires and the follower hears `abandoned`", async () => {
    const holder = await ready(connection());
    const a = createRedisFetchClaims({ redis: holder, prefix, ttlMs: 600, pollMs: 20 });
    const b = createRedisFetchClaims({ redis: await ready(connection()), prefix, ttlMs: 600, pollMs: 20 });
    expect((await a.claim("vid00000002\u0000en")).role).toBe("leader");
    // The holder's connection goes away: its renewals no longer reach Redis.
    holder.disconnect();
    const follow = await b.claim("vid00000002\u0000en");
    expect(follow.role).toBe("follower");
    const at = Date.now();
    expect(await (follow as Extract<Claim, { role: "follower" }>).outcome).toEqual({ kind: "abandoned" });
    expect(Date.now() - at).toBeLessThan(2_000);
    expect((await b.claim("vid00000002\u0000en")).role).toBe("leader");
  });

  test("Redis unreachable: the claim is this process's (an extra fetch, never a stuck request)", async () => {
    const claims = createRedisFetchClaims({ redis: connection("redis://127.0.0.1:1"), prefix, ttlMs: 1_000 });
    expect((await claims.claim("vid00000003\u0000en")).role).toBe("leader");
  });
});
