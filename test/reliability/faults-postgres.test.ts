/**
 * PostgreSQL unreachable (DATABASE_URL routed through a loopback proxy the
 * test cuts; the shared PostgreSQL itself is never touched). While cut:
 * stored reads and search go on, a key used before the cut keeps working, a
 * key made meanwhile gets 503 `key_store_unavailable`, /healthz says
 * degraded; a live fetch is answered `cached: false`, then `cached: true`,
 * stored in the replica's live.db and queued there. Killed with -9 and
 * restarted once the proxy passes again: the transcript is still served
 * `cached: true`, the queue reaches `live_records`, a second replica serves
 * it from storage, and YouTube was asked once. A full queue answers 503
 * `live_store_unavailable` (nothing answered as stored), and the copy of the
 * keys expires after KEY_CACHE_SECONDS. A replica started while PostgreSQL
 * is unreachable waits for it, not listening, and serves once it answers.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { artifactRecords, fresh, STORED } from "../live/helpers/live-corpus.js";
import { publishRecords } from "../live/helpers/live-server.js";
import { call } from "../server/helpers/http.js";
import { postgresAvailable } from "../helpers/services.js";
import { replicaTestBed } from "./helpers/replicas.js";
import { startChild, until } from "./helpers/child.js";
import { cuttableProxy, type CuttableProxy } from "./helpers/cuttable-proxy.js";
import { serverListening, spawnServer, startServerProcess, type ServerProcess } from "./helpers/server-process.js";

const available = await postgresAvailable("PostgreSQL faults");
const bed = replicaTestBed(available);

/** A key made with `npm run keys` straight in PostgreSQL (not through the proxy). */
async function makeKey(name: string): Promise<string> {
  const child = startChild("cli/keys.ts", ["create", "--plan", "pro", "--name", name], { DATABASE_URL: bed.database.url });
  const { code } = await child.exited;
  expect(code).toBe(0);
  return child.stdout().trim().split("\n").at(-1) as string;
}

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: bed.database.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function dataDir(name: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), `faults-pg-${name}-`));
  bed.dirs.push(dir);
  await publishRecords(dir, artifactRecords());
  return dir;
}

/** DATABASE_URL through a new proxy of its own. */
async function proxiedUrl(): Promise<{ url: string; proxy: CuttableProxy }> {
  const url = new URL(bed.database.url);
  const proxy = await cuttableProxy(Number(url.port || 5432), url.hostname);
  bed.atEnd(() => proxy.close());
  url.hostname = "127.0.0.1";
  url.port = String(proxy.port);
  return { url: url.toString(), proxy };
}

const unreachable = async (server: ServerProcess) => ((await call(server.baseUrl, "/healthz")).body.unreachable ?? []) as string[];

describe.skipIf(!available)("PostgreSQL unreachable", () => {
  test("reads go on, a live fetch is stored and queued, survives kill -9, reaches PostgreSQL and the other replica", async () => {
    const used = await makeKey("used");
    const { url, proxy } = await proxiedUrl();
    const a = await dataDir("a");
    const env = { DATABASE_URL: url, YOUTUBE_ORIGIN: bed.standin.origin };
    let ra = await startServerProcess(a, env);
    bed.servers.push(ra);
    expect((await call(ra.baseUrl, "/v1/stats", { key: used })).status).toBe(200);

    proxy.cut();
    await until(async () => (await unreachable(ra)).includes("postgresql"), 10_000, "/healthz to say postgresql is unreachable");
    const health = await call(ra.baseUrl, "/healthz");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("degraded");

    // Stored reads and search go on with the key used before the cut.
    const stored = await call(ra.baseUrl, `/v1/transcript/${STORED.videoId}`, { key: used });
    expect(stored.status).toBe(200);
    expect(stored.body.cached).toBe(true);
    expect((await call(ra.baseUrl, "/v1/search?q=the", { key: used })).status).toBe(200);
    // A key made while the replica cannot see PostgreSQL: 503, not 401 (it may well be valid).
    const late = await makeKey("late");
    const refused = await call(ra.baseUrl, "/v1/stats", { key: late });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe("key_store_unavailable");
    expect(refused.headers.get("retry-after")).toBe("5");

    // A live fetch: answered, stored here, not in PostgreSQL yet.
    const id = fresh(7).videoId;
    const fetched = await call(ra.baseUrl, `/v1/transcript/${id}`, { key: used });
    expect(fetched.status).toBe(200);
    expect(fetched.body.cached).toBe(false);
    const again = await call(ra.baseUrl, `/v1/transcript/${id}`, { key: used });
    expect(again.status).toBe(200);
    expect(again.body.cached).toBe(true);
    expect(await sql("SELECT 1 FROM live_records WHERE video_id = $1", [id])).toHaveLength(0);

    // Killed with -9 while PostgreSQL is still unreachable: the record is only in A's live.db.
    ra.child.process.kill("SIGKILL");
    await ra.child.exited;
    expect(await sql("SELECT 1 FROM live_records WHERE video_id = $1", [id])).toHaveLength(0);

    // PostgreSQL reachable again; A restarts on the same files: served from storage, and the queue reaches PostgreSQL.
    proxy.restore();
    ra = await startServerProcess(a, env);
    bed.servers.push(ra);
    const afterRestart = await call(ra.baseUrl, `/v1/transcript/${id}`, { key: used });
    expect(afterRestart.status).toBe(200);
    expect(afterRestart.body.cached).toBe(true);
    await until(async () => (await sql("SELECT 1 FROM live_records WHERE video_id = $1", [id])).length === 1, 10_000, "the queued record in PostgreSQL");
    await until(async () => (await unreachable(ra)).length === 0, 10_000, "/healthz to clear");
    // The key made during the cut works once the copy reloads.
    await until(async () => (await call(ra.baseUrl, "/v1/stats", { key: late })).status === 200, 10_000, "the late key to work");

    // A second replica serves it from storage; YouTube was asked once in all.
    const rb = await startServerProcess(await dataDir("b"), env);
    bed.servers.push(rb);
    const fromB = await call(rb.baseUrl, `/v1/transcript/${id}`, { key: used });
    expect(fromB.status).toBe(200);
    expect(fromB.body.cached).toBe(true);
    expect(bed.standin.stats.byVideo[id]?.watch).toBe(1);
  }, 300_000);

  test("a replica started while PostgreSQL is unreachable waits without listening, then serves once it answers; a stop ends the wait", async () => {
    const key = await makeKey("start");
    const { url, proxy } = await proxiedUrl();
    proxy.cut();
    const dir = await dataDir("start");
    const waiting = "postgresql not reachable at start; waiting for it before serving";
    const child = spawnServer(dir, { DATABASE_URL: url, YOUTUBE_ORIGIN: bed.standin.origin });
    await until(() => child.stdout().includes(waiting), 20_000, "the server to say it waits for PostgreSQL");
    // Still waiting a while later: alive, not listening, said once.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(child.process.exitCode).toBeNull();
    expect(child.stdout()).not.toContain('"msg":"listening"');
    expect(child.stdout().split(waiting)).toHaveLength(2);
    proxy.restore();
    const server = await serverListening(child);
    bed.servers.push(server);
    expect(child.stdout()).toContain("postgresql reachable: starting");
    const stats = await call(server.baseUrl, "/v1/stats", { key });
    expect(stats.status).toBe(200);
    expect((await call(server.baseUrl, "/healthz")).body.status).toBe("ok");

    // SIGTERM while waiting: a clean exit, at once.
    proxy.cut();
    const stopped = spawnServer(await dataDir("stopped"), { DATABASE_URL: url });
    await until(() => stopped.stdout().includes(waiting), 20_000, "the second server to wait");
    const signalledAt = Date.now();
    stopped.process.kill("SIGTERM");
    const { code } = await stopped.exited;
    expect(code).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect(stopped.stdout()).toContain('"clean":true');
  }, 120_000);

  test("a full queue answers 503 live_store_unavailable; the keys held expire after KEY_CACHE_SECONDS", async () => {
    const used = await makeKey("bounded");
    const { url, proxy } = await proxiedUrl();
    const dir = await dataDir("c");
    const server = await startServerProcess(dir, { DATABASE_URL: url, YOUTUBE_ORIGIN: bed.standin.origin, LIVE_PENDING_MAX: "1", KEY_CACHE_SECONDS: "8" });
    bed.servers.push(server);
    expect((await call(server.baseUrl, "/v1/stats", { key: used })).status).toBe(200);
    proxy.cut();
    const cutAt = Date.now();
    const first = await call(server.baseUrl, `/v1/transcript/${fresh(8).videoId}`, { key: used });
    expect(first.status).toBe(200);
    expect(first.body.cached).toBe(false);
    const second = await call(server.baseUrl, `/v1/transcript/${fresh(9).videoId}`, { key: used });
    expect(second.status).toBe(503);
    expect(second.body.code).toBe("live_store_unavailable");
    // Not answered as stored, so not stored: asked again, it is fetched again (and refused again while the queue is full).
    expect((await call(server.baseUrl, `/v1/transcript/${fresh(9).videoId}`, { key: used })).body.code).toBe("live_store_unavailable");
    // The copy of the keys serves for KEY_CACHE_SECONDS after PostgreSQL last answered, then 503.
    await until(async () => (await call(server.baseUrl, "/v1/stats", { key: used })).status === 503, 20_000, "the held key to expire");
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(5_000);
    proxy.restore();
    await until(async () => (await call(server.baseUrl, "/v1/stats", { key: used })).status === 200, 10_000, "the key to work again");
    await until(async () => (await sql("SELECT 1 FROM live_records WHERE video_id = $1", [fresh(8).videoId])).length === 1, 10_000, "the queued record in PostgreSQL");
  }, 300_000);
});
