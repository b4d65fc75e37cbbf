/**
 * `run` with DATABASE_URL: the crawl's videos go through the shared fetch
 * queue, worked by the run and by `worker` processes, and the build sees
 * every outcome whichever host stored it. A run killed with -9 part way and
 * run again stores every transcript, fetching again only the videos in
 * flight at the kill. Real PostgreSQL (a database of each test's own) and
 * the stand-in, which counts each video's caption downloads; skipped with
 * one line without PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { freshDatabase, postgresAvailable } from "../helpers/services.js";
import { startChild, until, type Child } from "../reliability/helpers/child.js";
import { run, stateRows } from "./helpers/run-harness.js";
import { startSyntheticStandin, writeChannelList, type SyntheticStandin } from "./helpers/synthetic-standin.js";

const available = await postgresAvailable("pipeline runs on the shared fetch queue");
const VIDEOS = 90;
let world: SyntheticStandin | undefined;
const databases: { url: string; drop(): Promise<void> }[] = [];
const children: Child[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  if (!available) return;
  world = await startSyntheticStandin({ videos: VIDEOS, channels: 3, seed: 23 });
});
afterEach(() => {
  for (const child of children.splice(0)) child.process.kill("SIGKILL");
  world?.standin.setFault(null);
  world?.standin.stats.reset();
});
afterAll(async () => {
  await world?.close();
  for (const database of databases) await database.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function database(): Promise<string> {
  const fresh = await freshDatabase();
  databases.push(fresh);
  return fresh.url;
}

function dataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "fetch-queue-run-"));
  dirs.push(dir);
  return dir;
}

function child(args: string[], env: Record<string, string>): Child {
  const started = startChild("pipeline/cli.ts", args, { YOUTUBE_ORIGIN: world!.standin.origin, ...env });
  children.push(started);
  return started;
}

const videoIds = (): string[] => Array.from({ length: VIDEOS }, (_, i) => world!.corpus.videoIdAt(i));
const hasTranscript = (videoId: string): boolean => (world!.corpus.video(videoId)?.transcripts.length ?? 0) > 0;
const downloads = (videoId: string): number => world!.standin.stats.byVideo[videoId]?.timedtext ?? 0;

async function storedVideoIds(url: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ video_id: string }>("SELECT video_id FROM fetch_results");
    return new Set(rows.map((row) => row.video_id));
  } finally {
    await client.end();
  }
}

function statusCounts(dir: string): Record<string, number> {
  const rows = stateRows<{ status: string; n: number }>(dir, "SELECT status, count(*) AS n FROM videos GROUP BY status");
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

describe.skipIf(!available)("run with DATABASE_URL on the shared fetch queue", () => {
  test("beside a worker process: every transcript ends in the published set, each fetched once", async () => {
    const url = await database();
    const dir = dataDir();
    const list = writeChannelList(path.join(dir, "channels.txt"), world!.corpus);
    const ids = videoIds();
    const withTranscript = ids.filter(hasTranscript).length;
    world!.standin.setFault({ kind: "slow", delayMs: 60, endpoint: "timedtext" });
    const helper = child(["worker"], { DATABASE_URL: url, FETCH_WORKER_CONCURRENCY: "3" });
    await until(() => helper.stderr().includes("working fetch jobs"), 60_000, "the worker to start");

    const summary = await run({
      dataDir: dir,
      databaseUrl: url,
      fetchQueue: { leaseSeconds: 60, retryLimit: 3, retryDelaySeconds: 1 },
      channelsFile: list,
      origin: world!.standin.origin,
      concurrency: 2,
    });
    helper.process.kill("SIGTERM");
    expect((await helper.exited).code).toBe(0);

    expect(summary.outcome).toBe("ok");
    expect(summary.transcripts.fetched).toBe(withTranscript);
    expect(Object.values(summary.transcripts.permanent).reduce((a, b) => a + b, 0)).toBe(VIDEOS - withTranscript);
    expect(summary.build?.counts.transcripts).toBe(withTranscript);
    expect(statusCounts(dir)).toEqual({ fetched: withTranscript, failed: VIDEOS - withTranscript });
    for (const videoId of ids) expect(downloads(videoId), videoId).toBe(hasTranscript(videoId) ? 1 : 0);
    // The worker on the other "host" did part of the work; nothing waits in PostgreSQL after the fold.
    expect(Number(/worker stopped: (\d+) fetched/.exec(helper.stdout())?.[1])).toBeGreaterThan(0);
    expect((await storedVideoIds(url)).size).toBe(0);
  }, 180_000);

  test("a run killed with -9 part way, then a new run: every transcript stored, none fetched again but those in flight at the kill", async () => {
    const url = await database();
    const dir = dataDir();
    const list = writeChannelList(path.join(dir, "channels.txt"), world!.corpus);
    const ids = videoIds();
    const withTranscript = ids.filter(hasTranscript).length;
    world!.standin.setFault({ kind: "slow", delayMs: 1_500, endpoint: "timedtext" });
    const killed = child(["run", "--channels", list, "--concurrency", "4"], { DATA_DIR: dir, DATABASE_URL: url, FETCH_LEASE_SECONDS: "3", FETCH_RETRY_DELAY_SECONDS: "1" });
    await until(() => ids.filter(downloads).length >= 12, 90_000, "the first run to fetch some videos");
    killed.process.kill("SIGKILL");
    expect((await killed.exited).signal).toBe("SIGKILL");
    const stored = await storedVideoIds(url);
    const inFlight = ids.filter((id) => downloads(id) > 0 && !stored.has(id));
    expect(stored.size).toBeGreaterThan(0);
    expect(inFlight.length).toBeGreaterThan(0);
    world!.standin.setFault(null);

    const summary = await run({
      dataDir: dir,
      databaseUrl: url,
      fetchQueue: { leaseSeconds: 3, retryLimit: 3, retryDelaySeconds: 1 },
      channelsFile: list,
      origin: world!.standin.origin,
    });
    expect(summary.outcome).toBe("ok");
    expect(summary.exitCode).toBe(EXIT.ok);
    expect(summary.build?.counts.transcripts).toBe(withTranscript);
    expect(statusCounts(dir)).toEqual({ fetched: withTranscript, failed: VIDEOS - withTranscript });
    for (const videoId of ids) {
      expect(downloads(videoId), videoId).toBe(!hasTranscript(videoId) ? 0 : inFlight.includes(videoId) ? 2 : 1);
    }
  }, 240_000);
});
