/**
 * Replicas sharing the live store (DATABASE_URL) and the live-fetch claims
 * (REDIS_URL): two server processes with their own DATA_DIRs. A transcript
 * fetched through A is served `cached: true` and found by search on B within
 * 2 s; a miss asked of both at once is fetched once; a replica killed with -9
 * mid-fetch frees its claim when it expires; the pipeline folds the shared
 * records into its state, records the watermark and trims PostgreSQL after
 * publishing; after restarts every transcript answered as stored is still
 * served `cached: true` by both. A replica's own live.db is copied to
 * PostgreSQL at its first start with DATABASE_URL. Real PostgreSQL (a database of this file's
 * own) and Redis (a random key prefix) on 127.0.0.1.
 */
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";
import { readManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { buildAndPublish } from "../../pipeline/build/build-and-publish.js";
import { importAndPublish, inputOf } from "../../pipeline/import/import-and-publish.js";
import { PipelineState } from "../../pipeline/state/open-state.js";
import { openKeyStore } from "../../server/auth/key-store.js";
import { artifactRecords, fresh } from "../live/helpers/live-corpus.js";
import { call } from "../server/helpers/http.js";
import { postgresAvailable, REDIS_URL, redisAvailable } from "../helpers/services.js";
import { until } from "./helpers/child.js";
import { createKey, dropRedisKeys, redisPrefix, replicaDataDir, replicaTestBed } from "./helpers/replicas.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";

const available = (await redisAvailable("replicas sharing the live store")) && (await postgresAvailable("replicas sharing the live store"));
const prefix = redisPrefix();
const bed = replicaTestBed(available);
bed.atEnd(() => dropRedisKeys(prefix));

async function makeKey(): Promise<string> {
  return (await createKey(bed.database.url, "live")).key;
}

/** A DATA_DIR whose set the pipeline built from its state (the artifact records imported), as a replica running the pipeline has. */
async function pipelineDataDir(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "replica-live-a-"));
  bed.dirs.push(dir);
  const state = PipelineState.open(path.join(dir, "pipeline", "state.db"));
  try {
    await importAndPublish({ dataDir: dir, state, log: () => {}, input: inputOf(artifactRecords()) });
  } finally {
    state.close();
  }
  return dir;
}

/** The pipeline's last stage with DATABASE_URL, as `npm run pipeline -- run` ends. */
async function publish(dataDir: string): Promise<{ liveSeq: number; liveStoreId: string | undefined; sharedTrimmed: number }> {
  const state = PipelineState.open(path.join(dataDir, "pipeline", "state.db"));
  try {
    const built = await buildAndPublish({ dataDir, state, log: () => {}, databaseUrl: bed.database.url, force: true });
    const manifest = readManifest(realpathSync(dataDirLayout(dataDir).current));
    return { liveSeq: manifest.liveSeq, liveStoreId: manifest.liveStoreId, sharedTrimmed: built!.sharedTrimmed };
  } finally {
    state.close();
  }
}

async function sql<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: bed.database.url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!available)("replicas with DATABASE_URL and REDIS_URL: the shared live store", () => {
  test("fetched on A: served and found on B; one fetch per miss; kill -9 mid-fetch; fold, trim, restarts", async () => {
    const key = await makeKey();
    const a = await pipelineDataDir();
    const b = await replicaDataDir(bed.dirs, "replica-live-b");
    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, DATABASE_URL: bed.database.url, YOUTUBE_ORIGIN: bed.standin.origin, LIVE_CLAIM_SECONDS: "2" };
    let [ra, rb] = await Promise.all([startServerProcess(a, env), startServerProcess(b, env)]);
    bed.servers.push(ra, rb);
    const answeredStored = new Set<string>();
    const get = (replica: ServerProcess, id: string) => call(replica.baseUrl, `/v1/transcript/${id}`, { key });

    // Fetched through A: B serves it from storage and finds it by search within 2 s.
    const first = fresh(3);
    const fetched = await get(ra, first.videoId);
    expect(fetched.status).toBe(200);
    expect(fetched.body.cached).toBe(false);
    answeredStored.add(first.videoId);
    const at = Date.now();
    await until(async () => (await get(rb, first.videoId)).body.cached === true, 2_000, "B to serve A's record from storage");
    await until(
      async () => ((await call(rb.baseUrl, "/v1/search?q=quokka3", { key })).body.results ?? []).some((r: { videoId: string }) => r.videoId === first.videoId),
      2_000,
      "B to find A's record by search",
    );
    expect(Date.now() - at).toBeLessThan(2_000);
    expect(bed.standin.stats.byVideo[first.videoId]?.watch).toBe(1);

    // A miss asked of both at once: one upstream fetch; the waiters read the record once mirrored.
    const second = fresh(4);
    bed.standin.setFault({ kind: "slow", delayMs: 800, endpoint: "watch" });
    try {
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => get(i % 2 === 0 ? ra : rb, second.videoId)));
      expect(answers.map((x) => x.status)).toEqual(Array(6).fill(200));
      expect(answers.filter((x) => x.body.cached === false).length).toBeGreaterThanOrEqual(1);
    } finally {
      bed.standin.setFault(null);
    }
    expect(bed.standin.stats.byVideo[second.videoId]?.watch).toBe(1);
    answeredStored.add(second.videoId);

    // A killed with -9 mid-fetch: its claim expires and B fetches.
    const third = fresh(5);
    bed.standin.setFault({ kind: "slow", delayMs: 30_000, endpoint: "watch", times: 1 });
    try {
      void get(ra, third.videoId).catch(() => undefined);
      await until(() => (bed.standin.stats.byVideo[third.videoId]?.watch ?? 0) >= 1, 10_000, "A's fetch to start");
      ra.child.process.kill("SIGKILL");
      await ra.child.exited;
      const res = await get(rb, third.videoId);
      expect(res.status).toBe(200);
      expect(res.body.cached).toBe(false);
    } finally {
      bed.standin.setFault(null);
    }
    expect(bed.standin.stats.byVideo[third.videoId]?.watch).toBe(2);
    answeredStored.add(third.videoId);
    ra = await startServerProcess(a, env);
    bed.servers.push(ra);

    // The pipeline folds the shared records and records the watermark; nothing is trimmed while the earlier set (no watermark) is kept.
    const storedMax = (await sql<{ max: string }>("SELECT max(seq) AS max FROM live_records"))[0]?.max;
    const storeId = (await sql<{ value: string }>("SELECT value FROM live_store_meta WHERE key = 'store_id'"))[0]?.value;
    const one = await publish(a);
    expect(one).toEqual({ liveSeq: Number(storedMax), liveStoreId: storeId, sharedTrimmed: 0 });
    // One more record after that publish, then a second publish: the rows the first set holds leave PostgreSQL.
    const fourth = fresh(6);
    expect((await get(rb, fourth.videoId)).status).toBe(200);
    answeredStored.add(fourth.videoId);
    const two = await publish(a);
    expect(two.sharedTrimmed).toBe(3);
    const left = await sql<{ seq: string; video_id: string }>("SELECT seq, video_id FROM live_records ORDER BY seq");
    expect(left.map((row) => row.video_id)).toEqual([fourth.videoId]);
    expect(Number(left[0]!.seq)).toBe(two.liveSeq);

    // Both restart (A onto the new set): everything answered as stored is still served from storage.
    await Promise.all([ra.stop(), rb.stop()]);
    [ra, rb] = await Promise.all([startServerProcess(a, env), startServerProcess(b, env)]);
    bed.servers.push(ra, rb);
    for (const replica of [ra, rb]) {
      for (const id of answeredStored) {
        const res = await get(replica, id);
        expect({ id, status: res.status, cached: res.body.cached }).toEqual({ id, status: 200, cached: true });
      }
    }
    expect(bed.standin.stats.byVideo[fourth.videoId]?.watch).toBe(1);
  }, 180_000);

  test("a replica's own live.db at its first start with DATABASE_URL: copied to PostgreSQL, then mirrored", async () => {
    const key = await makeKey();
    const dir = await replicaDataDir(bed.dirs, "replica-live-c");
    const own = fresh(7);
    // Without DATABASE_URL (a keys.db of its own): the record lands in this DATA_DIR's live.db only.
    const local = openKeyStore({ dataDir: dir });
    const localKey = local.create({ plan: "pro", name: "local" }).key;
    local.close();
    const alone = await startServerProcess(dir, { YOUTUBE_ORIGIN: bed.standin.origin });
    bed.servers.push(alone);
    expect((await call(alone.baseUrl, `/v1/transcript/${own.videoId}`, { key: localKey })).body.cached).toBe(false);
    await alone.stop();

    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, DATABASE_URL: bed.database.url, YOUTUBE_ORIGIN: bed.standin.origin };
    const replica = await startServerProcess(dir, env);
    bed.servers.push(replica);
    expect(replica.child.stdout()).toContain("live store now mirrors the shared store");
    const rows = await sql<{ video_id: string }>(`SELECT video_id FROM live_records WHERE video_id = '${own.videoId}'`);
    expect(rows).toHaveLength(1);
    const res = await call(replica.baseUrl, `/v1/transcript/${own.videoId}`, { key });
    expect({ status: res.status, cached: res.body.cached }).toEqual({ status: 200, cached: true });
    expect(bed.standin.stats.byVideo[own.videoId]?.watch).toBe(1);
  }, 120_000);
});
