/**
 * A PostgreSQL that stops answering without going away: DATABASE_URL routed
 * through a loopback proxy the test stalls (connections stay open, no byte
 * passes; the shared PostgreSQL itself is never touched). Live fetches are
 * answered without waiting on it past DATABASE_DEADLINE_MS (stored here and
 * queued), /healthz says degraded, and the copy of the keys counts it as
 * unreachable (a key made meanwhile gets 503, not 401). Flowing again:
 * /healthz says ok, the queue reaches PostgreSQL, a new fetch is committed
 * there before it is answered, and the new key works. A server stopped while
 * it is stalled exits 0 within seconds.
 */
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { fresh } from "../live/helpers/live-corpus.js";
import { call, type ApiResponse } from "../server/helpers/http.js";
import { postgresAvailable } from "../helpers/services.js";
import { createKey, replicaDataDir, replicaTestBed } from "./helpers/replicas.js";
import { until } from "./helpers/child.js";
import { cuttableProxy, type CuttableProxy } from "./helpers/cuttable-proxy.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";

const available = await postgresAvailable("a stalled PostgreSQL");
const bed = replicaTestBed(available);
const proxies: CuttableProxy[] = [];
// Before the bed stops the servers (hooks run last registered first): a server stops against a PostgreSQL that answers.
afterAll(() => {
  for (const proxy of proxies) proxy.flow();
});
/** Set short here, so a wait on PostgreSQL (5 s queries before this deadline existed) stands out. */
const DEADLINE_MS = 300;

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: bed.database.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** DATABASE_URL through a new proxy of its own. */
async function proxiedUrl(): Promise<{ url: string; proxy: CuttableProxy }> {
  const url = new URL(bed.database.url);
  const proxy = await cuttableProxy(Number(url.port || 5432), url.hostname);
  proxies.push(proxy);
  bed.atEnd(() => proxy.close());
  url.hostname = "127.0.0.1";
  url.port = String(proxy.port);
  return { url: url.toString(), proxy };
}

async function timed(server: ServerProcess, path: string, key: string): Promise<{ answer: ApiResponse; ms: number }> {
  const started = performance.now();
  const answer = await call(server.baseUrl, path, { key });
  return { answer, ms: performance.now() - started };
}

const health = async (server: ServerProcess) => (await call(server.baseUrl, "/healthz")).body as { status: string; unreachable?: string[] };
const inPostgres = async (ids: string[]) => (await sql("SELECT DISTINCT video_id FROM live_records WHERE video_id = ANY($1)", [ids])).length;

describe.skipIf(!available)("a PostgreSQL that stops answering", () => {
  test("counts as unreachable: live fetches do not wait on it, /healthz says degraded, a new key gets 503; flowing again, all reaches it", async () => {
    const used = (await createKey(bed.database.url, "used")).key;
    const { url, proxy } = await proxiedUrl();
    const dir = await replicaDataDir(bed.dirs, "pg-stalled");
    const server = await startServerProcess(dir, { DATABASE_URL: url, DATABASE_DEADLINE_MS: String(DEADLINE_MS), YOUTUBE_ORIGIN: bed.standin.origin });
    bed.servers.push(server);
    const first = await timed(server, `/v1/transcript/${fresh(1).videoId}`, used);
    expect(first.answer.status).toBe(200);
    expect(await inPostgres([fresh(1).videoId])).toBe(1);

    proxy.stall();
    // Live fetches one after another: each answered, stored here and queued, none held by PostgreSQL.
    const stalledIds = [2, 3, 4, 5, 6].map((i) => fresh(i).videoId);
    const answers = [];
    for (const id of stalledIds) answers.push(await timed(server, `/v1/transcript/${id}`, used));
    console.log(`live fetch ms: PostgreSQL answering ${first.ms.toFixed(0)}; stalled ${answers.map((a) => a.ms.toFixed(0)).join(", ")}`);
    for (const { answer, ms } of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.cached).toBe(false);
      expect(ms).toBeLessThan(3_000);
    }
    const degraded = await call(server.baseUrl, "/healthz");
    expect(degraded.status).toBe(200);
    expect(degraded.body).toMatchObject({ status: "degraded", unreachable: ["postgresql"] });
    expect((await call(server.baseUrl, `/v1/transcript/${stalledIds[0]}`, { key: used })).body.cached).toBe(true);
    // The copy of the keys counts PostgreSQL as unreachable too: a key it has not seen may be valid.
    const late = await createKey(bed.database.url, "late");
    await until(async () => (await call(server.baseUrl, "/v1/stats", { key: late.key })).status === 503, 15_000, "a key made meanwhile to get 503");

    proxy.flow();
    await until(async () => (await health(server)).status === "ok", 15_000, "/healthz to say ok again");
    await until(async () => (await inPostgres(stalledIds)) === stalledIds.length, 15_000, "the queued records in PostgreSQL");
    const after = fresh(7).videoId;
    expect((await call(server.baseUrl, `/v1/transcript/${after}`, { key: used })).body.cached).toBe(false);
    expect(await inPostgres([after])).toBe(1);
    await until(async () => (await call(server.baseUrl, "/v1/stats", { key: late.key })).status === 200, 10_000, "the new key to work");
  }, 180_000);

  test("a server stopped while PostgreSQL is stalled exits 0 within seconds, not waiting for its answer", async () => {
    const used = (await createKey(bed.database.url, "stop")).key;
    const { url, proxy } = await proxiedUrl();
    const dir = await replicaDataDir(bed.dirs, "pg-stalled-stop");
    const server = await startServerProcess(dir, { DATABASE_URL: url, DATABASE_DEADLINE_MS: String(DEADLINE_MS), YOUTUBE_ORIGIN: bed.standin.origin });
    bed.servers.push(server);
    expect((await call(server.baseUrl, `/v1/transcript/${fresh(11).videoId}`, { key: used })).status).toBe(200);
    proxy.stall();
    expect((await call(server.baseUrl, `/v1/transcript/${fresh(12).videoId}`, { key: used })).status).toBe(200);

    const stopAt = performance.now();
    const stopped = server.stop().finally(() => console.log(`stopped in ${(performance.now() - stopAt).toFixed(0)} ms`));
    const waited = await Promise.race([stopped, new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 20_000))]);
    if (waited === "still running") server.child.process.kill("SIGKILL");
    expect(waited).toEqual({ code: 0, signal: null });
    expect(server.child.stdout()).toContain('"msg":"stopped"');
  }, 120_000);
});
