/**
 * Every error path answers with the same RFC 9457 problem shape, the right
 * status and code, and never echoes client input or leaks a stack.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createMemoryRateLimiter } from "../../server/rate-limit/memory-rate-limiter.js";
import type { RateLimiter } from "../../server/rate-limit/rate-limiter.js";
import { CHANNEL_UNKNOWN, IDS } from "./helpers/fixture-records.js";
import { liveFetchProblems } from "../../server/live/upstream-problem.js";
import { call, expectProblem, paramsOf, postJson, type ApiResponse } from "./helpers/http.js";
import { createStandInSource } from "./helpers/stand-in-source.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
/** Without a transcript source: unknown videos are 404. */
let plain: TestServer;
/** With a stand-in transcript source, and a limiter that refuses one particular key. */
let live: TestServer;
let limitedKey = "";

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  plain = await startTestServer({ artifacts, env: { MAX_BODY_BYTES: "4096" } });
  const memory = createMemoryRateLimiter({ limit: 100 });
  let limitedKeyId = "";
  const refusing: RateLimiter = {
    async consume(keyId, nowMs) {
      const decision = await memory.consume(keyId, nowMs);
      return keyId === limitedKeyId ? { ...decision, allowed: false, remaining: 0 } : decision;
    },
  };
  live = await startTestServer({ artifacts, transcriptSource: createStandInSource(), rateLimiter: refusing });
  const limited = live.keyStore.create({ plan: "pro", name: "limited" });
  limitedKeyId = limited.record.keyId;
  limitedKey = limited.key;
});
afterAll(async () => {
  await plain.close();
  await live.close();
  artifacts.cleanup();
});

const HOSTILE = "<script>alert(1)</script>";

/** Codes that only a real live fetcher against a slow upstream answers; tested there, with their status and headers. */
const TESTED_WITH_A_SLOW_UPSTREAM: Record<string, string> = {
  upstream_busy: "test/live/bounded-requests.test.ts",
  deadline_exceeded: "test/live/bounded-requests.test.ts",
  // Every outcome of a live fetch is provoked through the stand-in by the contract test.
  ...Object.fromEntries(liveFetchProblems().map((p) => [p.code, "test/contract/openapi-contract.test.ts"])),
  // Search by meaning's: a set with vectors and an embeddings stand-in on loopback.
  no_vectors: "test/search/semantic-api.test.ts",
  embedder_mismatch: "test/search/semantic-api.test.ts",
};

interface ErrorCase {
  name: string;
  status: number;
  code: string;
  send: () => Promise<ApiResponse>;
  /** Parameters the problem's `errors` must name, in order. */
  params?: string[];
  headers?: Record<string, RegExp>;
}

const bulk = (body: unknown, key = () => plain.keys.pro) => () => postJson(plain.baseUrl, "/v1/transcripts/bulk", key(), body);
const get = (path: string, key = () => plain.keys.pro) => () => call(plain.baseUrl, path, { key: key() });

const CASES: ErrorCase[] = [
  { name: "unknown route", status: 404, code: "route_not_found", send: () => call(plain.baseUrl, "/v1/nope") },
  { name: "unknown route outside /v1", status: 404, code: "route_not_found", send: () => call(plain.baseUrl, "/v2") },
  {
    name: "wrong method on a GET route",
    status: 405,
    code: "method_not_allowed",
    send: () => call(plain.baseUrl, "/v1/stats", { method: "DELETE", key: plain.keys.pro }),
    headers: { allow: /^GET, HEAD$/ },
  },
  {
    name: "GET on the bulk route",
    status: 405,
    code: "method_not_allowed",
    send: get("/v1/transcripts/bulk"),
    headers: { allow: /^POST$/ },
  },
  {
    name: "no API key",
    status: 401,
    code: "missing_api_key",
    send: () => call(plain.baseUrl, "/v1/stats"),
    headers: { "www-authenticate": /^ApiKey header="X-API-Key", Bearer$/ },
  },
  {
    name: "malformed API key",
    status: 401,
    code: "invalid_api_key",
    send: get("/v1/stats", () => HOSTILE),
    headers: { "www-authenticate": /^ApiKey header="X-API-Key", Bearer$/ },
  },
  {
    name: "well-formed but unknown API key",
    status: 401,
    code: "invalid_api_key",
    send: get("/v1/stats", () => `tsk_0badc0de_${"A".repeat(43)}`),
  },
  {
    name: "two different keys, in X-API-Key and Authorization: Bearer",
    status: 400,
    code: "conflicting_api_keys",
    send: () => call(plain.baseUrl, "/v1/stats", { key: plain.keys.pro, headers: { Authorization: `Bearer ${plain.keys.free}` } }),
  },
  { name: "revoked API key", status: 401, code: "invalid_api_key", send: get("/v1/stats", () => plain.keys.revoked) },
  { name: "expired API key", status: 403, code: "subscription_expired", send: get("/v1/stats", () => plain.keys.expired) },
  { name: "free plan on bulk", status: 403, code: "plan_required", send: bulk({ videoIds: [IDS.markup] }, () => plain.keys.free) },
  {
    name: "MCP request from a browser origin not allowed",
    status: 403,
    code: "origin_not_allowed",
    send: () =>
      call(plain.baseUrl, "/mcp", { method: "POST", key: plain.keys.pro, headers: { Origin: "https://evil.example", "Content-Type": "application/json" }, body: "{}" }),
  },
  {
    name: "rate limit exceeded",
    status: 429,
    code: "rate_limited",
    send: () => call(live.baseUrl, "/v1/stats", { key: limitedKey }),
    headers: { "retry-after": /^\d+$/, "x-ratelimit-remaining": /^0$/ },
  },
  { name: "search without q", status: 400, code: "invalid_parameter", send: get("/v1/search"), params: ["q"] },
  { name: "search with a blank q", status: 400, code: "invalid_parameter", send: get("/v1/search?q=%20%20"), params: ["q"] },
  { name: "search with a q of punctuation only", status: 400, code: "invalid_parameter", send: get(`/v1/search?q=${encodeURIComponent("<>&;")}`), params: ["q"] },
  { name: "search with a q over 500 characters", status: 400, code: "invalid_parameter", send: get(`/v1/search?q=${"a".repeat(501)}`), params: ["q"] },
  { name: "search with limit=0", status: 400, code: "invalid_parameter", send: get("/v1/search?q=river&limit=0"), params: ["limit"] },
  {
    name: "search with several bad parameters at once",
    status: 400,
    code: "invalid_parameter",
    send: get(`/v1/search?q=river&limit=-1&offset=10001&channel=${encodeURIComponent(HOSTILE)}&minViews=1.5`),
    params: ["limit", "offset", "channel", "minViews"],
  },
  { name: "duplicated query parameter", status: 400, code: "invalid_parameter", send: get("/v1/search?q=river&q=sea"), params: ["q"] },
  { name: "malformed video id", status: 400, code: "invalid_video_id", send: get(`/v1/transcript/${encodeURIComponent(HOSTILE)}`), params: ["videoId"] },
  { name: "video id of 12 characters", status: 400, code: "invalid_video_id", send: get("/v1/transcript/abcdefghijkl"), params: ["videoId"] },
  { name: "malformed lang", status: 400, code: "invalid_parameter", send: get(`/v1/transcript/${IDS.markup}?lang=english!`), params: ["lang"] },
  {
    name: "includeMetadata other than true/false",
    status: 400,
    code: "invalid_parameter",
    send: get(`/v1/transcript/${IDS.markup}?includeMetadata=yes`),
    params: ["includeMetadata"],
  },
  { name: "unknown video without a source", status: 404, code: "video_not_found", send: get(`/v1/transcript/${IDS.unknown}`) },
  { name: "video without a transcript", status: 404, code: "transcript_not_found", send: get(`/v1/transcript/${IDS.silent}`) },
  { name: "video without the requested language", status: 404, code: "language_not_available", send: get(`/v1/transcript/${IDS.german}`) },
  {
    name: "an Accept that takes none of a transcript's formats",
    status: 406,
    code: "not_acceptable",
    send: () => call(plain.baseUrl, `/v1/transcript/${IDS.markup}`, { key: plain.keys.pro, headers: { Accept: "image/png" } }),
  },
  {
    name: "unknown video the source cannot find",
    status: 404,
    code: "video_not_found",
    send: () => call(live.baseUrl, "/v1/transcript/typed404abc", { key: live.keys.pro }),
  },
  {
    name: "a typed source failure",
    status: 502,
    code: "upstream_unavailable",
    send: () => call(live.baseUrl, "/v1/transcript/upstreamabc", { key: live.keys.pro }),
  },
  {
    name: "an unexpected error",
    status: 500,
    code: "internal_error",
    send: () => call(live.baseUrl, "/v1/transcript/boomboomabc", { key: live.keys.pro }),
  },
  { name: "malformed channel id", status: 400, code: "invalid_parameter", send: get("/v1/channels/UCshort/videos"), params: ["channelId"] },
  { name: "unknown channel", status: 404, code: "channel_not_found", send: get(`/v1/channels/${CHANNEL_UNKNOWN}/videos`) },
  { name: "channel listing with offset above the cap", status: 400, code: "invalid_parameter", send: get(`/v1/channels/${CHANNEL_UNKNOWN}/videos?offset=10001`), params: ["offset"] },
  {
    name: "bulk without JSON content type",
    status: 415,
    code: "unsupported_media_type",
    send: () => call(plain.baseUrl, "/v1/transcripts/bulk", { method: "POST", key: plain.keys.pro, headers: { "Content-Type": "text/plain" }, body: "{}" }),
  },
  {
    name: "bulk with a body that is not JSON",
    status: 400,
    code: "invalid_json",
    send: () =>
      call(plain.baseUrl, "/v1/transcripts/bulk", { method: "POST", key: plain.keys.pro, headers: { "Content-Type": "application/json" }, body: `{"videoIds": [${HOSTILE}` }),
  },
  {
    name: "bulk with an empty body",
    status: 400,
    code: "invalid_json",
    send: () => call(plain.baseUrl, "/v1/transcripts/bulk", { method: "POST", key: plain.keys.pro, headers: { "Content-Type": "application/json" }, body: "" }),
  },
  { name: "bulk with a body that is not an object", status: 400, code: "invalid_parameter", send: bulk([IDS.markup]), params: ["body"] },
  { name: "bulk without videoIds", status: 400, code: "invalid_parameter", send: bulk({}), params: ["videoIds"] },
  { name: "bulk with no ids", status: 400, code: "invalid_parameter", send: bulk({ videoIds: [] }), params: ["videoIds"] },
  {
    name: "bulk with more than 100 ids",
    status: 400,
    code: "too_many_video_ids",
    send: bulk({ videoIds: Array.from({ length: 101 }, (_, i) => `id${String(i).padStart(9, "0")}`) }),
    params: ["videoIds"],
  },
  {
    name: "bulk with invalid ids",
    status: 400,
    code: "invalid_parameter",
    send: bulk({ videoIds: [IDS.markup, HOSTILE, IDS.silent, 12] }),
    params: ["videoIds[1]", "videoIds[3]"],
  },
  { name: "bulk with an unknown field", status: 400, code: "invalid_parameter", send: bulk({ videoIds: [IDS.markup], [HOSTILE]: 1 }), params: ["body"] },
  { name: "bulk with a misspelt field, named", status: 400, code: "invalid_parameter", send: bulk({ videoIds: [IDS.markup], fetchmissing: false }), params: ["fetchmissing"] },
  { name: "an unknown query parameter, named", status: 400, code: "invalid_parameter", send: get("/v1/search?q=river&limt=5"), params: ["limt"] },
  { name: "an unknown query parameter on a route without any", status: 400, code: "invalid_parameter", send: get("/v1/stats?_=1"), params: ["_"] },
  {
    name: "an unknown query parameter whose name is not plain, not echoed",
    status: 400,
    code: "invalid_parameter",
    send: get(`/v1/search?q=river&${encodeURIComponent(HOSTILE)}=1`),
    params: ["query"],
  },
  {
    name: "bulk with fields of the wrong type",
    status: 400,
    code: "invalid_parameter",
    send: bulk({ videoIds: [IDS.markup], fetchMissing: "yes", lang: 7 }),
    params: ["fetchMissing", "lang"],
  },
  {
    name: "bulk with a body over MAX_BODY_BYTES",
    status: 413,
    code: "payload_too_large",
    send: bulk({ videoIds: [IDS.markup], padding: "x".repeat(5000) }),
  },
];

describe("every error path", () => {
  test.each(CASES)("$name → $status $code as application/problem+json", async ({ status, code, send, params, headers }) => {
    const res = await send();
    expectProblem(res, status, code);
    if (params !== undefined) expect(paramsOf(res)).toEqual(params);
    for (const [name, pattern] of Object.entries(headers ?? {})) expect(res.headers.get(name)).toMatch(pattern);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain("script>");
    expect(text).not.toContain("kaboom");
  });

  test("the table covers every problem code the OpenAPI document lists", async () => {
    const doc = (await call(plain.baseUrl, "/v1/openapi.json")).body;
    const documented = new Set<string>();
    for (const operations of Object.values(doc.paths) as Record<string, { responses: Record<string, { description: string }> }>[]) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          for (const match of response.description.matchAll(/`([a-z_]+)`/g)) documented.add(match[1] as string);
        }
      }
    }
    const tested = new Set([...CASES.map((c) => c.code), ...Object.keys(TESTED_WITH_A_SLOW_UPSTREAM)]);
    expect([...documented].filter((code) => !tested.has(code))).toEqual([]);
    for (const [code, file] of Object.entries(TESTED_WITH_A_SLOW_UPSTREAM)) {
      expect(readFileSync(join(import.meta.dirname, "..", "..", file), "utf8"), `${file} tests ${code}`).toMatch(new RegExp(`\\b${code}\\b`));
    }
  });
});

describe("problem details", () => {
  test("language_not_available lists the languages the video has", async () => {
    const res = await call(plain.baseUrl, `/v1/transcript/${IDS.german}?lang=en`, { key: plain.keys.pro });
    expect(res.body.availableLanguages).toEqual(["de"]);
  });

  test("an unexpected error is logged with its stack under the request id, and the client sees neither", async () => {
    const res = await call(live.baseUrl, "/v1/transcript/boomboomxyz", { key: live.keys.pro, headers: { "X-Request-Id": "trace-500" } });
    expectProblem(res, 500, "internal_error");
    expect(res.body.requestId).toBe("trace-500");
    const line = live.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === "trace-500" && l.level === "error");
    expect(line.error.message).toContain("kaboom");
    expect(line.error.stack).toContain("stand-in-source");
  });

  test("validation messages describe the rule without repeating the value", async () => {
    const res = await call(plain.baseUrl, `/v1/search?q=river&channel=${encodeURIComponent("UCevil<img src=x>")}`, { key: plain.keys.pro });
    expect(res.body.errors).toEqual([{ param: "channel", message: expect.stringContaining("UC followed by 22 characters") }]);
    expect(JSON.stringify(res.body)).not.toContain("evil");
  });
});

describe("request bodies", () => {
  test("a body announced larger than MAX_BODY_BYTES is refused before it is read, and the connection is closed", async () => {
    const res = await postJson(plain.baseUrl, "/v1/transcripts/bulk", plain.keys.pro, { videoIds: [IDS.markup], padding: "x".repeat(200_000) });
    expectProblem(res, 413, "payload_too_large");
    expect(res.headers.get("connection")).toBe("close");
  });

  test("a streamed body without Content-Length is cut off once it passes MAX_BODY_BYTES", async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode(`${" ".repeat(1023)}\n`);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Far more than the cap; the server must answer long before the end.
        if (sent >= 65_536) controller.close();
        else {
          sent++;
          controller.enqueue(chunk);
        }
      },
    });
    const res = await fetch(`${plain.baseUrl}/v1/transcripts/bulk`, {
      method: "POST",
      headers: { "X-API-Key": plain.keys.pro, "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe("payload_too_large");
    expect(sent).toBeLessThan(65_536);
  });

  test("Content-Type with a UTF-8 charset is accepted, another charset is not", async () => {
    const send = (type: string) =>
      call(plain.baseUrl, "/v1/transcripts/bulk", {
        method: "POST",
        key: plain.keys.pro,
        headers: { "Content-Type": type },
        body: JSON.stringify({ videoIds: [IDS.markup] }),
      });
    expect((await send("application/json; charset=utf-8")).status).toBe(200);
    expectProblem(await send("application/json; charset=latin1"), 415, "unsupported_media_type");
  });
});
