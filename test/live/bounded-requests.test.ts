/**
 * Bounded requests with a slow upstream: every wait for a live fetch ends at
 * the request's deadline (REQUEST_DEADLINE_MS); a bulk request that runs out
 * of time answers what it has with per-id errors; a bulk's misses leave slots
 * to single requests and wait behind theirs; a queued fetch whose callers all
 * left takes no slot; single-flight still joins bulk and single requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inMemoryCorpus } from "../../scripts/youtube-standin/corpus.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { DeadlineExceeded } from "../../server/http/deadline.js";
import { bulkFetchLimit } from "../../server/routes/transcripts-bulk.js";
import { call, expectProblem, postJson } from "../server/helpers/http.js";
import { fresh, LIVE_CHANNEL } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

/** Videos only the stand-in has, numbered from 100 so they differ from the shared live corpus's. */
const UPSTREAM = Array.from({ length: 400 }, (_, i) => fresh(100 + i));
let nextVideo = 0;
function unknownIds(n: number): string[] {
  const ids = UPSTREAM.slice(nextVideo, nextVideo + n).map((v) => v.videoId);
  nextVideo += n;
  if (ids.length < n) throw new Error("the test corpus is too small");
  return ids;
}

let standin: Standin;
/** Two fetch slots (so a bulk may use one), a 2.5 s deadline. */
let twoSlots: LiveServer;
/** One fetch slot, a 1 s deadline. */
let oneSlot: LiveServer;
/** Default slots, a 5 s deadline. */
let roomy: LiveServer;

const PLAYER_MS = 400;

beforeAll(async () => {
  standin = await startStandin({
    corpus: inMemoryCorpus(UPSTREAM, [{ channelId: LIVE_CHANNEL, title: "Live Test Channel", handle: "@livetest", videoIds: UPSTREAM.map((v) => v.videoId) }]),
  });
  [twoSlots, oneSlot, roomy] = await Promise.all([
    startLiveServer({ standin, env: { LIVE_FETCH_CONCURRENCY: "2", REQUEST_DEADLINE_MS: "2500" } }),
    startLiveServer({ standin, env: { LIVE_FETCH_CONCURRENCY: "1", REQUEST_DEADLINE_MS: "1000" } }),
    startLiveServer({ standin, env: { REQUEST_DEADLINE_MS: "5000" } }),
  ]);
});
afterAll(async () => {
  await twoSlots?.close();
  await oneSlot?.close();
  await roomy?.close();
  await standin?.close();
});

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

/** Video ids of the server's "live fetch stored" log lines, in the order they were stored. */
function storedOrder(server: LiveServer): string[] {
  return server.logs.filter((l) => l.msg === "live fetch stored").map((l) => l.videoId as string);
}

function seenUpstream(id: string): boolean {
  return standin.stats.byVideo[id] !== undefined;
}

describe("a bulk request with a slow upstream", () => {
  it("of 100 unknown ids answers 200 by its deadline: what it fetched, and a per-id error for every other id", async () => {
    const ids = unknownIds(100);
    standin.setFault({ kind: "slow", delayMs: PLAYER_MS, endpoint: "player" });
    try {
      const { value: res, ms } = await timed(() => postJson(twoSlots.baseUrl, "/v1/transcripts/bulk", twoSlots.key, { videoIds: ids }));
      expect(res.status).toBe(200);
      // The deadline is 2.5 s; answering takes a few ms past it, the loaded machine a little more.
      expect(ms).toBeGreaterThan(2_400);
      expect(ms).toBeLessThan(2_500 + 1_500);
      const { requested, found, fetched, transcripts, errors } = res.body;
      expect(requested).toBe(100);
      expect(found).toBe(transcripts.length);
      expect(fetched).toBe(found);
      expect(found).toBeGreaterThan(0);
      expect(found).toBeLessThan(20);
      expect(found + errors.length).toBe(100);
      // Every id in exactly one list, each list in request order.
      const listed = [...transcripts.map((t: { videoId: string }) => t.videoId), ...errors.map((e: { videoId: string }) => e.videoId)];
      expect([...listed].sort()).toEqual([...ids].sort());
      const order = (list: { videoId: string }[]) => list.map((x) => ids.indexOf(x.videoId));
      expect(order(transcripts)).toEqual([...order(transcripts)].sort((a, b) => a - b));
      expect(order(errors)).toEqual([...order(errors)].sort((a, b) => a - b));
      for (const error of errors) {
        expect(Object.keys(error).sort()).toEqual(["code", "detail", "videoId"]);
        expect(["deadline_exceeded", "upstream_busy"]).toContain(error.code);
        expect(error.detail.length).toBeGreaterThan(10);
      }
      // The bulk fetches one at a time (half of 2 slots): at most one id was being fetched at the deadline.
      const running = errors.filter((e: { code: string }) => e.code === "deadline_exceeded");
      expect(running.length).toBeLessThanOrEqual(1);
      // Nothing of the bulk is left waiting for a slot, and ids it never reached are never fetched.
      expect(twoSlots.runtime.fetcher?.load.waiting).toBe(0);
      await until(() => twoSlots.runtime.fetcher?.load.running === 0, "the last fetch ended");
      const notReached = errors.filter((e: { code: string }) => e.code === "upstream_busy").map((e: { videoId: string }) => e.videoId);
      expect(notReached.filter(seenUpstream)).toEqual([]);
      // The one being fetched at the deadline went on and was stored.
      for (const { videoId } of running) {
        const later = await call(twoSlots.baseUrl, `/v1/transcript/${videoId}`, { key: twoSlots.key });
        expect(later.body.cached).toBe(true);
      }
      console.log(`bulk of 100 with a ${PLAYER_MS} ms player: ${Math.round(ms)} ms (server: ${Math.round(res.body.timing.totalMs)} ms), ${found} found, ${errors.length} errors`);
    } finally {
      standin.setFault(null);
    }
  });

  it("leaves a fetch slot to a single request: its miss is fetched next to the bulk's, not behind it", async () => {
    const ids = unknownIds(100);
    const [single] = unknownIds(1) as [string];
    standin.setFault({ kind: "slow", delayMs: PLAYER_MS, endpoint: "player" });
    try {
      const before = storedOrder(twoSlots).length;
      const bulkStarted = performance.now();
      const bulk = postJson(twoSlots.baseUrl, "/v1/transcripts/bulk", twoSlots.key, { videoIds: ids });
      await until(() => seenUpstream(ids[0]!), "the bulk's first fetch reached the stand-in");
      const { value: res, ms } = await timed(() => call(twoSlots.baseUrl, `/v1/transcript/${single}`, { key: twoSlots.key }));
      expect(res.status).toBe(200);
      expect(res.body.cached).toBe(false);
      const bulkRes = await bulk;
      const bulkMs = performance.now() - bulkStarted;
      expect(bulkRes.status).toBe(200);
      // Stored right after the bulk's first fetch: it took a free slot. Queued behind the bulk's fetches, 4 would come first.
      const order = storedOrder(twoSlots).slice(before);
      expect(order.indexOf(single)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(single)).toBeLessThanOrEqual(2);
      expect(ms).toBeLessThan(bulkMs / 2);
      console.log(`single miss during a bulk: ${Math.round(ms)} ms (bulk ${Math.round(bulkMs)} ms), stored at position ${order.indexOf(single) + 1}`);
    } finally {
      standin.setFault(null);
    }
  });
});

describe("a single request at its deadline", () => {
  it("still queued: 503 upstream_busy with Retry-After, and its fetch leaves the queue without ever going upstream", async () => {
    const [running, queued] = unknownIds(2) as [string, string];
    const fetcher = oneSlot.runtime.fetcher!;
    const withdrawn = fetcher.stats.withdrawn;
    standin.setFault({ kind: "slow", delayMs: 2_000, endpoint: "player" });
    try {
      const first = timed(() => call(oneSlot.baseUrl, `/v1/transcript/${running}`, { key: oneSlot.key }));
      await until(() => seenUpstream(running), "the first fetch reached the stand-in");
      const { value: res, ms } = await timed(() => call(oneSlot.baseUrl, `/v1/transcript/${queued}`, { key: oneSlot.key }));
      expectProblem(res, 503, "upstream_busy");
      expect(res.headers.get("retry-after")).toBe("5");
      expect(res.body.detail).toMatch(/deadline/);
      expect(ms).toBeGreaterThan(900);
      expect(ms).toBeLessThan(1_000 + 1_000);
      expect(fetcher.load.waiting).toBe(0);
      expect(fetcher.stats.withdrawn).toBe(withdrawn + 1);

      // The one holding the slot ran out of time too, while fetching: 504, and its fetch goes on.
      const { value: firstRes, ms: firstMs } = await first;
      expectProblem(firstRes, 504, "deadline_exceeded");
      expect(firstRes.headers.get("retry-after")).toBe("5");
      expect(firstMs).toBeLessThan(1_000 + 1_000);
      await until(() => fetcher.load.running === 0, "the running fetch ended");
      expect(seenUpstream(queued)).toBe(false);
    } finally {
      standin.setFault(null);
    }
    const stored = await call(oneSlot.baseUrl, `/v1/transcript/${running}`, { key: oneSlot.key });
    expect(stored.status).toBe(200);
    expect(stored.body.cached).toBe(true);
    const fetchedNow = await call(oneSlot.baseUrl, `/v1/transcript/${queued}`, { key: oneSlot.key });
    expect(fetchedNow.status).toBe(200);
    expect(fetchedNow.body.cached).toBe(false);
  });
});

describe("the fetch pool's order and its waiters", () => {
  /** Starts a fetch on `server`'s fetcher and notes the id in `order` when it is answered. */
  function start(server: LiveServer, id: string, order: string[], options: { bulk?: boolean; signal?: AbortSignal } = {}) {
    return server.runtime
      .fetcher!.fetch(id, "en", { includeMetadata: false, signal: options.signal ?? new AbortController().signal, bulk: options.bulk ?? false })
      .then(() => order.push(id));
  }

  it("runs a single request's fetch before bulk requests' fetches that waited longer", async () => {
    const [holder, bulk1, bulk2, single] = unknownIds(4) as [string, string, string, string];
    const order: string[] = [];
    await Promise.all([
      start(oneSlot, holder, order),
      start(oneSlot, bulk1, order, { bulk: true }),
      start(oneSlot, bulk2, order, { bulk: true }),
      start(oneSlot, single, order),
    ]);
    expect(order).toEqual([holder, single, bulk1, bulk2]);
  });

  it("brings a bulk's queued fetch forward when a single request joins it, and fetches it once", async () => {
    const [holder, bulk1, shared] = unknownIds(3) as [string, string, string];
    const order: string[] = [];
    const joined = oneSlot.runtime.fetcher!.stats.joined;
    await Promise.all([
      start(oneSlot, holder, order),
      start(oneSlot, bulk1, order, { bulk: true }),
      start(oneSlot, shared, order, { bulk: true }),
      start(oneSlot, shared, order),
    ]);
    expect(order).toEqual([holder, shared, shared, bulk1]);
    expect(oneSlot.runtime.fetcher!.stats.joined).toBe(joined + 1);
    expect(standin.stats.byVideo[shared]?.player).toBe(1);
  });

  it("withdraws a queued fetch only when its last waiter leaves; a later request starts it afresh", async () => {
    const [holder, shared] = unknownIds(2) as [string, string];
    const fetcher = oneSlot.runtime.fetcher!;
    const withdrawn = fetcher.stats.withdrawn;
    const order: string[] = [];
    standin.setFault({ kind: "slow", delayMs: 300, endpoint: "player" });
    try {
      const holding = start(oneSlot, holder, order);
      const bulkWait = new AbortController();
      const singleWait = new AbortController();
      const fromBulk = start(oneSlot, shared, order, { bulk: true, signal: bulkWait.signal });
      const fromSingle = start(oneSlot, shared, order, { signal: singleWait.signal });
      expect(fetcher.load.waiting).toBe(1);

      bulkWait.abort(new DeadlineExceeded());
      await expect(fromBulk).rejects.toMatchObject({ status: 503, code: "upstream_busy" });
      expect(fetcher.load.waiting).toBe(1);
      singleWait.abort(new Error("client closed the connection"));
      await expect(fromSingle).rejects.toThrow("client closed the connection");
      expect(fetcher.load.waiting).toBe(0);
      expect(fetcher.stats.withdrawn).toBe(withdrawn + 1);

      await holding;
      expect(seenUpstream(shared)).toBe(false);
      await start(oneSlot, shared, order);
      expect(order).toEqual([holder, shared]);
      expect(standin.stats.byVideo[shared]?.player).toBe(1);
    } finally {
      standin.setFault(null);
    }
  });
});

describe("single-flight between bulk and single requests", () => {
  it("a single request for an id a bulk is fetching joins that fetch, and the reverse: one upstream fetch each", async () => {
    const [x, y, other] = unknownIds(3) as [string, string, string];
    standin.setFault({ kind: "slow", delayMs: 600, endpoint: "player" });
    try {
      const joined = roomy.runtime.fetcher!.stats.joined;
      // Bulk first, then a single for one of its ids.
      const bulk = postJson(roomy.baseUrl, "/v1/transcripts/bulk", roomy.key, { videoIds: [x, other] });
      await until(() => seenUpstream(x), "the bulk's fetch of x reached the stand-in");
      const single = await call(roomy.baseUrl, `/v1/transcript/${x}`, { key: roomy.key });
      expect(single.status).toBe(200);
      expect(single.body.cached).toBe(false);
      const bulkRes = await bulk;
      expect(bulkRes.body.transcripts.find((t: { videoId: string }) => t.videoId === x)).toMatchObject({ cached: false });

      // A single first, then a bulk listing its id.
      const first = call(roomy.baseUrl, `/v1/transcript/${y}`, { key: roomy.key });
      await until(() => seenUpstream(y), "the single fetch of y reached the stand-in");
      const second = await postJson(roomy.baseUrl, "/v1/transcripts/bulk", roomy.key, { videoIds: [y] });
      expect((await first).body.cached).toBe(false);
      expect(second.body).toMatchObject({ found: 1, fetched: 1, errors: [] });

      expect(standin.stats.byVideo[x]).toEqual({ watch: 1, player: 1, timedtext: 1 });
      expect(standin.stats.byVideo[y]).toEqual({ watch: 1, player: 1, timedtext: 1 });
      expect(roomy.runtime.fetcher!.stats.joined).toBe(joined + 2);
    } finally {
      standin.setFault(null);
    }
  });
});

describe("the contract", () => {
  it("caps one bulk request's fetches at BULK_FETCH_CONCURRENCY and at half the live-fetch slots, at least one", () => {
    expect(bulkFetchLimit({ bulkFetchConcurrency: 4, liveFetchConcurrency: 8 })).toBe(4);
    expect(bulkFetchLimit({ bulkFetchConcurrency: 4, liveFetchConcurrency: 5 })).toBe(2);
    expect(bulkFetchLimit({ bulkFetchConcurrency: 4, liveFetchConcurrency: 2 })).toBe(1);
    expect(bulkFetchLimit({ bulkFetchConcurrency: 4, liveFetchConcurrency: 1 })).toBe(1);
    expect(bulkFetchLimit({ bulkFetchConcurrency: 16, liveFetchConcurrency: 64 })).toBe(16);
  });

  it("documents the deadline's problems and bulk error codes in the OpenAPI document", async () => {
    const doc = (await call(roomy.baseUrl, "/v1/openapi.json")).body;
    const responses = doc.paths["/v1/transcript/{videoId}"].get.responses;
    expect(responses["504"].description).toContain("`deadline_exceeded`");
    expect(responses["503"].description).toContain("`upstream_busy`");
    expect(doc.components.schemas.BulkError.properties.code.description).toContain("deadline_exceeded");
  });
});
