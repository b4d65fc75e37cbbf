/**
 * The shared fetch queue (pipeline/fetch/queue/) on a real PostgreSQL, a
 * database of each test's own, with `worker` processes (real child
 * processes of the CLI, each through its own loopback exit) fetching from
 * the stand-in, which counts the
 * caption downloads of every video: each video is fetched once across the
 * workers and stored once, and a worker killed with -9 mid-job loses
 * nothing (its jobs come back after the lease and the other worker fetches
 * them). Skipped with one line without PostgreSQL.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { saveFetchResult } from "../../pipeline/fetch/queue/fetch-results.js";
import { FetchQueue } from "../../pipeline/fetch/queue/fetch-queue.js";
import { startFetchWorker } from "../../pipeline/fetch/queue/fetch-worker.js";
import { createYouTubeClient } from "../../pipeline/youtube/index.js";
import { startExitProxies, type ExitProxy } from "../../scripts/youtube-standin/exit-proxy.js";
import { freshDatabase, postgresAvailable } from "../helpers/services.js";
import { startChild, until, type Child } from "../reliability/helpers/child.js";
import { startSyntheticStandin, type SyntheticStandin } from "./helpers/synthetic-standin.js";

const available = await postgresAvailable("the shared fetch queue");
const VIDEOS = 90;
let world: SyntheticStandin | undefined;
/** Two exits, one per worker host: each leaves from its own loopback address. */
let exits: ExitProxy[] = [];
const databases: { url: string; drop(): Promise<void> }[] = [];
const children: Child[] = [];
const queues: FetchQueue[] = [];

beforeAll(async () => {
  if (!available) return;
  world = await startSyntheticStandin({ videos: VIDEOS, channels: 3, seed: 23 });
  exits = await startExitProxies(2);
});
afterEach(async () => {
  for (const child of children.splice(0)) child.process.kill("SIGKILL");
  for (const queue of queues.splice(0)) await queue.close();
  world?.standin.setFault(null);
  world?.standin.stats.reset();
});
afterAll(async () => {
  await world?.close();
  for (const exit of exits) await exit.close();
  for (const database of databases) await database.drop();
});

async function database(): Promise<string> {
  const fresh = await freshDatabase();
  databases.push(fresh);
  return fresh.url;
}

async function openQueue(url: string, leaseSeconds: number, retryLimit = 3): Promise<FetchQueue> {
  const queue = await FetchQueue.open({ url, leaseSeconds, retryLimit, retryDelaySeconds: 1, connections: 4, log: () => undefined });
  queues.push(queue);
  return queue;
}

function worker(url: string, args: string[], env: Record<string, string> = {}): Child {
  const child = startChild("pipeline/cli.ts", ["worker", ...args], {
    DATABASE_URL: url,
    YOUTUBE_ORIGIN: world!.standin.origin,
    FETCH_WORKER_CONCURRENCY: "3",
    ...env,
  });
  children.push(child);
  return child;
}

const videoIds = (): string[] => Array.from({ length: VIDEOS }, (_, i) => world!.corpus.videoIdAt(i));
const hasTranscript = (videoId: string): boolean => (world!.corpus.video(videoId)?.transcripts.length ?? 0) > 0;
const downloads = (videoId: string): number => world!.standin.stats.byVideo[videoId]?.timedtext ?? 0;

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The stored outcome of each video, and whether any video has two rows (the primary key forbids it; checked, not assumed). */
async function storedOutcomes(url: string): Promise<Map<string, string>> {
  const rows = await query<{ video_id: string; outcome: string }>(url, "SELECT video_id, outcome FROM fetch_results");
  const outcomes = new Map(rows.map((row) => [row.video_id, row.outcome]));
  expect(outcomes.size).toBe(rows.length);
  return outcomes;
}

async function jobStates(url: string): Promise<Record<string, number>> {
  const rows = await query<{ state: string; n: string }>(url, "SELECT state, count(*) AS n FROM fetch_queue.job GROUP BY state");
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
}

const fetchedBy = (child: Child): number => Number(/worker stopped: (\d+) fetched/.exec(child.stdout())?.[1] ?? Number.NaN);

describe.skipIf(!available)("the shared fetch queue with worker processes", () => {
  test("two workers drain one queue: each video is fetched once and stored once, and SIGTERM stops both cleanly", async () => {
    const url = await database();
    const queue = await openQueue(url, 60);
    const ids = videoIds();
    // Slow caption answers, so the queue lasts long enough for both workers to take jobs.
    world!.standin.setFault({ kind: "slow", delayMs: 60, endpoint: "timedtext" });
    // Each worker host with its own exit, as hosts with their own YOUTUBE_PROXY_URLS would be.
    const [a, b] = [worker(url, [], { YOUTUBE_PROXY_URLS: exits[0]!.url }), worker(url, [], { YOUTUBE_PROXY_URLS: exits[1]!.url })];
    await until(() => a.stderr().includes("working fetch jobs") && b.stderr().includes("working fetch jobs"), 60_000, "both workers to start");
    await queue.enqueue(
      ids.map((videoId) => ({ videoId, attempts: 0 })),
      { languages: ["en"], anyLanguage: true },
    );
    // Queued again, as a run started twice would: the job ids are taken, nothing is added.
    await queue.enqueue(
      ids.map((videoId) => ({ videoId, attempts: 0 })),
      { languages: ["en"], anyLanguage: true },
    );
    await queue.waitUntilDrained({ pollMs: 100 });
    a.process.kill("SIGTERM");
    b.process.kill("SIGTERM");
    expect((await a.exited).code).toBe(0);
    expect((await b.exited).code).toBe(0);

    const outcomes = await storedOutcomes(url);
    expect(outcomes.size).toBe(VIDEOS);
    for (const videoId of ids) {
      expect(outcomes.get(videoId), videoId).toBe(hasTranscript(videoId) ? "fetched" : "permanent");
      expect(downloads(videoId), videoId).toBe(hasTranscript(videoId) ? 1 : 0);
    }
    expect(await jobStates(url)).toEqual({ completed: VIDEOS });
    const [fetchedA, fetchedB] = [fetchedBy(a), fetchedBy(b)];
    expect(fetchedA).toBeGreaterThan(0);
    expect(fetchedB).toBeGreaterThan(0);
    expect(fetchedA + fetchedB).toBe(ids.filter(hasTranscript).length);
    expect(exits[0]!.requests).toBeGreaterThan(0);
    expect(exits[1]!.requests).toBeGreaterThan(0);
  }, 180_000);

  test("a worker killed with -9 mid-job: after the lease the other worker fetches its videos, and every video is stored once", async () => {
    const url = await database();
    const leaseSeconds = 3;
    const queue = await openQueue(url, leaseSeconds);
    const ids = videoIds();
    await queue.enqueue(
      ids.map((videoId) => ({ videoId, attempts: 0 })),
      { languages: ["en"], anyLanguage: true },
    );
    // Caption answers that take long enough for the kill to land while the first worker waits for some.
    world!.standin.setFault({ kind: "slow", delayMs: 1_500, endpoint: "timedtext" });
    const doomed = worker(url, [], { YOUTUBE_PROXY_URLS: exits[0]!.url });
    await until(() => ids.filter(downloads).length >= 6, 60_000, "the first worker to fetch some videos");
    doomed.process.kill("SIGKILL");
    await doomed.exited;
    const stored = await storedOutcomes(url);
    // Asked for captions, answer not stored: in flight at the kill.
    const inFlight = ids.filter((id) => downloads(id) > 0 && !stored.has(id));
    expect(inFlight.length).toBeGreaterThan(0);
    expect((await jobStates(url)).active).toBe(inFlight.length);
    world!.standin.setFault(null);

    const killedAt = Date.now();
    const survivor = worker(url, ["--until-empty"], { YOUTUBE_PROXY_URLS: exits[1]!.url });
    expect((await survivor.exited).code).toBe(0);
    // It waited for the leases: the queue was not empty while the killed worker's jobs were held.
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(leaseSeconds * 1000);
    const outcomes = await storedOutcomes(url);
    expect(outcomes.size).toBe(VIDEOS);
    for (const videoId of ids) {
      expect(outcomes.get(videoId), videoId).toBe(hasTranscript(videoId) ? "fetched" : "permanent");
      // Only the videos in flight at the kill were asked for twice.
      expect(downloads(videoId), videoId).toBe(!hasTranscript(videoId) ? 0 : inFlight.includes(videoId) ? 2 : 1);
    }
    expect(await jobStates(url)).toEqual({ completed: VIDEOS });
    expect(survivor.stdout()).toMatch(/worker stopped: \d+ fetched/);
  }, 180_000);

  test("a worker that stored a result and died before ending its job: the next worker ends the job without fetching again", async () => {
    const url = await database();
    const queue = await openQueue(url, 1);
    const [stored, other] = videoIds().filter(hasTranscript);
    await queue.enqueue(
      [stored!, other!].map((videoId) => ({ videoId, attempts: 0 })),
      { languages: ["en"], anyLanguage: true },
    );
    // What the dead worker did: leased the job, stored the outcome, and no more.
    const taken = await queue.take();
    const job = taken!.videoId === stored ? taken! : (await queue.take())!;
    expect(job.videoId).toBe(stored);
    await saveFetchResult(queue.pool, { videoId: stored!, jobId: job.id, outcome: "fetched", record: world!.corpus.video(stored!)!, worker: "gone:1", finishedAt: new Date() });

    const client = createYouTubeClient({ origin: world!.standin.origin });
    try {
      const counts = await startFetchWorker({ queue, client, concurrency: 2, untilEmpty: true, pollMs: 100, log: () => undefined }).done;
      expect(counts).toMatchObject({ resumed: 1, fetched: 1, errors: 0 });
    } finally {
      await client.close();
    }
    expect(downloads(stored!)).toBe(0);
    expect(downloads(other!)).toBe(1);
    const outcomes = await storedOutcomes(url);
    expect([...outcomes.keys()].sort()).toEqual([stored, other].sort());
    expect(await jobStates(url)).toEqual({ completed: 2 });
  }, 60_000);

  test("a video YouTube blocks goes back to the queue and is fetched later; blocked on every try, it is stored as failed, never permanent", async () => {
    const url = await database();
    const [later, never] = videoIds().filter(hasTranscript);
    // The client's own retries are off: every block reaches the queue.
    const client = createYouTubeClient({ origin: world!.standin.origin, maxBlockedRetries: 0 });
    try {
      const queue = await openQueue(url, 30, 3);
      await queue.enqueue([{ videoId: later!, attempts: 0 }], { languages: ["en"], anyLanguage: true });
      world!.standin.setFault({ kind: "rate-limit", endpoint: "player", times: 2 });
      const outcomes: string[] = [];
      const counts = await startFetchWorker({ queue, client, concurrency: 1, untilEmpty: true, pollMs: 100, log: () => undefined, onOutcome: (o) => outcomes.push(o.kind) }).done;
      expect(outcomes).toEqual(["requeued", "requeued", "fetched"]);
      expect(counts).toMatchObject({ fetched: 1, requeued: 2, permanent: 0, failed: 0 });
      expect((await storedOutcomes(url)).get(later!)).toBe("fetched");

      // One retry allowed, blocked both times: stored as failed (the next run wants it again).
      const strict = await openQueue(url, 30, 1);
      await strict.enqueue([{ videoId: never!, attempts: 0 }], { languages: ["en"], anyLanguage: true });
      world!.standin.setFault({ kind: "rate-limit", endpoint: "player" });
      const blocked = await startFetchWorker({ queue: strict, client, concurrency: 1, untilEmpty: true, pollMs: 100, log: () => undefined }).done;
      expect(blocked).toMatchObject({ fetched: 0, requeued: 1, failed: 1, permanent: 0 });
      const rows = await query<{ outcome: string; code: string }>(url, `SELECT outcome, code FROM fetch_results WHERE video_id = '${never!}'`);
      expect(rows).toEqual([{ outcome: "failed", code: "rate_limited" }]);
      expect(await jobStates(url)).toEqual({ completed: 1, failed: 1 });
    } finally {
      await client.close();
    }
  }, 90_000);

  test("worker without DATABASE_URL, or with a bad --concurrency: exit 2 with one line saying why", async () => {
    const noDatabase = startChild("pipeline/cli.ts", ["worker"], { DATABASE_URL: "" });
    children.push(noDatabase);
    expect((await noDatabase.exited).code).toBe(2);
    expect(noDatabase.stderr()).toContain("worker: DATABASE_URL is not set");
    const badConcurrency = startChild("pipeline/cli.ts", ["worker", "--concurrency", "0"], { DATABASE_URL: "postgres://127.0.0.1:1/none" });
    children.push(badConcurrency);
    expect((await badConcurrency.exited).code).toBe(2);
    expect(badConcurrency.stderr()).toContain('Expected the "--concurrency" option to be a whole number from 1 to 256');
  }, 60_000);
});
