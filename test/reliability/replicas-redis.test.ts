/**
 * Replicas sharing Redis (REDIS_URL): two server processes, each with its own
 * DATA_DIR copy of the artifact files and the same key, count one rate limit:
 * 250 concurrent requests spread over both → exactly 100 pass; a video
 * YouTube refuses, asked of both, is fetched once (the negative cache). A
 * replica started with Redis unreachable serves, counting limits itself, and
 * says `degraded` in /healthz (faults-redis.test.ts kills Redis mid-load).
 * Live-fetch claims: a miss asked of both at once is
 * fetched once when YouTube refuses it; a stored one is fetched by the second
 * replica only after the first's fetch ended (without DATABASE_URL it cannot
 * read the other's live store); a replica killed mid-fetch frees the claim
 * when it expires. Real Redis on 127.0.0.1:6379, a random key prefix.
 */
import { copyFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { fresh, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { call } from "../server/helpers/http.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { until } from "./helpers/child.js";
import { dropRedisKeys, redisPrefix, replicaDataDir } from "./helpers/replicas.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";
import { roomInThisMinute } from "../helpers/rate-window.js";

const available = await redisAvailable("replicas sharing Redis");
const prefix = redisPrefix();
const dirs: string[] = [];
const servers: ServerProcess[] = [];
let standin: Standin | undefined;

beforeAll(async () => {
  if (available) standin = await startStandin({ corpus: upstreamCorpus() });
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  await standin?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  if (available) await dropRedisKeys(prefix);
});

/** Two DATA_DIRs with the same set and the same keys.db; returns the dirs and the key. */
async function twoDataDirs(): Promise<{ a: string; b: string; key: string; other: string }> {
  const a = await replicaDataDir(dirs, "replica-a");
  const b = await replicaDataDir(dirs, "replica-b");
  const keys = openKeyStore({ dataDir: a });
  const { key } = keys.create({ plan: "pro", name: "replicas" });
  const other = keys.create({ plan: "pro", name: "second" }).key;
  keys.close();
  copyFileSync(path.join(a, "keys.db"), path.join(b, "keys.db"));
  return { a, b, key, other };
}

describe.skipIf(!available)("replicas with REDIS_URL", () => {
  test("one key over two replicas, 250 concurrent requests: exactly 100 pass, then 429", async () => {
    const { a, b, key, other } = await twoDataDirs();
    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: "100", YOUTUBE_ORIGIN: standin!.origin };
    const [ra, rb] = await Promise.all([startServerProcess(a, env), startServerProcess(b, env)]);
    servers.push(ra, rb);
    await roomInThisMinute(10);
    const answers = await Promise.all(
      Array.from({ length: 250 }, (_, i) => {
        const replica = i % 2 === 0 ? ra : rb;
        return call(replica.baseUrl, "/v1/stats", { key }).then((res) => ({ ...res, replica: i % 2 }));
      }),
    );
    const passed = answers.filter((x) => x.status === 200);
    expect(passed).toHaveLength(100);
    expect(answers.filter((x) => x.status === 429)).toHaveLength(150);
    expect(new Set(passed.map((x) => x.replica)).size).toBe(2);
    const remaining = passed.map((x) => Number(x.headers.get("x-ratelimit-remaining"))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const resets = new Set(answers.map((x) => x.headers.get("x-ratelimit-reset")));
    expect(resets.size).toBe(1);

    // A video YouTube refuses, asked of A then B (another key: the first one is spent): one upstream fetch.
    const id = "gone0000002";
    const first = await call(ra.baseUrl, `/v1/transcript/${id}`, { key: other });
    expect(first.status).toBe(404);
    const second = await call(rb.baseUrl, `/v1/transcript/${id}`, { key: other });
    expect(second.status).toBe(404);
    expect(second.body.code).toBe(first.body.code);
    expect(standin!.stats.byVideo[id]?.watch).toBe(1);
  }, 120_000);

  test("Redis unreachable at start: requests are served and counted by the replica; /healthz says degraded", async () => {
    const { a, key } = await twoDataDirs();
    const server = await startServerProcess(a, { REDIS_URL: "redis://127.0.0.1:1", REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: "100" });
    servers.push(server);
    const res = await call(server.baseUrl, "/v1/stats", { key });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("99");
    const health = await call(server.baseUrl, "/healthz");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: "degraded", unreachable: ["redis"] });
    expect(server.child.stdout()).toContain("redis not reachable at start");
  }, 60_000);

  test("live-fetch claims: one fetch of a refused miss over both; a stored one fetched again only after", async () => {
    const { a, b, key } = await twoDataDirs();
    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, YOUTUBE_ORIGIN: standin!.origin };
    const [ra, rb] = await Promise.all([startServerProcess(a, env), startServerProcess(b, env)]);
    servers.push(ra, rb);
    standin!.setFault({ kind: "slow", delayMs: 800, endpoint: "watch" });
    try {
      // Refused by YouTube: the outcome reaches the waiters on both replicas; one upstream fetch.
      const gone = "gone0000003";
      const refused = await Promise.all(Array.from({ length: 6 }, (_, i) => call((i % 2 === 0 ? ra : rb).baseUrl, `/v1/transcript/${gone}`, { key })));
      expect(refused.map((x) => x.status)).toEqual(Array(6).fill(404));
      expect(new Set(refused.map((x) => x.body.code)).size).toBe(1);
      expect(standin!.stats.byVideo[gone]?.watch).toBe(1);

      // Stored by A: B cannot read A's live.db, so it fetches itself once A's fetch is over (serialised, not at once).
      const id = fresh(1).videoId;
      const timed = async (replica: ServerProcess) => {
        const res = await call(replica.baseUrl, `/v1/transcript/${id}`, { key });
        return { res, end: Date.now() };
      };
      const first = timed(ra);
      await until(() => (standin!.stats.byVideo[id]?.watch ?? 0) >= 1, 10_000, "A's fetch to start");
      const [fromA, fromB] = await Promise.all([first, timed(rb)]);
      expect(fromA.res.status).toBe(200);
      expect(fromB.res.status).toBe(200);
      expect(standin!.stats.byVideo[id]?.watch).toBe(2);
      // B's own fetch started only after A's ended: B answers at least one slow watch page (800 ms) after A.
      expect(fromB.end - fromA.end).toBeGreaterThanOrEqual(700);
      expect((await call(ra.baseUrl, `/v1/transcript/${id}`, { key })).body.cached).toBe(true);
    } finally {
      standin!.setFault(null);
    }
  }, 120_000);

  test("a replica killed with -9 mid-fetch: its claim expires and the other replica fetches", async () => {
    const { a, b, key } = await twoDataDirs();
    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, YOUTUBE_ORIGIN: standin!.origin, LIVE_CLAIM_SECONDS: "2" };
    const [ra, rb] = await Promise.all([startServerProcess(a, env), startServerProcess(b, env)]);
    servers.push(ra, rb);
    const id = fresh(2).videoId;
    standin!.setFault({ kind: "slow", delayMs: 30_000, endpoint: "watch", times: 1 });
    try {
      void call(ra.baseUrl, `/v1/transcript/${id}`, { key }).catch(() => undefined);
      await until(() => (standin!.stats.byVideo[id]?.watch ?? 0) >= 1, 10_000, "A's fetch to start");
      // The claim is A's now: B waits for it.
      const redis = new Redis(REDIS_URL);
      try {
        expect(await redis.keys(`${prefix}claim:${id}:*`)).toHaveLength(1);
      } finally {
        redis.disconnect();
      }
      ra.child.process.kill("SIGKILL");
      await ra.child.exited;
      const at = Date.now();
      const res = await call(rb.baseUrl, `/v1/transcript/${id}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.cached).toBe(false);
      expect(standin!.stats.byVideo[id]?.watch).toBe(2);
      // It waited for the expiry (no renewal since the kill), not for A's 30 s fetch.
      expect(Date.now() - at).toBeLessThan(10_000);
    } finally {
      standin!.setFault(null);
    }
  }, 120_000);
});
