/**
 * Upstream trouble through the API: proxies rotated per request with a
 * blocked attempt recovered through the next one, and every kind of failure
 * (killed connection, timeout, 429, 5xx, garbage) answered with 502/504 and
 * a precise code, storing nothing.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Fault } from "../../scripts/youtube-standin/faults.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { call, expectProblem } from "../server/helpers/http.js";
import { startForwardProxy, type ForwardProxy, type ProxyLogEntry } from "../youtube/helpers/forward-proxy.js";
import { fresh, upstreamCorpus } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

let standin: Standin;
let proxies: ForwardProxy[];
const proxyLog: ProxyLogEntry[] = [];
let proxied: LiveServer;
let direct: LiveServer;

beforeAll(async () => {
  standin = await startStandin({ corpus: upstreamCorpus() });
  proxies = await Promise.all(["p1", "p2", "p3"].map((name) => startForwardProxy(name, proxyLog)));
  proxied = await startLiveServer({ standin, env: { YOUTUBE_PROXY_URLS: proxies.map((p) => p.url).join(" , ") } });
  direct = await startLiveServer({ standin, env: { YOUTUBE_TIMEOUT_MS: "500" } });
});
afterAll(async () => {
  await proxied?.close();
  await direct?.close();
  await Promise.all((proxies ?? []).map((p) => p.close()));
  await standin?.close();
});
beforeEach(() => {
  standin.setFault(null);
  standin.stats.reset();
  proxyLog.length = 0;
});

describe("proxies", () => {
  it("sends each upstream call through the next proxy, one connection per call, and reports usedProxy", async () => {
    const before = proxies.map((p) => p.requests);
    const res = await call(proxied.baseUrl, `/v1/transcript/${fresh(30).videoId}`, { key: proxied.key });
    expect(res.body).toMatchObject({ cached: false, debug: { method: "innertube-android", usedProxy: true } });
    expect(proxies.map((p, i) => p.requests - (before[i] ?? 0))).toEqual([1, 1, 1]);
    expect(proxyLog.map((e) => e.requestLine)).toEqual(["GET /watch", "POST /youtubei/v1/player", "GET /api/timedtext"]);
    expect(new Set(proxyLog.map((e) => e.proxy)).size).toBe(3);
    // Served from storage next time: no proxy involved.
    expect((await call(proxied.baseUrl, `/v1/transcript/${fresh(30).videoId}`, { key: proxied.key })).body.debug).toEqual({
      method: "storage",
      usedProxy: false,
    });
  });

  it("recovers a blocked first attempt (bot check) through the next proxy", async () => {
    standin.setFault({ kind: "bot-check", times: 1 });
    const res = await call(proxied.baseUrl, `/v1/transcript/${fresh(31).videoId}`, { key: proxied.key });
    expect(res.status).toBe(200);
    expect(res.body.debug.usedProxy).toBe(true);
    const players = proxyLog.filter((e) => e.requestLine.includes("/player")).map((e) => e.proxy);
    expect(players).toHaveLength(2);
    expect(players[0]).not.toBe(players[1]);
    expect(standin.stats.byEndpoint.player).toBe(2);
  });

  it("answers 502 request_blocked with Retry-After when every attempt is blocked, and does not remember it", async () => {
    standin.setFault({ kind: "bot-check" });
    const res = await call(proxied.baseUrl, `/v1/transcript/${fresh(32).videoId}`, { key: proxied.key });
    expectProblem(res, 502, "request_blocked");
    expect(res.headers.get("retry-after")).toBe("60");
    // One try plus YOUTUBE_MAX_BLOCKED_RETRIES (2), each through another proxy.
    expect(new Set(proxyLog.filter((e) => e.requestLine.includes("/player")).map((e) => e.proxy)).size).toBe(3);
    standin.setFault(null);
    expect((await call(proxied.baseUrl, `/v1/transcript/${fresh(32).videoId}`, { key: proxied.key })).status).toBe(200);
  });
});

function liveRows(server: LiveServer): { records: number; maxSeq: number } {
  const db = new Database(dataDirLayout(server.dataDir).liveStore, { readonly: true });
  try {
    return db.prepare("SELECT count(*) AS records, coalesce(max(seq), 0) AS maxSeq FROM live_records").get() as { records: number; maxSeq: number };
  } finally {
    db.close();
  }
}

describe("upstream failures", () => {
  const cases: { name: string; fault: Fault; status: number; code: string; retryAfter: string | null }[] = [
    { name: "a connection killed mid-transcript", fault: { kind: "connection-reset", endpoint: "timedtext" }, status: 502, code: "connection_failed", retryAfter: "30" },
    { name: "a body cut short mid-player-answer", fault: { kind: "truncated-body", endpoint: "player" }, status: 502, code: "connection_failed", retryAfter: "30" },
    { name: "a player answer that is not JSON", fault: { kind: "malformed-json" }, status: 502, code: "upstream_unparsable", retryAfter: null },
    { name: "a timedtext answer cut in half", fault: { kind: "truncated-xml" }, status: 502, code: "upstream_unparsable", retryAfter: null },
    { name: "an empty timedtext body", fault: { kind: "empty-body" }, status: 502, code: "empty_transcript", retryAfter: "30" },
    { name: "a 503 from YouTube", fault: { kind: "server-error", endpoint: "player" }, status: 502, code: "upstream_status", retryAfter: "30" },
    { name: "a captcha page", fault: { kind: "captcha" }, status: 502, code: "ip_blocked", retryAfter: "300" },
    { name: "an answer slower than YOUTUBE_TIMEOUT_MS", fault: { kind: "slow", delayMs: 1500, endpoint: "player" }, status: 504, code: "upstream_timeout", retryAfter: "30" },
  ];

  it.each(cases)("$name gives $status $code, stores nothing, and the next request fetches again", async ({ name, fault, status, code, retryAfter }) => {
    const id = fresh(40 + cases.findIndex((c) => c.name === name)).videoId;
    const before = liveRows(direct);
    standin.setFault(fault);
    const res = await call(direct.baseUrl, `/v1/transcript/${id}`, { key: direct.key });
    expectProblem(res, status, code);
    expect(res.headers.get("retry-after")).toBe(retryAfter);
    expect(liveRows(direct)).toEqual(before);
    standin.setFault(null);
    const next = await call(direct.baseUrl, `/v1/transcript/${id}`, { key: direct.key });
    expect(next.body).toMatchObject({ videoId: id, cached: false });
    expect(liveRows(direct).records).toBe(before.records + 1);
  });

  it("429 on every attempt gives 502 upstream_rate_limited; within its Retry-After the next request is refused without going upstream, after it fetches", async () => {
    const id = fresh(59).videoId;
    const before = liveRows(direct);
    standin.setFault({ kind: "rate-limit", retryAfterSeconds: 2 });
    const res = await call(direct.baseUrl, `/v1/transcript/${id}`, { key: direct.key });
    expectProblem(res, 502, "upstream_rate_limited");
    expect(res.headers.get("retry-after")).toBe("60");
    // The first 429 rests the one exit for 2 s, longer than a live call waits for it (YOUTUBE_TIMEOUT_MS 500): no retry went out.
    expect(standin.stats.byEndpoint.watch).toBe(1);
    standin.setFault(null);
    const early = await call(direct.baseUrl, `/v1/transcript/${id}`, { key: direct.key });
    expectProblem(early, 502, "upstream_rate_limited");
    expect(standin.stats.byEndpoint.watch).toBe(1);
    expect(liveRows(direct)).toEqual(before);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const next = await call(direct.baseUrl, `/v1/transcript/${id}`, { key: direct.key });
    expect(next.body).toMatchObject({ videoId: id, cached: false });
    expect(liveRows(direct).records).toBe(before.records + 1);
  });

  it("YouTube unreachable altogether gives 502 connection_failed", async () => {
    const dead = await startLiveServer({ env: { YOUTUBE_ORIGIN: "http://127.0.0.1:9" } });
    try {
      const res = await call(dead.baseUrl, `/v1/transcript/${fresh(5).videoId}`, { key: dead.key });
      expectProblem(res, 502, "connection_failed");
      expect(JSON.stringify(res.body)).not.toContain("127.0.0.1");
    } finally {
      await dead.close();
    }
  });
});
