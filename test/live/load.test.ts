/**
 * Under load: many concurrent misses for one id make one upstream fetch; a
 * waiter that hangs up does not cancel it; a full wait queue answers 503
 * upstream_busy at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { call, expectProblem } from "../server/helpers/http.js";
import { fresh, upstreamCorpus } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

let standin: Standin;
let server: LiveServer;
/** One fetch slot and one waiting place. */
let narrow: LiveServer;

beforeAll(async () => {
  standin = await startStandin({ corpus: upstreamCorpus() });
  server = await startLiveServer({ standin });
  narrow = await startLiveServer({ standin, env: { LIVE_FETCH_CONCURRENCY: "1", LIVE_FETCH_QUEUE: "1" } });
});
afterAll(async () => {
  await server?.close();
  await narrow?.close();
  await standin?.close();
});

describe("single-flight", () => {
  it("100 concurrent requests for one missing id cause exactly one upstream fetch, and all get the transcript", async () => {
    const id = fresh(10).videoId;
    standin.stats.reset();
    standin.setFault({ kind: "slow", delayMs: 800, endpoint: "player" });
    try {
      const started = performance.now();
      const responses = await Promise.all(Array.from({ length: 100 }, () => call(server.baseUrl, `/v1/transcript/${id}`, { key: server.key })));
      const ms = performance.now() - started;
      expect(responses.map((r) => r.status)).toEqual(Array(100).fill(200));
      expect(new Set(responses.map((r) => r.body.transcript.script)).size).toBe(1);
      expect(standin.stats.byVideo[id]).toEqual({ watch: 1, player: 1, timedtext: 1 });
      // On a busy machine some requests arrive after the fetch was stored and are served from storage;
      // every other one joined the single fetch, and at least one did.
      const fromStorage = responses.filter((r) => r.body.cached === true).length;
      const joined = server.runtime.fetcher?.stats.joined ?? 0;
      expect(joined).toBeGreaterThan(0);
      expect(joined).toBe(99 - fromStorage);
      console.log(`100 concurrent misses for one id: ${Math.round(ms)} ms, upstream player calls: ${standin.stats.byVideo[id]?.player}`);
    } finally {
      standin.setFault(null);
    }
  });

  it("a waiter that disconnects does not cancel the shared fetch: the transcript is stored for the next request", async () => {
    const id = fresh(11).videoId;
    standin.stats.reset();
    standin.setFault({ kind: "slow", delayMs: 400, endpoint: "player" });
    try {
      const controller = new AbortController();
      const abandoned = fetch(`${server.baseUrl}/v1/transcript/${id}`, { headers: { "X-API-Key": server.key }, signal: controller.signal });
      const patient = call(server.baseUrl, `/v1/transcript/${id}`, { key: server.key });
      await new Promise((resolve) => setTimeout(resolve, 150));
      controller.abort();
      await expect(abandoned).rejects.toThrow();
      expect((await patient).body.cached).toBe(false);
    } finally {
      standin.setFault(null);
    }
    const later = await call(server.baseUrl, `/v1/transcript/${id}`, { key: server.key });
    expect(later.body.cached).toBe(true);
    expect(standin.stats.byVideo[id]?.player).toBe(1);
  });
});

describe("the bounded wait queue", () => {
  it("answers 503 upstream_busy with Retry-After once every slot and waiting place is taken", async () => {
    standin.stats.reset();
    standin.setFault({ kind: "slow", delayMs: 500, endpoint: "player" });
    try {
      const ids = [fresh(20), fresh(21), fresh(22)].map((v) => v.videoId);
      const responses = await Promise.all(ids.map((id) => call(narrow.baseUrl, `/v1/transcript/${id}`, { key: narrow.key })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 503]);
      const busy = responses.find((r) => r.status === 503);
      expectProblem(busy!, 503, "upstream_busy");
      expect(busy!.headers.get("retry-after")).toBe("5");
      // The refused request never went upstream.
      expect(standin.stats.byEndpoint.player).toBe(2);
      expect(narrow.runtime.fetcher?.stats.refusedBusy).toBe(1);
    } finally {
      standin.setFault(null);
    }
  });

  it("requests for an id already in flight join it instead of taking a place", async () => {
    standin.setFault({ kind: "slow", delayMs: 300, endpoint: "player" });
    try {
      const id = fresh(23).videoId;
      const responses = await Promise.all(Array.from({ length: 10 }, () => call(narrow.baseUrl, `/v1/transcript/${id}`, { key: narrow.key })));
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    } finally {
      standin.setFault(null);
    }
  });
});
