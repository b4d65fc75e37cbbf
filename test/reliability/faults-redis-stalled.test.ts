/**
 * A Redis that stops answering without going away (SIGSTOP: its port and
 * connections stay open, nothing answers), under load from a real server
 * process with REDIS_URL pointing at a redis-server of this file's own.
 * Measured side by side with a server without Redis, loaded at the same
 * time: the stalled one answers within half the other's rate, and /healthz
 * says `degraded` with `unreachable: ["redis"]`. Thawed (SIGCONT), /healthz
 * says `ok` again within seconds and the count is kept in Redis again. A
 * stall while no request comes is noticed too (the background probe).
 */
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openKeyStore } from "../../server/auth/key-store.js";
import { call } from "../server/helpers/http.js";
import { until } from "./helpers/child.js";
import { ownRedis, redisServerInstalled, type OwnRedis } from "./helpers/own-redis.js";
import { prepareDataDir, startServerProcess, type DataDir, type ServerProcess } from "./helpers/server-process.js";

const available = await redisServerInstalled("a stalled Redis");
const dirs: DataDir[] = [];
const servers: ServerProcess[] = [];
let redis: OwnRedis | undefined;

beforeAll(async () => {
  if (!available) return;
  redis = await ownRedis();
  await redis.start();
});

afterAll(async () => {
  redis?.resume();
  for (const server of servers) await server.stop();
  await redis?.stop();
  for (const dir of dirs) dir.cleanup();
});

/** Answers 200 a second to /v1/stats over `seconds` of load on 8 keep-alive connections, and what was not 200. */
async function load(server: ServerProcess, key: string, seconds: number): Promise<{ perSecond: number; other: number }> {
  const result = await autocannon({ url: `${server.baseUrl}/v1/stats`, connections: 8, duration: seconds, headers: { "x-api-key": key } });
  return { perSecond: result["2xx"] / result.duration, other: result.non2xx + result.errors };
}

const health = async (server: ServerProcess) => (await call(server.baseUrl, "/healthz")).body as { status: string; reason?: string; unreachable?: string[] };

describe.skipIf(!available)("a Redis that stops answering", () => {
  test("counts as down: the rate holds beside a server without Redis, /healthz says degraded; thawed, counting is back in Redis", async () => {
    const plain = await prepareDataDir();
    const shared = await prepareDataDir();
    dirs.push(plain, shared);
    const store = openKeyStore({ dataDir: shared.dir });
    const after = store.create({ plan: "pro", name: "after" });
    store.close();
    const prefix = `t_${randomBytes(6).toString("hex")}:`;
    const [withoutRedis, withRedis] = await Promise.all([
      startServerProcess(plain.dir),
      startServerProcess(shared.dir, { REDIS_URL: redis!.url, REDIS_KEY_PREFIX: prefix }),
    ]);
    servers.push(withoutRedis, withRedis);
    await until(async () => (await health(withRedis)).status === "ok", 10_000, "the server to reach Redis");

    // Warm-up, both at once: the engine optimizes each server's request path before anything is measured.
    await Promise.all([load(withoutRedis, plain.key, 1), load(withRedis, shared.key, 1)]);

    redis!.pause();
    const [alone, stalled] = await Promise.all([load(withoutRedis, plain.key, 3), load(withRedis, shared.key, 3)]);
    console.log(`req/s over 3 s: without Redis ${alone.perSecond.toFixed(0)}, with Redis stalled ${stalled.perSecond.toFixed(0)}`);
    expect(stalled.other).toBe(0);
    expect(stalled.perSecond).toBeGreaterThanOrEqual(0.5 * alone.perSecond);
    const degraded = await call(withRedis.baseUrl, "/healthz");
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ status: "degraded", unreachable: ["redis"] });
    expect(degraded.body.reason).toContain("redis unreachable");
    expect(withRedis.child.stdout().match(/redis unreachable: rate limits counted per process/g)).toHaveLength(1);

    // Thawed: back within seconds (the background probe), and each request counted in Redis again.
    redis!.resume();
    await until(async () => (await health(withRedis)).status === "ok", 5_000, "/healthz to say ok after Redis answers again");
    expect(withRedis.child.stdout().match(/redis reachable again/g)).toHaveLength(1);
    for (let i = 0; i < 5; i++) expect((await call(withRedis.baseUrl, "/v1/stats", { key: after.key })).status).toBe(200);
    const reader = new Redis(redis!.url);
    try {
      const windows = await reader.keys(`${prefix}rl:${after.record.keyId}:*`);
      const counted = windows.length === 0 ? [] : await reader.mget(...windows);
      expect(counted.reduce((sum, n) => sum + Number(n), 0)).toBe(5);
    } finally {
      reader.disconnect();
    }

    // Stalled again with no request asking Redis anything: the background probe notices, and then its return.
    redis!.pause();
    await until(async () => (await health(withRedis)).status === "degraded", 5_000, "/healthz to say degraded without traffic");
    redis!.resume();
    await until(async () => (await health(withRedis)).status === "ok", 5_000, "/healthz to say ok again");
  }, 120_000);
});
