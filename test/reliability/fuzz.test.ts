/**
 * Property-based fuzzing of every endpoint over raw sockets, so nothing is
 * normalised on the way: hostile paths and query strings, every method,
 * headers, bodies that are not JSON or of the wrong shape, hostile nesting,
 * a 50 MB body. Every answer is below 500, carries the security headers and,
 * for errors, the problem JSON; the server keeps serving throughout.
 * (test/server/robustness.test.ts covers arbitrary values of the known
 * parameters through fetch; this goes beneath it.)
 */
import fc from "fast-check";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHANNEL_A, IDS } from "../server/helpers/fixture-records.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "../server/helpers/test-server.js";
import { everyVideoSource } from "./helpers/fuzz-source.js";
import { parseResponse, pct, rawRequest, type RawResponse } from "./helpers/raw-http.js";
import { expectSaneAnswer } from "./helpers/response-checks.js";

let artifacts: Artifacts;
let server: TestServer;
let port = 0;
let cases = 0;
/** FUZZ_SCALE=10 for a longer hunt; the default keeps the suite fast. */
const SCALE = Number(process.env.FUZZ_SCALE ?? "1") || 1;
const runs = (n: number) => ({ numRuns: Math.round(n * SCALE) });
const statuses = new Map<number, number>();

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  // A 2 MiB body cap so hostile nesting reaches the JSON reader instead of stopping at 413.
  server = await startTestServer({
    artifacts,
    transcriptSource: everyVideoSource(),
    env: { RATE_LIMIT_PER_MINUTE: "1000000", MAX_BODY_BYTES: String(2 * 1024 * 1024), LOG_LEVEL: "silent" },
  });
  port = Number(new URL(server.baseUrl).port);
});
afterAll(async () => {
  const byStatus = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ");
  console.log(`fuzz: ${cases} cases run against every endpoint (${byStatus})`);
  await server?.close();
  artifacts?.cleanup();
});

interface Sent {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

async function send({ method, target, headers = {}, body }: Sent): Promise<RawResponse> {
  const all: Record<string, string> = { Host: "127.0.0.1", Connection: "close", ...headers };
  if (body !== undefined && all["Content-Length"] === undefined && all["Transfer-Encoding"] === undefined) {
    all["Content-Length"] = String(Buffer.byteLength(body));
  }
  const head = `${method} ${target} HTTP/1.1\r\n${Object.entries(all).map(([n, v]) => `${n}: ${v}\r\n`).join("")}\r\n`;
  const res = await rawRequest(port, head, body === undefined ? {} : { body });
  cases++;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  return res;
}

async function check(sent: Sent): Promise<RawResponse> {
  const res = await send(sent);
  expectSaneAnswer(res, `${sent.method} ${sent.target.slice(0, 200)}`);
  // A request node could not parse is answered before its method is known, so it gets a body.
  if (sent.method === "HEAD" && !res.body.includes('"code":"bad_request"')) expect(res.body).toBe("");
  return res;
}

// ---- arbitraries ---------------------------------------------------------------------------

const HOSTILE_TEXT = [
  "..", "../..", "%2e%2e", "/", "%2F", "a%2Fb", "%5C", "\\", "%00", "\u0000", "%", "%zz", "%E0%A4%A", "%ED%A0%80",
  "ü", "💥", "\u202e", "\ud800", "<script>alert(1)</script>", "' OR 1=1 --", "${7*7}", "{{7*7}}",
  "a".repeat(10 * 1024), "NaN", "Infinity", "-Infinity", "-1", "1.5", "1e3", "0x10", " 5", "9".repeat(400), "1e309", "-0",
];
const FTS_SYNTAX = ['"', "*", "(", ")", ":", "^", "-", "+", "~", "NEAR(", "AND", "OR", "NOT", "{", "}", "'", "\\", "[", "]", "|", "&", "@", "#", "$"];

const segment = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.string({ maxLength: 20, unit: "binary" }),
  fc.stringMatching(/^[A-Za-z0-9_-]{11}$/),
  fc.stringMatching(/^UC[A-Za-z0-9_-]{22}$/),
  fc.constantFrom(IDS.markup, IDS.silent, IDS.german, IDS.unknown, CHANNEL_A),
);
/** A segment as a client would put it on the wire: percent-encoded, raw, or with encoded slashes. */
const wireSegment = fc.oneof(
  segment.map(pct),
  segment,
  segment.map((s) => pct(s).replace(/%2F/g, "/")),
);

const paramName = fc.oneof(
  fc.constantFrom("q", "limit", "offset", "channel", "minViews", "lang", "includeMetadata", "videoIds", "fetchMissing"),
  fc.string({ maxLength: 8, unit: "binary" }),
);
const paramValue = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.array(fc.constantFrom(...FTS_SYNTAX, "river", "mill", " ", "sea"), { minLength: 1, maxLength: 8 }).map((parts) => parts.join("")),
  fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map(String),
  fc.constantFrom("true", "false", "en", "de", "pt-BR", ""),
  fc.string({ maxLength: 30, unit: "binary" }),
);
/** Pairs, possibly repeating a name; encoded, or raw on the wire. */
const queryString = fc
  .tuple(fc.array(fc.tuple(paramName, paramValue), { maxLength: 6 }), fc.boolean())
  .map(([pairs, raw]) => (pairs.length === 0 ? "" : `?${pairs.map(([n, v]) => (raw ? `${n}=${v}` : `${pct(n)}=${pct(v)}`)).join("&")}`));

const PATHS: ((a: string) => string)[] = [
  () => "/v1/search",
  (a) => `/v1/transcript/${a}`,
  (a) => `/v1/channels/${a}/videos`,
  () => "/v1/stats",
  () => "/healthz",
  () => "/v1/openapi.json",
  () => "/v1/transcripts/bulk",
  (a) => `/v1/${a}`,
  (a) => `/${a}`,
  (a) => `/v1/transcript/${a}/${a}`,
  (a) => `/v1/search/${a}`,
];
const path = fc.tuple(fc.integer({ min: 0, max: PATHS.length - 1 }), wireSegment).map(([i, seg]) => (PATHS[i] as (a: string) => string)(seg));

const method = fc.constantFrom("GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "BREW", "get");

// ---- properties ----------------------------------------------------------------------------

describe("fuzzing every endpoint", () => {
  test("random methods, paths and query strings never get a 5xx, and every error is a problem", async () => {
    const key = fc.constantFrom(() => server.keys.pro, () => server.keys.free, () => server.keys.revoked, () => "", () => "tsk_nope", () => undefined);
    await fc.assert(
      fc.asyncProperty(method, path, queryString, key, async (m, p, q, k) => {
        const apiKey = k();
        // A CR or LF in the target would end the request line: that is request smuggling, not a query.
        const target = `${p}${q}`.replace(/[\r\n]/g, "");
        await check({ method: m, target, headers: apiKey === undefined ? {} : { "X-API-Key": apiKey } });
      }),
      runs(700),
    );
  });

  test("search with FTS5/FlexSearch syntax, out-of-range numbers and text where numbers go answers 200 or 400", async () => {
    const numeric = fc.oneof(fc.constantFrom("-1", "NaN", "1.5", "1e3", "abc", "", "0", "100000", "10001", "-0", "9".repeat(40)), fc.integer().map(String));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...FTS_SYNTAX, "river", "the", "mill", "plants", " ", "ü", "日本"), { minLength: 1, maxLength: 12 }),
        fc.option(numeric, { nil: undefined }),
        fc.option(numeric, { nil: undefined }),
        fc.option(numeric, { nil: undefined }),
        async (terms, limit, offset, minViews) => {
          const query = [`q=${pct(terms.join(""))}`];
          if (limit !== undefined) query.push(`limit=${pct(limit)}`);
          if (offset !== undefined) query.push(`offset=${pct(offset)}`);
          if (minViews !== undefined) query.push(`minViews=${pct(minViews)}`);
          const res = await check({ method: "GET", target: `/v1/search?${query.join("&")}`, headers: { "X-API-Key": server.keys.pro } });
          expect([200, 400]).toContain(res.status);
        },
      ),
      runs(250),
    );
  });

  test("bulk bodies of any shape, under any content type, answer 200 or a 4xx problem", async () => {
    const contentType = fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=utf-16",
      "application/jsonx",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      "",
      "application/json; charset=\"UTF-8\"",
    );
    const body = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ videoIds: fc.array(segment, { maxLength: 4 }), fetchMissing: fc.jsonValue(), lang: fc.oneof(fc.jsonValue(), paramValue) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
      fc.record({ videoIds: fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{11}$/), { minLength: 1, maxLength: 5 }) }).map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 200, unit: "binary" }),
      fc.constantFrom('{"videoIds": [', "{'videoIds': []}", "null", "[]", '{"__proto__": {"admin": true}, "videoIds": ["aaaaaaaaaaa"]}', '{"constructor": {"prototype": {}}}', "\ufeff{}", "videoIds=aaaaaaaaaaa"),
    );
    await fc.assert(
      fc.asyncProperty(contentType, body, async (type, b) => {
        const res = await check({
          method: "POST",
          target: "/v1/transcripts/bulk",
          headers: { "X-API-Key": server.keys.pro, ...(type === "" ? {} : { "Content-Type": type }) },
          body: b,
        });
        expect([200, 400, 413, 415]).toContain(res.status);
      }),
      runs(300),
    );
  });

  test("hostile headers (request ids, conditional and encoding headers, repeated keys) never get a 5xx", async () => {
    const headerValue = fc.oneof(fc.constantFrom(...HOSTILE_TEXT.filter((t) => t.length < 1000)), fc.string({ maxLength: 60 })).map((v) => v.replace(/[\r\n\u0000]/g, ""));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("X-Request-Id", "If-None-Match", "Accept-Encoding", "X-API-Key", "Content-Type", "Accept", "Range", "Expect"),
        headerValue,
        fc.constantFrom(`/v1/transcript/${IDS.markup}`, "/v1/search?q=river", "/v1/stats", "/healthz"),
        async (name, value, target) => {
          const headers: Record<string, string> = { "X-API-Key": server.keys.pro, [name]: value };
          // Compressed bodies are checked elsewhere; here the body must stay readable as text.
          if (name === "Accept-Encoding") headers[name] = `${value.replace(/br|gzip|\*/gi, "")}`;
          await check({ method: "GET", target, headers });
        },
      ),
      runs(150),
    );
  });
});

describe("hostile bodies", () => {
  const bulk = (body: Buffer | string, headers: Record<string, string> = {}) =>
    check({ method: "POST", target: "/v1/transcripts/bulk", headers: { "X-API-Key": server.keys.pro, "Content-Type": "application/json", ...headers }, body });

  test.each([
    ["100 000 nested arrays", "[".repeat(100_000) + "]".repeat(100_000)],
    ["100 000 nested arrays as videoIds", `{"videoIds":${"[".repeat(100_000)}${"]".repeat(100_000)}}`],
    ["100 000 nested objects", `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`],
    ["100 000 unclosed brackets", "[".repeat(100_000)],
  ])("%s answer 400 invalid_json quickly", async (_name, body) => {
    const res = await bulk(body);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).code).toBe("invalid_json");
    expect(res.ms).toBeLessThan(2_000);
  });

  test("a 50 MB body announced by Content-Length gets 413 without being read", async () => {
    const big = Buffer.alloc(50 * 1024 * 1024, 0x20);
    const res = await bulk(big);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).code).toBe("payload_too_large");
  });

  test("a 50 MB chunked body is cut off at MAX_BODY_BYTES with 413", async () => {
    let written = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    const res = await rawRequest(
      port,
      `POST /v1/transcripts/bulk HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${server.keys.pro}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      {
        body: (socket) => {
          const pump = () => {
            while (written < 50 * 1024 * 1024 && !socket.destroyed) {
              written += chunk.length;
              if (!socket.write(frame)) return void socket.once("drain", pump);
            }
            if (!socket.destroyed) socket.write("0\r\n\r\n");
          };
          pump();
        },
      },
    );
    cases++;
    expectSaneAnswer(res, "chunked 50 MB");
    expect(res.status).toBe(413);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  test("an oversized body announced with Expect: 100-continue gets its 413 at once, never 100 Continue", async () => {
    const head = (headers: string) =>
      `POST /v1/transcripts/bulk HTTP/1.1\r\nHost: x\r\nX-API-Key: ${server.keys.pro}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${50 * 1024 * 1024}\r\nExpect: 100-continue\r\n${headers}\r\n`;
    // Keep-alive and a client that waits for 100: the answer must still come, and close the connection.
    for (const headers of ["Connection: close\r\n", ""]) {
      const res = await rawRequest(port, head(headers), { timeoutMs: 5_000 });
      cases++;
      expect(res.raw).not.toContain("100 Continue");
      expectSaneAnswer(res, "Expect: 100-continue over the cap");
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).code).toBe("payload_too_large");
      expect(res.headers["connection"]).toBe("close");
      expect(res.ms).toBeLessThan(4_000);
    }
  });

  test("a body within the cap announced with Expect: 100-continue gets 100 Continue, then its answer", async () => {
    const body = JSON.stringify({ videoIds: [IDS.markup] });
    let continued = false;
    const res = await rawRequest(
      port,
      `POST /v1/transcripts/bulk HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${server.keys.pro}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
      {
        timeoutMs: 5_000,
        // The body goes only once the server asked for it.
        body: (socket) =>
          socket.once("data", (chunk: Buffer) => {
            continued = chunk.toString("latin1").startsWith("HTTP/1.1 100 Continue\r\n");
            socket.write(body);
          }),
      },
    );
    cases++;
    expect(continued).toBe(true);
    const final = parseResponse(res.raw.slice(res.raw.indexOf("\r\n\r\n") + 4), res.ms);
    expect(final.status).toBe(200);
    expect(JSON.parse(final.body)).toMatchObject({ requested: 1, found: 1 });
  });

  test("conflicting framing (Content-Length with Transfer-Encoding, two lengths) is refused as a 400 problem", async () => {
    for (const framing of [
      "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
      "Content-Length: 5\r\nContent-Length: 6\r\n",
      "Content-Length: -1\r\n",
      "Transfer-Encoding: gzip, chunked\r\n",
    ]) {
      const res = await rawRequest(port, `POST /v1/transcripts/bulk HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n${framing}\r\n{}`, { timeoutMs: 5_000 });
      cases++;
      expectSaneAnswer(res, framing);
      expect(res.status).toBe(400);
    }
  });

  test("a transfer coding other than chunked is 400 with a key too; a chunked body is read", async () => {
    const head = `POST /v1/transcripts/bulk HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${server.keys.pro}\r\nContent-Type: application/json\r\n`;
    const refused = await rawRequest(port, `${head}Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`, { timeoutMs: 5_000 });
    cases++;
    expectSaneAnswer(refused, "gzip, chunked");
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).detail).toBe("Only Transfer-Encoding: chunked is supported.");
    const body = JSON.stringify({ videoIds: ["dQw4w9WgXcQ"] });
    const read = await rawRequest(port, `${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`, { timeoutMs: 5_000 });
    cases++;
    expectSaneAnswer(read, "chunked");
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ requested: 1 });
  });

  test("the server is still serving after all of it", async () => {
    const res = await check({ method: "GET", target: "/v1/search?q=river", headers: { "X-API-Key": server.keys.pro } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).results.length).toBeGreaterThan(0);
    expect(server.logs.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });
});
