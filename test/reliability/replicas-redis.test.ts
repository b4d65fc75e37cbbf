/**
 * Replicas sharing Redis (REDIS_URL): two server processes, each with its own
 * DATA_DIR copy of the artifact files and the same key, count one rate limit:
 * 250 concurrent requests spread over both → exactly 100 pass; a video
 * YouTube refuses, asked of both, is fetched once (the negative cache). With Redis
 * unreachable, an authenticated request is refused with 503
 * `rate_limit_unavailable` (never counted by one replica alone) while
 * /healthz still answers. Real Redis on 127.0.0.1:6379, a random key prefix.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { artifactRecords, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { publishRecords } from "../live/helpers/live-server.js";
import { call } from "../server/helpers/http.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";

const available = await redisAvailable("replicas sharing Redis");
const prefix = `t_${randomBytes(6).toString("hex")}:`;
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
  if (!available) return;
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** Two DATA_DIRs with the same set and the same keys.db; returns the dirs and the key. */
async function twoDataDirs(): Promise<{ a: string; b: string; key: string; other: string }> {
  const a = mkdtempSync(path.join(tmpdir(), "replica-a-"));
  const b = mkdtempSync(path.join(tmpdir(), "replica-b-"));
  dirs.push(a, b);
  await publishRecords(a, artifactRecords());
  await publishRecords(b, artifactRecords());
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
    // Within one clock minute (the fixed window).
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
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

  test("Redis unreachable: authenticated requests get 503 rate_limit_unavailable, /healthz answers", async () => {
    const { a, key } = await twoDataDirs();
    const server = await startServerProcess(a, { REDIS_URL: "redis://127.0.0.1:1", REDIS_KEY_PREFIX: prefix });
    servers.push(server);
    const res = await call(server.baseUrl, "/v1/stats", { key });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("rate_limit_unavailable");
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await call(server.baseUrl, "/healthz")).status).toBe(200);
    expect(server.child.stdout()).toContain("redis not reachable at start");
  }, 60_000);
});
