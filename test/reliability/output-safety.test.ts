/**
 * What reaches a client is safe to show: the security headers on every kind
 * of answer (2xx, 304, HEAD, every 4xx incl. 429, 500, and the answers node
 * itself triggers), bytes that can never form markup, escaped snippets, and
 * no stack, internal path or error class even when the storage underneath fails.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { safeJson } from "../../server/http/respond.js";
import { createMemoryRateLimiter } from "../../server/rate-limit/memory-rate-limiter.js";
import type { RateLimiter } from "../../server/rate-limit/rate-limiter.js";
import { CHANNEL_A, IDS, MARKUP_TEXT } from "../server/helpers/fixture-records.js";
import { createStandInSource } from "../server/helpers/stand-in-source.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "../server/helpers/test-server.js";
import { rawRequest, type RawResponse } from "./helpers/raw-http.js";
import { expectNoLeaks, expectSaneAnswer, expectSecurityHeaders } from "./helpers/response-checks.js";

let artifacts: Artifacts;
let server: TestServer;
let port = 0;
let limitedKey = "";

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  const memory = createMemoryRateLimiter({ limit: 1_000 });
  let limitedKeyId = "";
  const limiter: RateLimiter = {
    async consume(keyId, nowMs) {
      const decision = await memory.consume(keyId, nowMs);
      return keyId === limitedKeyId ? { ...decision, allowed: false, remaining: 0 } : decision;
    },
  };
  server = await startTestServer({ artifacts, rateLimiter: limiter, transcriptSource: createStandInSource(), env: { MAX_BODY_BYTES: "4096", LOG_LEVEL: "silent" } });
  port = Number(new URL(server.baseUrl).port);
  const limited = server.keyStore.create({ plan: "pro" });
  limitedKeyId = limited.record.keyId;
  limitedKey = limited.key;
});
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
});

function send(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  const all = { Host: "x", Connection: "close", ...headers, ...(body === undefined ? {} : { "Content-Length": String(Buffer.byteLength(body)) }) };
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(all).map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n`;
  return rawRequest(port, head, body === undefined ? {} : { body });
}

describe("security headers", () => {
  const key = () => ({ "X-API-Key": server.keys.pro });
  const json = { "Content-Type": "application/json" };
  const cases: [string, number, () => Promise<RawResponse>][] = [
    ["search", 200, () => send("GET", "/v1/search?q=river", key())],
    ["transcript", 200, () => send("GET", `/v1/transcript/${IDS.markup}`, key())],
    ["HEAD transcript", 200, () => send("HEAD", `/v1/transcript/${IDS.markup}`, key())],
    ["channel videos", 200, () => send("GET", `/v1/channels/${CHANNEL_A}/videos`, key())],
    ["stats", 200, () => send("GET", "/v1/stats", key())],
    ["bulk", 200, () => send("POST", "/v1/transcripts/bulk", { ...key(), ...json }, JSON.stringify({ videoIds: [IDS.markup] }))],
    ["healthz", 200, () => send("GET", "/healthz")],
    ["openapi", 200, () => send("GET", "/v1/openapi.json")],
    ["live fetch", 200, () => send("GET", "/v1/transcript/livevideo01", key())],
    ["400", 400, () => send("GET", "/v1/search?limit=0", key())],
    ["401", 401, () => send("GET", "/v1/stats")],
    ["403", 403, () => send("GET", "/v1/stats", { "X-API-Key": server.keys.expired })],
    ["404", 404, () => send("GET", "/nope")],
    ["405", 405, () => send("DELETE", "/v1/stats", key())],
    ["413", 413, () => send("POST", "/v1/transcripts/bulk", { ...key(), ...json }, JSON.stringify({ videoIds: [IDS.markup], pad: "x".repeat(5000) }))],
    ["415", 415, () => send("POST", "/v1/transcripts/bulk", { ...key(), "Content-Type": "text/html" }, "<p>")],
    ["417", 417, () => send("GET", "/v1/stats", { ...key(), Expect: "teapot" })],
    ["429", 429, () => send("GET", "/v1/stats", { "X-API-Key": limitedKey })],
    ["431", 431, () => send("GET", "/v1/stats", { ...key(), "X-Big": "a".repeat(20_000) })],
    ["400 from the parser", 400, () => rawRequest(port, "GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n")],
    ["400 without Host", 400, () => rawRequest(port, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")],
    ["500", 500, () => send("GET", "/v1/transcript/boomboom001", key())],
  ];

  test.each(cases)("%s (%i) carries nosniff, the CSP and no-referrer", async (_name, status, run) => {
    const res = await run();
    expect(res.status).toBe(status);
    expectSecurityHeaders(res.headers, _name);
    expectNoLeaks(res.body, _name);
    if (status < 500) expectSaneAnswer(res, _name);
  });

  test("304 Not Modified carries them too", async () => {
    const first = await send("GET", `/v1/transcript/${IDS.markup}`, { "X-API-Key": server.keys.pro });
    const etag = first.headers.etag as string;
    const res = await send("GET", `/v1/transcript/${IDS.markup}`, { "X-API-Key": server.keys.pro, "If-None-Match": etag });
    expect(res.status).toBe(304);
    expectSecurityHeaders(res.headers, "304");
    expect(res.body).toBe("");
  });
});

describe("escaping", () => {
  test("no JSON response contains a raw <, > or &, yet every value parses back unchanged", async () => {
    const transcript = await send("GET", `/v1/transcript/${IDS.markup}`, { "X-API-Key": server.keys.pro });
    const search = await send("GET", "/v1/search?q=markup", { "X-API-Key": server.keys.pro });
    const channel = await send("GET", `/v1/channels/${CHANNEL_A}/videos?limit=100`, { "X-API-Key": server.keys.pro });
    const mcpCall = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_transcript", arguments: { videoId: IDS.markup, format: "text" } } };
    const mcp = await send("POST", "/mcp", { "X-API-Key": server.keys.pro, "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, JSON.stringify(mcpCall));
    for (const res of [transcript, search, channel, mcp]) {
      expect(res.status).toBe(200);
      expect(res.body).not.toMatch(/[<>&]/);
    }
    const video = JSON.parse(transcript.body);
    expect(video.title).toBe("Markup <b>&</b> friends");
    expect(video.transcript.script).toBe(MARKUP_TEXT);
    const tool = JSON.parse(mcp.body).result;
    expect(tool.isError).toBeUndefined();
    expect(tool.content[0].text).toContain("Markup <b>&</b> friends");
    expect(tool.content[0].text.replace(/\s+/g, " ")).toContain(MARKUP_TEXT);
  });

  test("the JavaScript line separators are escaped too, and every escaped text parses back to itself", () => {
    const value = { text: "a\u2028b\u2029c <i>&amp;</i> & > <", n: 1 };
    const json = safeJson(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(json).toContain("\\u2028");
    expect(JSON.parse(json)).toEqual(value);
    expect(safeJson({ plain: "nothing to escape" })).toBe(JSON.stringify({ plain: "nothing to escape" }));
  });

  test("snippets are HTML-escaped, with <mark> the only markup", async () => {
    const res = JSON.parse((await send("GET", "/v1/search?q=script%20markup", { "X-API-Key": server.keys.pro })).body);
    const hit = res.results.find((r: { videoId: string }) => r.videoId === IDS.markup);
    expect(hit.snippet).toContain("&lt;");
    expect(hit.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
    expect(hit.snippet).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
  });
});

describe("internal failures", () => {
  test("a storage failure answers a generic 500 problem, with no stack, path, SQL error or class name", async () => {
    const broken = await startTestServer({ artifacts, env: { LOG_LEVEL: "silent" } });
    try {
      broken.catalog.close(); // every query now throws a SqliteError
      const res = await rawRequest(
        Number(new URL(broken.baseUrl).port),
        `GET /v1/search?q=river HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${broken.keys.pro}\r\n\r\n`,
      );
      expect(res.status).toBe(500);
      expectSecurityHeaders(res.headers, "500");
      expectNoLeaks(res.body, "500");
      const problem = JSON.parse(res.body);
      expect(problem.code).toBe("internal_error");
      expect(res.body).not.toMatch(/sqlite|database|closed|artifact/i);
    } finally {
      broken.catalog.close = () => undefined;
      await broken.close();
    }
  });
});
