import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lru } from "../../server/data/lru.js";
import { RepresentationCache, withFields, withTiming } from "../../server/routes/representation-cache.js";
import { IDS } from "./helpers/fixture-records.js";
import { call, postJson } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

describe("the weighted LRU", () => {
  it("evicts least recently used entries until the weight fits", () => {
    const lru = new Lru<string, string>(10, (v) => v.length);
    lru.set("a", "xxxx");
    lru.set("b", "xxxx");
    lru.get("a");
    lru.set("c", "xxxx");
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual(["xxxx", undefined, "xxxx"]);
    expect(lru.weight).toBe(8);
    lru.set("huge", "x".repeat(11));
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.weight).toBe(8);
  });
});

describe("cached representations", () => {
  it("appends per-request fields to the cached object and escapes them", () => {
    const cache = new RepresentationCache(1024);
    const entry = cache.put("k", { a: "<b>", n: 1 });
    expect(cache.get("k")).toBe(entry);
    expect(JSON.parse(withFields(entry, { timing: { totalMs: 1.5 } }).text)).toEqual({ a: "<b>", n: 1, timing: { totalMs: 1.5 } });
    expect(withFields(entry, { timing: { totalMs: 1.5 } }).text).not.toContain("<");
    expect(entry.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
  });

  it("appends the timing alone as withFields would, byte for byte", () => {
    const entry = new RepresentationCache(1024).put("k", { a: "<b>", list: [1, 2] });
    for (const totalMs of [0, 1.5, 0.001, 12.345, 1234.5]) expect(withTiming(entry, totalMs).text).toBe(withFields(entry, { timing: { totalMs } }).text);
  });

  it("does not keep entries when caching is off", () => {
    const cache = new RepresentationCache(0);
    cache.put("k", { a: 1 });
    expect(cache.get("k")).toBeUndefined();
  });
});

describe("serving with and without the cache", () => {
  let artifacts: Artifacts;
  let cached: TestServer;
  let uncached: TestServer;
  beforeAll(async () => {
    artifacts = await buildFixtureArtifacts();
    cached = await startTestServer({ artifacts });
    uncached = await startTestServer({ artifacts, env: { RESPONSE_CACHE_MB: "0" } });
  });
  afterAll(async () => {
    await cached.close();
    await uncached.close();
    artifacts.cleanup();
  });

  const withoutTiming = (body: unknown) => ({ ...(body as Record<string, unknown>), timing: undefined });

  it("answers a transcript identically, the second time from the cache", async () => {
    for (const path of [`/v1/transcript/${IDS.chapters}`, `/v1/transcript/${IDS.chapters}?includeMetadata=true`, `/v1/transcript/${IDS.german}?lang=DE`]) {
      const first = await call(cached.baseUrl, path, { key: cached.keys.pro });
      const second = await call(cached.baseUrl, path, { key: cached.keys.pro });
      const plain = await call(uncached.baseUrl, path, { key: uncached.keys.pro });
      expect(first.status).toBe(200);
      expect(withoutTiming(second.body)).toEqual(withoutTiming(first.body));
      expect(withoutTiming(plain.body)).toEqual(withoutTiming(first.body));
      expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
      expect(plain.headers.get("etag")).toBe(first.headers.get("etag"));
      expect((second.body as { timing: { totalMs: number } }).timing.totalMs).toBeTypeOf("number");
    }
  });

  it("answers a bulk request identically, items from the cache the second time", async () => {
    const ids = [IDS.chapters, IDS.markup, IDS.unknown, IDS.chapters];
    const bodies = [];
    for (const server of [cached, cached, uncached]) {
      const res = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, { videoIds: ids, fetchMissing: false });
      expect(res.status).toBe(200);
      bodies.push(withoutTiming(res.body));
    }
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    expect(bodies[0]).toMatchObject({ requested: 3, found: 2, fetched: 0 });
  });
});
