/**
 * WORKERS=2: two server processes on one port over one DATA_DIR (node:cluster)
 * keep every promise of one process: one rate-limit count per key, one
 * upstream fetch per missing transcript, a transcript fetched on one worker
 * served from storage and found by search on the other, a publish switching
 * both with no failed request, SIGTERM stopping all, and a worker killed with
 * `kill -9` replaced without losing anything stored. Real processes, the
 * loopback YouTube stand-in; which worker answered is read from the access
 * log (every worker's lines carry `worker`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { Client } from "undici";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openKeyStore } from "../../server/auth/key-store.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { artifactRecords, fresh, STORED, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { publishRecords } from "../live/helpers/live-server.js";
import { call, type ApiResponse } from "../server/helpers/http.js";
import { until } from "./helpers/child.js";
import { startServerProcess, type ServerProcess } from "./helpers/server-process.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { roomInThisMinute } from "../helpers/rate-window.js";

let standin: Standin;
const dirs: string[] = [];
const servers: ServerProcess[] = [];
let nextFresh = 0;

beforeAll(async () => {
  standin = await startStandin({ corpus: upstreamCorpus() });
});
afterAll(async () => {
  for (const server of servers) await server.stop();
  await standin?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Workers {
  server: ServerProcess;
  dataDir: string;
  key: string;
  /** Parsed log lines so far. */
  logs(): Record<string, any>[];
  /** GET with a request id of its own; resolves with the response and the worker that answered it. */
  get(path: string, key?: string): Promise<ApiResponse & { worker: number }>;
  /** The same GET over a connection of the caller's (kept alive): which worker holds it. */
  getOn(client: Client, path: string): Promise<{ status: number; remaining: string | undefined; worker: number }>;
}

async function startWorkers(env: Record<string, string> = {}): Promise<Workers> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "workers-data-"));
  dirs.push(dataDir);
  await publishRecords(dataDir, artifactRecords());
  const keys = openKeyStore({ dataDir });
  const { key } = keys.create({ plan: "pro", name: "workers" });
  keys.close();
  const server = await startServerProcess(dataDir, {
    WORKERS: "2",
    ACCESS_LOG: "on",
    YOUTUBE_ORIGIN: standin.origin,
    YOUTUBE_TIMEOUT_MS: "5000",
    ...env,
  });
  servers.push(server);
  const logs = (): Record<string, any>[] =>
    server.child
      .stdout()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, any>);
  let requests = 0;
  const workerOf = async (requestId: string): Promise<number> => {
    let worker = 0;
    await until(
      () => {
        worker = logs().find((line) => line.msg === "request" && line.requestId === requestId)?.worker ?? 0;
        return worker !== 0;
      },
      10_000,
      `the access log line of ${requestId}`,
    );
    return worker;
  };
  const get = async (p: string, withKey = key): Promise<ApiResponse & { worker: number }> => {
    const requestId = `w${process.pid}-${++requests}`;
    const res = await call(server.baseUrl, p, { key: withKey, headers: { "X-Request-Id": requestId, Connection: "close" } });
    return { ...res, worker: await workerOf(requestId) };
  };
  const getOn = async (client: Client, p: string): Promise<{ status: number; remaining: string | undefined; worker: number }> => {
    const requestId = `w${process.pid}-${++requests}`;
    const res = await client.request({ method: "GET", path: p, headers: { "x-api-key": key, "x-request-id": requestId } });
    await res.body.dump();
    return { status: res.statusCode, remaining: res.headers["x-ratelimit-remaining"] as string | undefined, worker: await workerOf(requestId) };
  };
  return { server, dataDir, key, logs, get, getOn };
}

/** The pids of the workers listening now (their `worker listening` lines, less those that exited). */
function workerPids(workers: Workers): number[] {
  const lines = workers.logs();
  const exited = new Set(lines.filter((l) => l.msg === "worker exited; starting another").map((l) => l.pid as number));
  return lines.filter((l) => l.msg === "worker listening" && !exited.has(l.pid)).map((l) => l.pid as number);
}

describe("WORKERS=2", () => {
  let w: Workers;
  beforeAll(async () => {
    w = await startWorkers({ RATE_LIMIT_PER_MINUTE: "1000000", LOG_LEVEL: "debug" });
  }, 120_000);

  test("logs listening once both workers serve, with two distinct worker pids", () => {
    const lines = w.logs();
    expect(lines.filter((l) => l.msg === "listening")).toHaveLength(1);
    expect(lines.find((l) => l.msg === "listening")).toMatchObject({ workers: 2, pid: w.server.pid });
    const pids = workerPids(w);
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(w.server.pid);
    // With a worker for every core, each collects its garbage on its own thread (primary.ts, workerGc).
    const singleThreaded = 2 >= availableParallelism();
    for (const pid of pids) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      expect(argv.includes("--single-threaded-gc")).toBe(singleThreaded);
    }
    expect(readFileSync(`/proc/${w.server.pid}/cmdline`, "utf8").split("\0")).not.toContain("--single-threaded-gc");
  });

  // Runs before any other test connects, so that these are the only connections open.
  test("eight connections opened at once are dealt four to each worker", async () => {
    const clients = Array.from({ length: 8 }, () => new Client(w.server.baseUrl));
    try {
      const answers = await Promise.all(clients.map((client) => w.getOn(client, "/v1/stats")));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      const perWorker = new Map<number, number>();
      for (const { worker } of answers) perWorker.set(worker, (perWorker.get(worker) ?? 0) + 1);
      expect([...perWorker.values()]).toEqual([4, 4]);
      // Each connection stays with its worker.
      const again = await Promise.all(clients.map((client) => w.getOn(client, "/v1/stats")));
      expect(again.map((a) => a.worker)).toEqual(answers.map((a) => a.worker));
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  test("20 concurrent misses for one id through both workers: one upstream fetch, every caller gets the transcript", async () => {
    const video = fresh(nextFresh++);
    const answers = await Promise.all(Array.from({ length: 20 }, () => w.get(`/v1/transcript/${video.videoId}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.worker)).size).toBe(2);
    expect(standin.stats.byVideo[video.videoId]?.watch).toBe(1);
    expect(answers.every((a) => a.body.videoId === video.videoId)).toBe(true);
  }, 60_000);

  test("a miss YouTube refuses is fetched once: the other worker answers from the shared negative cache", async () => {
    const id = "gone0000001"; // unknown to the stand-in: video_unavailable
    const first = await w.get(`/v1/transcript/${id}`);
    expect(first.status).toBe(404);
    const later = await Promise.all(Array.from({ length: 10 }, () => w.get(`/v1/transcript/${id}`)));
    expect(later.map((a) => a.status)).toEqual(Array(10).fill(404));
    expect(new Set([first, ...later].map((a) => a.worker)).size).toBe(2);
    expect(standin.stats.byVideo[id]?.watch).toBe(1);
  }, 60_000);

  test("fetched live on one worker: served cached:true and found by search on the other within 2 s", async () => {
    const n = nextFresh++;
    const video = fresh(n);
    const first = await w.get(`/v1/transcript/${video.videoId}`);
    expect(first.status).toBe(200);
    expect(first.body.cached).toBe(false);
    const fetchedOn = first.worker;
    const started = Date.now();
    const seenOn = new Set<number>();
    // New connections land on the workers in turn; each must answer from storage and find it by search.
    await until(
      async () => {
        const res = await w.get(`/v1/transcript/${video.videoId}`);
        expect(res.status).toBe(200);
        expect(res.body.cached).toBe(true);
        // Two searches in a row: connections alternate between the workers, so they land on both.
        for (let i = 0; i < 2; i++) {
          const search = await w.get(`/v1/search?q=quokka${n}`);
          if (search.body.results.some((r: { videoId: string }) => r.videoId === video.videoId)) seenOn.add(search.worker);
        }
        return seenOn.size === 2;
      },
      2_000,
      "both workers to find the live-fetched transcript by search",
    );
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(seenOn.has(fetchedOn)).toBe(true);
    expect(standin.stats.byVideo[video.videoId]?.watch).toBe(1);
    const stats = await w.get("/v1/stats");
    expect(stats.status).toBe(200);
  }, 30_000);

  test("a publish switches both workers with no failed request under load", async () => {
    const before = (await w.get("/healthz")).body.builtAt as string;
    let running = true;
    const failures: string[] = [];
    let requests = 0;
    const paths = ["/v1/search?q=glaciers", `/v1/transcript/${STORED.videoId}`, "/v1/stats", "/healthz"];
    const client = async (n: number): Promise<void> => {
      for (let i = n; running; i++) {
        const p = paths[i % paths.length] as string;
        try {
          const res = await call(w.server.baseUrl, p, { key: w.key });
          requests++;
          if (res.status !== 200) failures.push(`${p} → ${res.status} ${JSON.stringify(res.body)}`);
        } catch (error) {
          failures.push(`${p} → ${String(error)}`);
        }
      }
    };
    const clients = Array.from({ length: 6 }, (_, n) => client(n));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const extra = makeVideo({
      videoId: "narwhal0001",
      channelId: STORED.channelId,
      channelTitle: STORED.channelTitle,
      title: "Narwhals of the north",
      transcripts: [transcript("en", "English", false, ["the narwhal tusk is a tooth"])],
    });
    await publishRecords(w.dataDir, [...artifactRecords(), extra]);
    const switchedOn = new Set<number>();
    let after = "";
    await until(
      async () => {
        const health = await w.get("/healthz");
        if (health.body.builtAt !== before) {
          after = health.body.builtAt as string;
          switchedOn.add(health.worker);
        }
        return switchedOn.size === 2;
      },
      30_000,
      "both workers to serve the new set",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    await Promise.all(clients);
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(50);
    expect(after).not.toBe(before);
    // Every worker now finds what only the new set holds.
    const found = new Set<number>();
    await until(
      async () => {
        const search = await w.get("/v1/search?q=narwhal");
        expect(search.body.results.map((r: { videoId: string }) => r.videoId)).toEqual(["narwhal0001"]);
        found.add(search.worker);
        return found.size === 2;
      },
      10_000,
      "both workers to answer the search",
    );
  }, 90_000);

  test("kill -9 of one worker: it is replaced, and every transcript answered before is still served from storage", async () => {
    const videos = Array.from({ length: 6 }, () => fresh(nextFresh++));
    for (const video of videos) expect((await w.get(`/v1/transcript/${video.videoId}`)).status).toBe(200);
    const [victim, survivor] = workerPids(w);
    process.kill(victim as number, "SIGKILL");
    await until(() => workerPids(w).length === 2 && !workerPids(w).includes(victim as number), 60_000, "a replacement worker");
    expect(workerPids(w)).toContain(survivor);
    const seen = new Set<number>();
    for (let round = 0; round < 3; round++) {
      for (const video of videos) {
        const res = await w.get(`/v1/transcript/${video.videoId}`);
        expect(res.status).toBe(200);
        expect(res.body.cached).toBe(true);
        seen.add(res.worker);
      }
    }
    expect(seen.size).toBe(2);
    for (const video of videos) expect(standin.stats.byVideo[video.videoId]?.watch).toBe(1);
  }, 90_000);

  test("kill -9 of the worker fetching a miss: the worker waiting on it fetches instead and answers", async () => {
    const video = fresh(nextFresh++);
    standin.setFault({ kind: "slow", delayMs: 1_500 });
    try {
      const asked = [0, 1].map(() =>
        call(w.server.baseUrl, `/v1/transcript/${video.videoId}`, { key: w.key, headers: { Connection: "close" } }).then(
          (res) => res.status,
          () => "cut" as const,
        ),
      );
      let leader = 0;
      await until(
        () => {
          leader = w.logs().find((l) => l.msg === "live fetch claimed" && l.videoId === video.videoId)?.worker ?? 0;
          return leader !== 0;
        },
        10_000,
        "a worker to claim the fetch",
      );
      const pid = w.logs().findLast((l) => l.msg === "worker listening" && l.worker === leader)?.pid as number;
      process.kill(pid, "SIGKILL");
      const statuses = await Promise.all(asked);
      // The killed worker's caller is cut; the other worker's caller, waiting on the claim, gets the transcript.
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      const claimedBy = w.logs().filter((l) => l.msg === "live fetch claimed" && l.videoId === video.videoId).map((l) => l.worker as number);
      expect(claimedBy).toHaveLength(2);
      expect(claimedBy[1]).not.toBe(leader);
      // The killed worker's request may or may not have reached the stand-in before the kill.
      expect(standin.stats.byVideo[video.videoId]?.watch).toBeLessThanOrEqual(2);
    } finally {
      standin.setFault(null);
    }
    await until(() => workerPids(w).length === 2, 60_000, "a replacement worker");
    expect((await w.get(`/v1/transcript/${video.videoId}`)).body.cached).toBe(true);
  }, 90_000);

  test("SIGTERM stops the primary and every worker cleanly, a request in flight answered first", async () => {
    const pids = workerPids(w);
    const video = fresh(nextFresh++);
    standin.setFault({ kind: "slow", delayMs: 800 });
    const client = new Client(w.server.baseUrl);
    let exit: { code: number | null; signal: NodeJS.Signals | null };
    try {
      const inFlight = client.request({ method: "GET", path: `/v1/transcript/${video.videoId}`, headers: { "x-api-key": w.key } }).then(async (res) => {
        await res.body.dump();
        return res.statusCode;
      });
      await until(() => w.logs().some((l) => l.msg === "live fetch claimed" && l.videoId === video.videoId), 10_000, "the fetch to start");
      exit = await w.server.stop();
      expect(await inFlight).toBe(200);
    } finally {
      standin.setFault(null);
      await client.close();
    }
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(existsSync(`/proc/${pid}`)).toBe(false);
    const lines = w.logs();
    expect(lines.filter((l) => l.msg === "stopped" && l.worker !== undefined).length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatchObject({ msg: "stopped", clean: true });
    expect(lines.some((l) => l.level === "error")).toBe(false);
  }, 60_000);
});

describe("WORKERS=2, RATE_LIMIT_PER_MINUTE=100", () => {
  test("one key, 250 concurrent requests over both workers: exactly 100 pass, then 429", async () => {
    await roomInThisMinute();
    const w = await startWorkers({ RATE_LIMIT_PER_MINUTE: "100" });
    const answers = await Promise.all(Array.from({ length: 250 }, () => w.get("/v1/stats")));
    const byStatus = (status: number) => answers.filter((a) => a.status === status);
    // A recall left unanswered would cost requests (fewer pass): the primary says so, and that comes first here.
    expect(w.logs().filter((l) => l.level === "warn" && String(l.msg).includes("rate-limit leases"))).toEqual([]);
    expect(byStatus(200)).toHaveLength(100);
    expect(byStatus(429)).toHaveLength(150);
    // Both workers answered, and both let some through: the count is one, not one per worker.
    expect(new Set(answers.map((a) => a.worker)).size).toBe(2);
    expect(new Set(byStatus(200).map((a) => a.worker)).size).toBe(2);
    const remaining = byStatus(200)
      .map((a) => Number(a.headers.get("x-ratelimit-remaining")))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const refused of byStatus(429)) expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await w.server.stop()).toEqual({ code: 0, signal: null });
  }, 150_000);

  test("a lease held by an idle worker is recalled: the other worker, busy with the key, still gets the whole limit", async () => {
    await roomInThisMinute();
    const w = await startWorkers({ RATE_LIMIT_PER_MINUTE: "100" });
    // One request takes its worker's first lease of the minute; that worker then sees no more.
    const first = await w.get("/v1/stats");
    expect(first.status).toBe(200);
    // A keep-alive connection held by the other worker (the primary deals connections by the fewest open, ties in turn).
    const probes: { status: number; remaining: string | undefined }[] = [];
    let client: Client | undefined;
    for (let attempt = 0; attempt < 10 && client === undefined; attempt++) {
      const candidate = new Client(w.server.baseUrl);
      const probe = await w.getOn(candidate, "/v1/stats");
      probes.push(probe);
      if (probe.worker !== first.worker) client = candidate;
      else await candidate.close();
    }
    if (client === undefined) throw new Error("no connection reached the second worker");
    const answers: { status: number; remaining: string | undefined }[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await client.request({ method: "GET", path: "/v1/stats", headers: { "x-api-key": w.key } });
      await res.body.dump();
      answers.push({ status: res.statusCode, remaining: res.headers["x-ratelimit-remaining"] as string | undefined });
    }
    await client.close();
    // Exactly 100 of the minute pass, each with its own remaining count, and every request after them is refused.
    const before = 1 + probes.length;
    expect(probes.every((p) => p.status === 200)).toBe(true);
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(100 - before).fill(200), ...Array<number>(120 - (100 - before)).fill(429)]);
    const remaining = [first.headers.get("x-ratelimit-remaining"), ...probes.map((p) => p.remaining), ...answers.slice(0, 100 - before).map((a) => a.remaining)];
    expect(remaining.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(await w.server.stop()).toEqual({ code: 0, signal: null });
  }, 150_000);
});
