/** The per-key fixed-window limit: 100 a minute, exact under concurrency, headers on every authenticated response. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createMemoryRateLimiter } from "../../server/rate-limit/memory-rate-limiter.js";
import { call, expectProblem } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

/** 15 s into a minute, so the window ends 45 s later. */
const MINUTE_START = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
let now = MINUTE_START + 15_000;
let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, clock: () => now });
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

const newKey = (plan: "free" | "pro" = "pro") => server.keyStore.create({ plan }).key;
const stats = (key: string) => call(server.baseUrl, "/v1/stats", { key });

describe("the rate limit", () => {
  test("counts down in X-RateLimit-Remaining and refuses the 101st request of the minute with 429 and Retry-After", async () => {
    now = MINUTE_START + 15_000;
    const key = newKey();
    const windowEnd = String((MINUTE_START + 60_000) / 1000);
    for (let i = 1; i <= 100; i++) {
      const res = await stats(key);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("100");
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(100 - i));
      expect(res.headers.get("x-ratelimit-reset")).toBe(windowEnd);
      expect(res.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
      expect(res.headers.get("ratelimit")).toBe(`"default";r=${100 - i};t=45`);
    }
    const refused = await stats(key);
    expectProblem(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("45");
    expect(refused.headers.get("x-ratelimit-limit")).toBe("100");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("x-ratelimit-reset")).toBe(windowEnd);
    expect(refused.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
    expect(refused.headers.get("ratelimit")).toBe('"default";r=0;t=45');

    now = MINUTE_START + 60_000;
    const nextWindow = await stats(key);
    expect(nextWindow.status).toBe(200);
    expect(nextWindow.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(nextWindow.headers.get("x-ratelimit-reset")).toBe(String((MINUTE_START + 120_000) / 1000));
    expect(nextWindow.headers.get("ratelimit")).toBe('"default";r=99;t=60');
  });

  test("lets exactly 100 of 200 concurrent requests through", async () => {
    now = MINUTE_START + 5 * 60_000;
    const key = newKey();
    const results = await Promise.all(Array.from({ length: 200 }, () => stats(key)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100);
    const remaining = results.filter((r) => r.status === 200).map((r) => Number(r.headers.get("x-ratelimit-remaining")));
    expect(new Set(remaining).size).toBe(100);
  });

  test("keeps each key's window independent", async () => {
    now = MINUTE_START + 10 * 60_000;
    const a = newKey();
    const b = newKey();
    for (let i = 0; i < 100; i++) await stats(a);
    expect((await stats(a)).status).toBe(429);
    const other = await stats(b);
    expect(other.status).toBe(200);
    expect(other.headers.get("x-ratelimit-remaining")).toBe("99");
  });

  test("does not count requests rejected for a missing or invalid key, and sends them no rate-limit headers", async () => {
    now = MINUTE_START + 20 * 60_000;
    const key = newKey();
    for (let i = 0; i < 5; i++) {
      const res = await call(server.baseUrl, "/v1/stats", { key: `${key.slice(0, -1)}x` });
      expect(res.status).toBe(401);
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
      expect(res.headers.get("ratelimit")).toBeNull();
      expect(res.headers.get("ratelimit-policy")).toBeNull();
    }
    expect((await stats(key)).headers.get("x-ratelimit-remaining")).toBe("99");
  });

  test("carries the headers on 4xx answers of authenticated requests, which count", async () => {
    now = MINUTE_START + 30 * 60_000;
    const free = newKey("free");
    const bulk = await call(server.baseUrl, "/v1/transcripts/bulk", {
      method: "POST",
      key: free,
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expectProblem(bulk, 403, "plan_required");
    expect(bulk.headers.get("x-ratelimit-remaining")).toBe("99");
    expect(bulk.headers.get("ratelimit")).toBe('"default";r=99;t=60');
    const bad = await call(server.baseUrl, "/v1/search?limit=0", { key: free });
    expectProblem(bad, 400, "invalid_parameter");
    expect(bad.headers.get("x-ratelimit-remaining")).toBe("98");
  });

  test("does not apply to /healthz and /v1/openapi.json", async () => {
    const res = await call(server.baseUrl, "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("the in-memory limiter", () => {
  test("sweeps entries of past windows so memory holds only keys seen this minute", async () => {
    const limiter = createMemoryRateLimiter({ limit: 3 });
    for (let i = 0; i < 1000; i++) await limiter.consume(`key${i}`, 0);
    expect(limiter.size()).toBe(1000);
    await limiter.consume("late", 60_000);
    expect(limiter.size()).toBe(1);
  });

  test("never reports negative remaining and keeps refusing until the window ends", async () => {
    const limiter = createMemoryRateLimiter({ limit: 2 });
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiter.consume("k", 1_000));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
      [false, 0],
    ]);
    expect(decisions[0]?.resetAt).toBe(60);
    expect((await limiter.consume("k", 59_999)).allowed).toBe(false);
    expect((await limiter.consume("k", 60_000)).allowed).toBe(true);
  });

  test("rejects a limit that is not a positive integer with an exact message", () => {
    expect(() => createMemoryRateLimiter({ limit: 0 })).toThrow('Expected the "limit" option to be a positive integer');
    expect(() => createMemoryRateLimiter({ limit: 1.5 })).toThrow(TypeError);
  });
});
