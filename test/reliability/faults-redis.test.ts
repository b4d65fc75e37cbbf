/**
 * Redis going away under load (REDIS_URL): two replicas over a redis-server
 * of this file's own. Killed mid-load: no answer is a 5xx, /healthz says
 * `degraded` with `unreachable: ["redis"]` (still 200), each replica counts
 * the limit on its own (exactly the limit per replica), live fetches go on,
 * and one warning is logged however many requests fell back. Started again
 * on the same port: the flag clears within seconds and the two replicas
 * count one shared limit again. With WORKERS=2 and Redis down, the primary
 * counts one limit and single-flights live fetches for both workers.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { artifactRecords, fresh, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { publishRecords } from "../live/helpers/live-server.js";
import { call, type ApiResponse } from "../server/helpers/http.js";
import { roomInThisMinute } from "../helpers/rate-window.js";
import { until } from "./helpers/child.js";
import { ownRedis, redisServerInstalled, type OwnRedis } from "./helpers/own-redis.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";

const available = await redisServerInstalled("Redis faults");
const LIMIT = 20;
const dirs: string[] = [];
const servers: ServerProcess[] = [];
let standin: Standin | undefined;
let redis: OwnRedis | undefined;

beforeAll(async () => {
  if (!available) return;
  standin = await startStandin({ corpus: upstreamCorpus() });
  redis = await ownRedis();
  await redis.start();
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  await redis?.stop();
  await standin?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A burst counted in one clock-minute window (the fixed window). */
const roomInWindow = () => roomInThisMinute(20);

const health = async (server: ServerProcess) => (await call(server.baseUrl, "/healthz")).body as { status: string; unreachable?: string[] };
const count = (answers: ApiResponse[], status: number) => answers.filter((x) => x.status === status).length;

describe.skipIf(!available)("Redis killed and restarted under load", () => {
  test("no 5xx, per-process limits and a degraded flag while down; the shared limit again once back", async () => {
    const a = mkdtempSync(path.join(tmpdir(), "faults-redis-a-"));
    const b = mkdtempSync(path.join(tmpdir(), "faults-redis-b-"));
    dirs.push(a, b);
    await publishRecords(a, artifactRecords());
    await publishRecords(b, artifactRecords());
    const store = openKeyStore({ dataDir: a });
    const [load, down, back] = ["load", "down", "back"].map((name) => store.create({ plan: "pro", name }).key) as [string, string, string];
    store.close();
    copyFileSync(path.join(a, "keys.db"), path.join(b, "keys.db"));
    const env = {
      REDIS_URL: redis!.url,
      REDIS_KEY_PREFIX: `t_${randomBytes(6).toString("hex")}:`,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      YOUTUBE_ORIGIN: standin!.origin,
    };
    const [ra, rb] = await Promise.all([startServerProcess(a, env), startServerProcess(b, env)]);
    servers.push(ra, rb);
    expect(await health(ra)).toMatchObject({ status: "ok" });
    expect((await health(ra)).unreachable).toBeUndefined();

    // Load on both replicas while Redis is killed: a bounded burst, every answer 200 or 429.
    const answers: ApiResponse[] = [];
    let loading = true;
    const loop = async (server: ServerProcess) => {
      for (let i = 0; i < 400 && loading; i++) answers.push(await call(server.baseUrl, "/v1/stats", { key: load }));
    };
    const loops = Promise.all([loop(ra), loop(rb)]);
    await until(() => answers.length >= 10, 10_000, "the load to start");
    await redis!.stop();
    await until(async () => (await health(ra)).unreachable?.includes("redis") === true && (await health(rb)).unreachable?.includes("redis") === true, 10_000, "degraded");
    const atDegraded = answers.length;
    await until(() => answers.length >= atDegraded + 20 || !loading, 10_000, "load after the kill");
    loading = false;
    await loops;
    expect(answers.filter((x) => x.status >= 500)).toEqual([]);
    expect(answers.length).toBeGreaterThanOrEqual(30);
    const degraded = await call(ra.baseUrl, "/healthz");
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ status: "degraded", unreachable: ["redis"] });
    expect(degraded.body.reason).toContain("rate limits counted per process");
    const ready = await call(ra.baseUrl, "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, status: "degraded", unreachable: ["redis"] });

    // Each replica counts the limit on its own while Redis is down: exactly LIMIT pass on each.
    await roomInWindow();
    const perReplica = await Promise.all(
      [ra, rb].map((server) => Promise.all(Array.from({ length: LIMIT + 10 }, () => call(server.baseUrl, "/v1/stats", { key: down })))),
    );
    for (const replica of perReplica) {
      expect(count(replica, 200)).toBe(LIMIT);
      expect(count(replica, 429)).toBe(10);
    }
    // Live fetches go on without claims in Redis.
    const fetched = await call(ra.baseUrl, `/v1/transcript/${fresh(1).videoId}`, { key: back });
    expect(fetched.status).toBe(200);
    expect(fetched.body.cached).toBe(false);
    // One warning on entering, however many requests fell back.
    for (const server of [ra, rb]) expect(server.child.stdout().match(/redis unreachable: rate limits counted per process/g)).toHaveLength(1);

    // Back on the same port: the flag clears within seconds and the count is shared again.
    await redis!.start();
    await until(async () => (await health(ra)).status === "ok" && (await health(rb)).status === "ok", 15_000, "degraded to clear");
    expect((await health(ra)).unreachable).toBeUndefined();
    for (const server of [ra, rb]) expect(server.child.stdout().match(/redis reachable again/g)).toHaveLength(1);
    await roomInWindow();
    const shared = await Promise.all(
      Array.from({ length: LIMIT + 10 }, (_, i) => call((i % 2 === 0 ? ra : rb).baseUrl, "/v1/stats", { key: back })),
    );
    // `back` spent one request on the live fetch above (in the fallback count, not Redis's): LIMIT pass across both.
    expect(count(shared, 200)).toBe(LIMIT);
    expect(count(shared, 429)).toBe(10);
  }, 300_000);

  test("WORKERS=2 with Redis down: the primary counts one limit for both workers and one fetch per missing transcript", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "faults-redis-workers-"));
    dirs.push(dir);
    await publishRecords(dir, artifactRecords());
    const store = openKeyStore({ dataDir: dir });
    const [key, other] = ["workers", "fetch"].map((name) => store.create({ plan: "pro", name }).key) as [string, string];
    store.close();
    const env = {
      WORKERS: "2",
      ACCESS_LOG: "on",
      REDIS_URL: redis!.url,
      REDIS_KEY_PREFIX: `t_${randomBytes(6).toString("hex")}:`,
      RATE_LIMIT_PER_MINUTE: String(LIMIT),
      YOUTUBE_ORIGIN: standin!.origin,
    };
    const server = await startServerProcess(dir, env);
    servers.push(server);
    await redis!.stop();
    // Each worker has its own connection: every answer, whichever worker gives it, says so.
    await until(async () => {
      const seen = await Promise.all(Array.from({ length: 6 }, () => health(server)));
      return seen.every((h) => h.unreachable?.includes("redis") === true);
    }, 15_000, "both workers to see Redis down");

    await roomInWindow();
    const burst = await Promise.all(Array.from({ length: LIMIT + 10 }, () => call(server.baseUrl, "/v1/stats", { key })));
    expect(count(burst, 200)).toBe(LIMIT);
    expect(count(burst, 429)).toBe(10);
    // Both workers answered the burst (their access-log lines name them), yet one count. The lines come
    // through a pipe, the answers over sockets: the last lines may arrive after the last answer.
    const statsLines = () => server.child.stdout().split("\n").filter((line) => line.startsWith("{") && line.includes('"path":"/v1/stats"'));
    await until(() => statsLines().length >= burst.length, 10_000, "an access-log line for every request of the burst");
    const answeredBy = new Set(statsLines().map((line) => (JSON.parse(line) as { worker?: number }).worker));
    expect([...answeredBy].sort()).toEqual([1, 2]);

    // One missing transcript asked for through both workers at once: YouTube is asked once.
    await roomInWindow();
    const id = fresh(2).videoId;
    const misses = await Promise.all(Array.from({ length: 12 }, () => call(server.baseUrl, `/v1/transcript/${id}`, { key: other })));
    expect(misses.map((x) => x.status)).toEqual(Array(12).fill(200));
    expect(standin!.stats.byVideo[id]?.watch).toBe(1);
    expect(server.child.stdout()).not.toMatch(/"level":"(error|fatal)"/);
    await redis!.start();
  }, 120_000);
});
