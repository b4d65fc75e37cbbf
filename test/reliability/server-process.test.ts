/**
 * The server as a process: kill -9 in the middle of a burst of live fetches
 * loses nothing it answered 200 for and leaves live.db intact; SIGTERM stops
 * accepting, lets in-flight requests finish (within SHUTDOWN_GRACE_MS) and
 * closes the databases cleanly (WAL checkpointed and removed).
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { englishVideoIds, startSyntheticStandin, type SyntheticStandin } from "../pipeline/helpers/synthetic-standin.js";
import { call } from "../server/helpers/http.js";
import { until } from "./helpers/child.js";
import { wait } from "./helpers/raw-http.js";
import { prepareDataDir, startServerProcess, type DataDir } from "./helpers/server-process.js";
import { dataDirLayout, DATA_DIR_NAMES } from "../../pipeline/artifact/layout/layout.js";

let world: SyntheticStandin;
const dirs: DataDir[] = [];
/** A video with an English transcript that the stand-in has and the artifact set does not; a new one each time. */
let freshId: () => string;

beforeAll(async () => {
  world = await startSyntheticStandin({ videos: 600, channels: 2, seed: 5 });
  freshId = englishVideoIds(world.corpus);
});
afterAll(async () => {
  await world?.close();
  for (const d of dirs) d.cleanup();
});
beforeEach(() => world.standin.setFault(null));

async function dataDir(): Promise<DataDir> {
  const d = await prepareDataDir();
  dirs.push(d);
  return d;
}

function checkDatabase(file: string): string {
  const db = new Database(file);
  try {
    return db.pragma("integrity_check", { simple: true }) as string;
  } finally {
    db.close();
  }
}

describe("kill -9 during live fetches", () => {
  test("after a restart live.db passes integrity_check and every transcript answered 200 before the kill is served from storage", async () => {
    const data = await dataDir();
    const env = { YOUTUBE_ORIGIN: world.standin.origin, LIVE_FETCH_CONCURRENCY: "8" };
    const server = await startServerProcess(data.dir, env);
    // Slow enough that many fetches are in flight (and being written) when the kill lands.
    world.standin.setFault({ kind: "slow", delayMs: 60 });
    const answered: string[] = [];
    const ids = Array.from({ length: 80 }, freshId);
    const burst = Promise.all(
      ids.map((id) =>
        call(server.baseUrl, `/v1/transcript/${id}`, { key: data.key }).then(
          (res) => {
            if (res.status === 200) answered.push(id);
          },
          () => undefined, // cut by the kill
        ),
      ),
    );
    await until(() => answered.length >= 20, 60_000, "20 live fetches to be answered");
    server.child.process.kill("SIGKILL");
    await server.child.exited;
    await burst;
    const answeredBeforeKill = [...answered];
    expect(answeredBeforeKill.length).toBeLessThan(ids.length); // the kill did land mid-burst

    expect(checkDatabase(dataDirLayout(data.dir).liveStore)).toBe("ok");
    // Any fetch now would fail: what is served must come from storage.
    world.standin.setFault({ kind: "server-error" });
    const restarted = await startServerProcess(data.dir, env);
    try {
      for (const id of answeredBeforeKill) {
        const res = await call(restarted.baseUrl, `/v1/transcript/${id}`, { key: data.key });
        expect(res.status, id).toBe(200);
        expect(res.body.cached, id).toBe(true);
      }
      const search = await call(restarted.baseUrl, "/v1/stats", { key: data.key });
      expect(search.body.transcripts).toBeGreaterThanOrEqual(answeredBeforeKill.length);
    } finally {
      await restarted.stop();
    }
    console.log(`server kill -9: ${answeredBeforeKill.length} of ${ids.length} answered 200 before the kill, all served after restart`);
   }, 180_000); // two server start-ups and a burst, on a shared machine
});

describe("SIGTERM", () => {
  test("stops accepting, finishes in-flight requests, exits 0 and leaves the databases closed cleanly", async () => {
    const data = await dataDir();
    const server = await startServerProcess(data.dir, { YOUTUBE_ORIGIN: world.standin.origin, SHUTDOWN_GRACE_MS: "10000" });
    world.standin.setFault({ kind: "slow", delayMs: 700, endpoint: "timedtext" });
    const ids = Array.from({ length: 4 }, freshId);
    const inFlight = ids.map((id) => call(server.baseUrl, `/v1/transcript/${id}`, { key: data.key }));
    // In flight for sure: each fetch has reached its (slow) caption request.
    await until(() => ids.every((id) => (world.standin.stats.byVideo[id]?.timedtext ?? 0) > 0), 30_000, "the fetches to be in flight");
    const started = performance.now();
    server.child.process.kill("SIGTERM");
    await wait(150);
    await expect(call(server.baseUrl, "/healthz")).rejects.toThrow();
    const answers = await Promise.all(inFlight);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const exit = await server.child.exited;
    expect(exit.code).toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000); // finished by the requests, not by the grace period
    expect(server.child.stdout()).toMatch(/"msg":"stopped","clean":true/);
    // A clean close checkpoints the WAL and deletes it; a crash would leave it behind.
    for (const file of [DATA_DIR_NAMES.liveStore, DATA_DIR_NAMES.keys]) {
      expect(existsSync(path.join(data.dir, `${file}-wal`)), `${file}-wal`).toBe(false);
      expect(checkDatabase(path.join(data.dir, file))).toBe("ok");
    }
    const db = new Database(dataDirLayout(data.dir).liveStore, { readonly: true });
    try {
      expect((db.prepare("SELECT count(*) AS n FROM live_records").get() as { n: number }).n).toBe(4);
    } finally {
      db.close();
    }
  }, 120_000);

  test("a request outlasting SHUTDOWN_GRACE_MS is cut and the process still exits on time", async () => {
    const data = await dataDir();
    const server = await startServerProcess(data.dir, {
      YOUTUBE_ORIGIN: world.standin.origin,
      SHUTDOWN_GRACE_MS: "500",
      YOUTUBE_TIMEOUT_MS: "30000",
    });
    world.standin.setFault({ kind: "slow", delayMs: 20_000 });
    const id = freshId();
    const stuck = call(server.baseUrl, `/v1/transcript/${id}`, { key: data.key }).then(
      (r) => r.status,
      () => "cut",
    );
    await until(() => (world.standin.stats.byVideo[id]?.watch ?? 0) > 0, 30_000, "the fetch to be in flight");
    const started = performance.now();
    server.child.process.kill("SIGTERM");
    const exit = await server.child.exited;
    expect(exit.code).toBe(0);
    expect(performance.now() - started).toBeLessThan(500 + 2_500);
    expect(await stuck).toBe("cut");
    expect(server.child.stdout()).toMatch(/"msg":"stopped","clean":false/);
    expect(existsSync(`${dataDirLayout(data.dir).liveStore}-wal`)).toBe(false);
   }, 120_000);
});
