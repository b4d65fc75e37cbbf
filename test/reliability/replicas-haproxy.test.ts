/**
 * Three replicas behind the shipped HAProxy configuration
 * (deploy/haproxy/transcript-service.cfg, only its addresses changed): three
 * server processes, each with its own DATA_DIR holding the same set, all with
 * REDIS_URL (a redis-server of this file's own, so it can be killed) and
 * DATABASE_URL (a database of this file's own), the YouTube stand-in upstream. Through HAProxy: one key's
 * 300 concurrent requests → exactly 100 answered, 200 refused with 429, the
 * rate-limit headers intact; 50 concurrent requests for one missing
 * transcript → one upstream fetch. A transcript fetched on one replica is
 * served and found on the others within 2 s; a key revoked with the CLI is
 * refused by all three within 5 s; Redis killed and restarted mid-load costs
 * no 5xx, and the one count is back once it is; a replica killed with -9 mid-load loses
 * nothing answered as stored. Which replica answered is read from its access
 * log, by the request id HAProxy forwarded.
 */
import { rmSync } from "node:fs";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { fresh, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { call, type ApiResponse } from "../server/helpers/http.js";
import { freshDatabase, postgresAvailable } from "../helpers/services.js";
import { until } from "./helpers/child.js";
import { haproxyAvailable, startHaproxy, type Haproxy } from "./helpers/haproxy.js";
import { ownRedis, redisServerInstalled, type OwnRedis } from "./helpers/own-redis.js";
import { createKey, keysCli, replicaDataDir } from "./helpers/replicas.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";
import { roomInThisMinute } from "../helpers/rate-window.js";

const what = "three replicas behind HAProxy";
const available = haproxyAvailable(what) && (await redisServerInstalled(what)) && (await postgresAvailable(what));
const dirs: string[] = [];
let redis: OwnRedis | undefined;
let standin: Standin | undefined;
let database: { url: string; drop(): Promise<void> } | undefined;
let haproxy: Haproxy | undefined;
/** A, B and C. */
const replicas: ServerProcess[] = [];
/** One key per part, so no part spends another's 100 requests a minute. */
let keys: Record<"rate" | "miss" | "a" | "b" | "c" | "load" | "afterB" | "afterC" | "redisLoad" | "redisBack", string>;

beforeAll(async () => {
  if (!available) return;
  standin = await startStandin({ corpus: upstreamCorpus() });
  database = await freshDatabase();
  redis = await ownRedis();
  await redis.start();
  const names = ["rate", "miss", "a", "b", "c", "load", "afterB", "afterC", "redisLoad", "redisBack"] as const;
  const made = await Promise.all(names.map((name) => createKey(database!.url, name)));
  keys = Object.fromEntries(names.map((name, i) => [name, made[i]!.key])) as typeof keys;
  const env = {
    REDIS_URL: redis.url,
    DATABASE_URL: database.url,
    YOUTUBE_ORIGIN: standin.origin,
    RATE_LIMIT_PER_MINUTE: "100",
    LIVE_CLAIM_SECONDS: "2",
    ACCESS_LOG: "on",
  };
  const dataDirs = await Promise.all(["a", "b", "c"].map((name) => replicaDataDir(dirs, `replica-haproxy-${name}`)));
  // One after the other, each kept as soon as it listens, so afterAll stops every one that started.
  for (const dir of dataDirs) replicas.push(await startServerProcess(dir, env));
  haproxy = await startHaproxy(replicas.map((replica) => new URL(replica.baseUrl).host));
}, 180_000);

afterAll(async () => {
  await throughHaproxy.close();
  await haproxy?.stop();
  for (const replica of replicas) await replica.stop();
  await standin?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await database?.drop();
  await redis?.stop();
});

/** A fetch error with its cause (undici puts the socket's error there), in one line. */
function errorLine(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${error instanceof Error ? error.message : String(error)}${cause ? ` (${cause.code ?? ""} ${cause.message ?? ""})` : ""}`;
}

/** The request ids a replica's access log holds so far. */
function loggedIds(replica: ServerProcess): Set<string> {
  const ids = new Set<string>();
  for (const line of replica.child.stdout().split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { msg?: string; requestId?: string };
    if (entry.msg === "request" && entry.requestId !== undefined) ids.add(entry.requestId);
  }
  return ids;
}

/** How many of `requestIds` each replica logged (A, B, C), once all of them are logged. */
async function answeredBy(requestIds: string[]): Promise<number[]> {
  let counts: number[] = [];
  await until(
    () => {
      const logs = replicas.map(loggedIds);
      counts = logs.map((ids) => requestIds.filter((id) => ids.has(id)).length);
      return counts.reduce((x, y) => x + y, 0) >= requestIds.length;
    },
    10_000,
    "every request in some replica's access log",
  );
  return counts;
}

/**
 * The client of the requests through HAProxy. HAProxy closes a client's
 * connection once it has been idle for 5 s (`timeout http-keep-alive`); a
 * client that keeps idle connections about as long (fetch's default is 4 s,
 * late under load) can send a request on one just as HAProxy closes it, and
 * that request reaches no one. Like a well-set client of a proxy, this one
 * lets its idle connections go well before the proxy does.
 */
const throughHaproxy = new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });

async function viaHaproxy(path: string, key: string, requestId: string): Promise<ApiResponse> {
  const res = await undiciFetch(`${haproxy!.url}${path}`, { headers: { "X-API-Key": key, "X-Request-Id": requestId }, dispatcher: throughHaproxy });
  const text = await res.text();
  return { status: res.status, headers: res.headers as unknown as Headers, body: text === "" ? undefined : JSON.parse(text) };
}

describe.skipIf(!available)("three replicas behind HAProxy (REDIS_URL, DATABASE_URL)", () => {
  test("X-Request-Id: the client's reaches the replica and comes back; without one, HAProxy's id is used by both", async () => {
    const own = await call(haproxy!.url, "/healthz", { headers: { "X-Request-Id": "client-chosen-1" } });
    expect(own.status).toBe(200);
    expect(own.headers.get("x-request-id")).toBe("client-chosen-1");
    expect(await answeredBy(["client-chosen-1"])).toContain(1);

    const none = await call(haproxy!.url, "/healthz");
    const id = none.headers.get("x-request-id") ?? "";
    // unique-id-format: hexadecimal fields joined by '-' (the server's own ids are UUIDs, lower case).
    expect(id).toMatch(/^[0-9A-F]+(-[0-9A-F]+){6}$/);
    expect(await answeredBy([id])).toContain(1);
    await until(() => haproxy!.log().includes(id), 5_000, "HAProxy's log line with the id");
  });

  test("one key, 300 concurrent requests over the three: exactly 100 answered 200 and 200 answered 429, with one count's headers", async () => {
    await roomInThisMinute(20);
    const requestIds = Array.from({ length: 300 }, (_, i) => `rate-${i}`);
    const sent = Date.now();
    const answers = await Promise.all(requestIds.map((id) => viaHaproxy("/v1/stats", keys.rate, id)));
    const received = Date.now();

    const ok = answers.filter((x) => x.status === 200);
    const refused = answers.filter((x) => x.status === 429);
    expect(ok).toHaveLength(100);
    expect(refused).toHaveLength(200);
    // HAProxy passes every header through: the request id, the limit, one window.
    expect(answers.map((x) => x.headers.get("x-request-id"))).toEqual(requestIds);
    expect(new Set(answers.map((x) => x.headers.get("x-ratelimit-limit")))).toEqual(new Set(["100"]));
    const resets = new Set(answers.map((x) => x.headers.get("x-ratelimit-reset")));
    expect(resets.size).toBe(1);
    const reset = Number([...resets][0]);
    // Each counted request got its own place in the one count: Remaining 99 down to 0, none twice.
    const remaining = ok.map((x) => Number(x.headers.get("x-ratelimit-remaining"))).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const x of ok) expect(x.headers.get("ratelimit")).toMatch(new RegExp(`^"default";r=${x.headers.get("x-ratelimit-remaining")};t=\\d+$`));
    // The refused: Remaining 0, and Retry-After the seconds left in the window (at least 1).
    const earliest = Math.max(1, Math.ceil(reset - received / 1000));
    const latest = Math.max(1, Math.ceil(reset - sent / 1000));
    for (const x of refused) {
      expect(x.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(x.body.code).toBe("rate_limited");
      const retryAfter = Number(x.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(earliest);
      expect(retryAfter).toBeLessThanOrEqual(latest);
    }
    // Round robin: each replica answered its share.
    const spread = await answeredBy(requestIds);
    expect(spread.reduce((x, y) => x + y, 0)).toBe(300);
    for (const count of spread) expect(count).toBeGreaterThanOrEqual(50);
  }, 120_000);

  test("50 concurrent requests for one missing transcript through HAProxy: one upstream fetch", async () => {
    const video = fresh(1);
    const requestIds = Array.from({ length: 50 }, (_, i) => `miss-${i}`);
    standin!.setFault({ kind: "slow", delayMs: 500, endpoint: "watch" });
    let answers: ApiResponse[];
    try {
      answers = await Promise.all(requestIds.map((id) => viaHaproxy(`/v1/transcript/${video.videoId}`, keys.miss, id)));
    } finally {
      standin!.setFault(null);
    }
    expect(answers.map((x) => x.status)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((x) => x.body.transcript.script)).size).toBe(1);
    expect(answers.filter((x) => x.body.cached === false).length).toBeGreaterThanOrEqual(1);
    expect(standin!.stats.byVideo[video.videoId]).toEqual({ watch: 1, player: 1, timedtext: 1 });
    for (const count of await answeredBy(requestIds)) expect(count).toBeGreaterThan(0);
  }, 120_000);

  test("fetched through A: served cached by B and C, and found by search on all three, within 2 s", async () => {
    const [a, b, c] = replicas as [ServerProcess, ServerProcess, ServerProcess];
    const video = fresh(2);
    const fetched = await call(a.baseUrl, `/v1/transcript/${video.videoId}`, { key: keys.a });
    expect({ status: fetched.status, cached: fetched.body.cached }).toEqual({ status: 200, cached: false });
    const at = Date.now();
    const found = async (replica: ServerProcess, key: string): Promise<boolean> =>
      ((await call(replica.baseUrl, "/v1/search?q=quokka2", { key })).body.results ?? []).some((r: { videoId: string }) => r.videoId === video.videoId);
    await Promise.all(
      [
        [b, keys.b],
        [c, keys.c],
      ].map(async ([replica, key]) => {
        const server = replica as ServerProcess;
        await until(async () => (await call(server.baseUrl, `/v1/transcript/${video.videoId}`, { key: key as string })).body.cached === true, 2_000, "a copy served from storage");
        await until(() => found(server, key as string), 2_000, "a copy found by search");
      }),
    );
    expect(Date.now() - at).toBeLessThan(2_000);
    expect(await found(a, keys.a)).toBe(true);
    expect(standin!.stats.byVideo[video.videoId]?.watch).toBe(1);
  }, 60_000);

  test("a key revoked with the CLI is refused by all three replicas within 5 s", async () => {
    const { key, keyId } = await createKey(database!.url, "revoked");
    // A new key, like a revocation, reaches each replica's copy within seconds (its NOTIFY, or the 2 s reload).
    await Promise.all(
      replicas.map((replica) => until(async () => (await call(replica.baseUrl, "/v1/stats", { key })).status === 200, 5_000, "the new key to reach the replica")),
    );
    const revoked = await keysCli(database!.url, ["revoke", keyId]);
    expect(revoked.code).toBe(0);
    const at = Date.now();
    await Promise.all(
      replicas.map((replica) => until(async () => (await call(replica.baseUrl, "/v1/stats", { key })).status === 401, 5_000, "the revocation to reach the replica")),
    );
    expect(Date.now() - at).toBeLessThan(5_000);
    const through = await call(haproxy!.url, "/v1/stats", { key });
    expect({ status: through.status, code: through.body.code }).toEqual({ status: 401, code: "invalid_api_key" });
  }, 60_000);

  test("Redis killed and restarted mid-load: no 5xx through HAProxy, each replica says degraded meanwhile, then one count again", async () => {
    const answers: ApiResponse[] = [];
    /** A request that got no answer: its id, what fetch said, and HAProxy's log line for it (how HAProxy ended it). */
    const errors: { requestId: string; error: string; haproxy: string[] }[] = [];
    let loading = true;
    const paths = ["/v1/stats", "/v1/search?q=river", `/v1/transcript/${fresh(2).videoId}`];
    const loop = async (worker: number) => {
      for (let i = 0; loading; i++) {
        const requestId = `redis-${worker}-${i}`;
        try {
          answers.push(await viaHaproxy(paths[(worker + i) % paths.length]!, keys.redisLoad, requestId));
        } catch (error) {
          errors.push({ requestId, error: errorLine(error), haproxy: [] });
        }
      }
    };
    const health = async (replica: ServerProcess) => (await call(replica.baseUrl, "/healthz")).body as { status: string; unreachable?: string[] };
    const loops = Promise.all([0, 1, 2, 3].map(loop));
    try {
      await until(() => answers.length >= 20, 10_000, "the load to start");
      await redis!.stop();
      await until(async () => (await Promise.all(replicas.map(health))).every((h) => h.unreachable?.includes("redis") === true), 10_000, "every replica to see Redis down");
      const atDown = answers.length;
      const downAt = Date.now();
      await until(() => answers.length >= atDown + 40 && Date.now() - downAt >= 2_000, 20_000, "2 s of load while Redis is down");
      await redis!.start();
      await until(async () => (await Promise.all(replicas.map(health))).every((h) => h.status === "ok"), 15_000, "every replica to see Redis back");
      const atBack = answers.length;
      await until(() => answers.length >= atBack + 20, 20_000, "load after Redis is back");
    } finally {
      loading = false;
      await loops;
    }
    // HAProxy logs a request when it ends; give it a moment, so a failure shows how HAProxy saw it.
    if (errors.length > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    for (const failed of errors) failed.haproxy = haproxy!.log().split("\n").filter((line) => line.includes(failed.requestId));
    expect(errors).toEqual([]);
    expect(answers.filter((x) => x.status >= 500).map((x) => x.body)).toEqual([]);
    expect(answers.filter((x) => x.status !== 200 && x.status !== 429).map((x) => x.status)).toEqual([]);
    expect(answers.filter((x) => x.status === 200).length).toBeGreaterThan(0);

    // The restarted Redis is empty: counting starts afresh there, shared by the three again.
    await roomInThisMinute(20);
    const burst = await Promise.all(Array.from({ length: 130 }, (_, i) => viaHaproxy("/v1/stats", keys.redisBack, `redis-back-${i}`)));
    expect(burst.filter((x) => x.status === 200)).toHaveLength(100);
    expect(burst.filter((x) => x.status === 429)).toHaveLength(30);
  }, 120_000);

  test("A killed with -9 mid-burst of live fetches through HAProxy: every transcript answered as stored is served by B and C", async () => {
    const [a, b, c] = replicas as [ServerProcess, ServerProcess, ServerProcess];
    const ids = Array.from({ length: 30 }, (_, i) => fresh(10 + i).videoId);
    const concurrency = 6;
    const answers = new Map<string, { requestId: string; res?: ApiResponse; error?: unknown }>();
    let next = 0;
    let inFlight = 0;
    let inFlightAtKill = -1;
    const killed = (async () => {
      await until(() => [...answers.values()].filter((x) => x.res?.status === 200).length >= 9, 60_000, "nine transcripts answered");
      inFlightAtKill = inFlight;
      a.child.process.kill("SIGKILL");
      await a.child.exited;
    })();
    standin!.setFault({ kind: "slow", delayMs: 300, endpoint: "watch" });
    try {
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < ids.length) {
            const id = ids[next++]!;
            const requestId = `load-${id}`;
            inFlight++;
            try {
              answers.set(id, { requestId, res: await viaHaproxy(`/v1/transcript/${id}`, keys.load, requestId) });
            } catch (error) {
              answers.set(id, { requestId, error });
            } finally {
              inFlight--;
            }
          }
        }),
      );
      await killed;
    } finally {
      standin!.setFault(null);
    }

    const stored = [...answers].filter(([, x]) => x.res?.status === 200 && x.res.body.transcript !== undefined);
    const failed = [...answers].filter(([, x]) => x.res?.status !== 200);
    // Only requests A had in hand when it died fail, and only as HAProxy fails them: 502 replica_failed, or,
    // for a request that was not the first on its client connection, the connection closed with no answer
    // (RFC 9110 lets a client retry an idempotent request then). The rest went to B and C.
    expect(inFlightAtKill).toBeGreaterThanOrEqual(0);
    expect(failed.length).toBeLessThanOrEqual(inFlightAtKill);
    for (const [, x] of failed) {
      const seen = x.res ? { status: x.res.status, code: x.res.body?.code } : { closed: String((x.error as Error).cause ?? x.error) };
      expect([{ status: 502, code: "replica_failed" }, { closed: "SocketError: other side closed" }]).toContainEqual(seen);
    }
    expect(stored.length + failed.length).toBe(ids.length);
    // A answered some of them itself before it died (its access log, by request id).
    const byA = loggedIds(a);
    expect(stored.filter(([, x]) => byA.has(x.requestId)).length).toBeGreaterThan(0);

    for (const [replica, key] of [
      [b, keys.afterB],
      [c, keys.afterC],
    ] as const) {
      for (const [id] of stored) {
        let last: ApiResponse | undefined;
        await until(
          async () => {
            last = await call(replica.baseUrl, `/v1/transcript/${id}`, { key });
            return last.status === 200 && last.body.cached === true;
          },
          5_000,
          `${id} served from storage by ${replica.baseUrl}`,
        );
        expect({ id, status: last!.status, cached: last!.body.cached }).toEqual({ id, status: 200, cached: true });
      }
    }
  }, 180_000);
});
