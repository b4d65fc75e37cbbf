/**
 * API keys at rest and in transit: keys.db holds only hashes, no response or
 * log line ever carries a key (wherever the client puts it), a key revoked
 * through another connection to keys.db (as the keys CLI does) stops at once,
 * and rate limits stay exact and separate when two keys burst at once.
 * (test/server/auth.test.ts and rate-limit.test.ts cover the single-key cases.)
 */
import Database from "better-sqlite3";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hashKey } from "../../server/auth/api-key.js";
import { KEYS_DB_FILE, openKeyStore } from "../../server/auth/key-store.js";
import { redactKeys } from "../../server/http/log-path.js";
import { IDS } from "../server/helpers/fixture-records.js";
import { call, expectProblem, postJson, type ApiResponse } from "../server/helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "../server/helpers/test-server.js";
import { rawRequest } from "./helpers/raw-http.js";
import { roomInThisMinute } from "../helpers/rate-window.js";

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, env: { ACCESS_LOG: "on", LOG_LEVEL: "debug", MAX_CONNECTIONS_PER_CLIENT: "1024" } });
});
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
});

const secretOf = (key: string) => key.split("_").slice(2).join("_");

describe("keys at rest", () => {
  test("keys.db and its WAL hold the sha256 of each key and never the key or its secret", () => {
    const files = readdirSync(server.config.dataDir).filter((f) => f.startsWith(KEYS_DB_FILE));
    expect(files).toContain(KEYS_DB_FILE);
    const bytes = files.map((f) => readFileSync(path.join(server.config.dataDir, f)).toString("latin1")).join("");
    for (const key of Object.values(server.keys)) {
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(secretOf(key));
    }
    const db = new Database(path.join(server.config.dataDir, KEYS_DB_FILE), { readonly: true });
    try {
      const rows = db.prepare("SELECT key_id, hash FROM api_keys").all() as { key_id: string; hash: Buffer }[];
      const byId = new Map(rows.map((r) => [r.key_id, r.hash]));
      for (const key of Object.values(server.keys)) {
        const hash = byId.get(key.split("_")[1] as string);
        expect(hash?.length).toBe(32);
        expect(hash?.equals(hashKey(key))).toBe(true);
      }
    } finally {
      db.close();
    }
  });
});

describe("keys in transit", () => {
  test("no response header or body and no log line carries a key, wherever the client puts it", async () => {
    const { pro, revoked, expired, free } = server.keys;
    const responses: ApiResponse[] = [];
    const get = async (p: string, headers: Record<string, string>) => responses.push(await call(server.baseUrl, p, { headers }));
    for (const key of [pro, revoked, expired, free, `${pro.slice(0, -1)}x`]) {
      await get("/v1/stats", { "X-API-Key": key });
      await get(`/v1/search?q=river&api_key=${key}&channel=${key}`, { "X-API-Key": key });
      await get(`/v1/transcript/${encodeURIComponent(key)}`, { "X-API-Key": key });
      await get(`/v1/transcript/${IDS.markup}?lang=${key}`, { "X-API-Key": key });
      await get("/v1/nope", { "X-API-Key": key, "X-Request-Id": key });
      await get("/v1/stats", { Authorization: `Bearer ${key}`, "X-Request-Id": key });
      responses.push(await postJson(server.baseUrl, "/v1/transcripts/bulk", key, { videoIds: [key], [key]: key }));
      responses.push(await postJson(server.baseUrl, "/v1/transcripts/bulk", key, { videoIds: [IDS.markup], lang: key }));
    }
    expect(responses.length).toBe(40);
    const logs = server.logs.join("");
    expect(logs.length).toBeGreaterThan(0);
    for (const key of Object.values(server.keys)) {
      for (const res of responses) {
        expect(JSON.stringify(res.body) ?? "").not.toContain(secretOf(key));
        expect(JSON.stringify([...res.headers.entries()])).not.toContain(secretOf(key));
      }
      for (const line of server.logs) expect(line.includes(secretOf(key)) ? line : "").toBe("");
    }
  });

  test("a key revoked through another connection to keys.db (the keys CLI) is refused on the very next request", async () => {
    const { key, record } = server.keyStore.create({ plan: "pro", name: "cli-revoked" });
    expect((await call(server.baseUrl, "/v1/stats", { key })).status).toBe(200);
    const cli = openKeyStore({ dataDir: server.config.dataDir });
    try {
      expect(cli.revoke(record.keyId)).toBe(true);
    } finally {
      cli.close();
    }
    expectProblem(await call(server.baseUrl, "/v1/stats", { key }), 401, "invalid_api_key");
  });

  test("a key expired through another connection is refused on the very next request", async () => {
    const { key, record } = server.keyStore.create({ plan: "pro", name: "cli-expired" });
    expect((await call(server.baseUrl, "/v1/stats", { key })).status).toBe(200);
    const db = new Database(path.join(server.config.dataDir, KEYS_DB_FILE));
    try {
      db.prepare("UPDATE api_keys SET expires_at = ? WHERE key_id = ?").run(new Date(Date.now() - 1_000).toISOString(), record.keyId);
    } finally {
      db.close();
    }
    expectProblem(await call(server.baseUrl, "/v1/stats", { key }), 403, "subscription_expired");
  });
});

/** A character percent-encoded `depth` times (`_` → `%5F` → `%255F` …), in lower- or upper-case hex. */
function encodeTimes(char: string, depth: number, lower: boolean): string {
  let out = char;
  for (let i = 0; i < depth; i++) {
    out = [...out].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
    if (!lower) out = out.toUpperCase();
  }
  return out;
}

/**
 * A key as a client might spell it: either one character encoded (`tsk%5F…`,
 * which leaves the secret readable) or each character encoded 0 to 3 times.
 */
const spelledKey = (key: string): fc.Arbitrary<string> =>
  fc
    .record({
      depths: fc.array(fc.constantFrom(0, 0, 1, 2, 3), { minLength: key.length, maxLength: key.length }),
      lower: fc.array(fc.boolean(), { minLength: key.length, maxLength: key.length }),
      single: fc.option(fc.record({ at: fc.nat(key.length - 1), depth: fc.integer({ min: 1, max: 3 }) })),
    })
    .map(({ depths, lower, single }) =>
      [...key].map((c, i) => encodeTimes(c, single === null ? depths[i]! : i === single.at ? single.depth : 0, lower[i]!)).join(""),
    );

/** Undoes percent-encoding until none is left (written independently of the server's decoder). */
function decodeFully(text: string): string {
  for (;;) {
    const next = text.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === text) return text;
    text = next;
  }
}

/** Text a key may sit between in a path or a query: separators, `+`, encoded spaces, other words. */
const around = fc.constantFrom("", "x", "+", "%20", "%2B", "a+b+", "%2F", "-", "%25", "word%20");

describe("keys in the log, in any encoding", () => {
  test("a real key percent-encoded at random in a path or a query never reaches the log, nor does its secret", async () => {
    const { key } = server.keyStore.create({ plan: "pro", name: "encoded" });
    const secret = secretOf(key);
    const port = Number(new URL(server.baseUrl).port);
    const before = server.logs.length;
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        spelledKey(key),
        around,
        around,
        fc.constantFrom("/v1/transcript/", "/v1/", "/", "/v1/channels/", "/v1/search/"),
        fc.boolean(),
        fc.constantFrom("", key, `req-${key}`, `${key.toUpperCase()}-1`, `a${key}b`),
        async (spelled, before, after, prefix, inQuery, requestId) => {
          const target = inQuery ? `/v1/search?q=${before}${spelled}${after}&lang=${spelled}` : `${prefix}${before}${spelled}${after}`;
          const res = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n${requestId ? `X-Request-Id: ${requestId}\r\n` : ""}Connection: close\r\n\r\n`);
          expect(res.status).toBeGreaterThanOrEqual(200);
          sent++;
        },
      ),
      { numRuns: 150, seed: 23 },
    );
    // Each request wrote its access-log line (closing the connection finishes it just before the socket closes).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = server.logs.slice(before);
    expect(lines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(sent);
    for (const line of lines) {
      const decoded = decodeFully(line);
      expect(decoded.includes(key) ? line : "").toBe("");
      expect(decoded.includes(secret) ? line : "").toBe("");
    }
    // The redaction kept the key id, so the line still says whose key leaked.
    expect(lines.some((l) => l.includes(`tsk_${key.split("_")[1]}_[redacted]`))).toBe(true);
  });
});

describe("redactKeys", () => {
  test("no spelling of a key between random text survives it, however deep the encoding", () => {
    const { key } = server.keyStore.create({ plan: "free", name: "redact-unit" });
    const secret = secretOf(key);
    fc.assert(
      fc.property(fc.string(), spelledKey(key), fc.string(), (before, spelled, after) => {
        const logged = decodeFully(redactKeys(`${before}${spelled}${after}`));
        expect(logged).not.toContain(secret);
      }),
      { numRuns: 2000, seed: 23 },
    );
    // `_` encoded twelve times: each round of decoding takes one level off.
    const deep = key.replace("_", encodeTimes("_", 12, false));
    expect(deep.length).toBeGreaterThan(12_000);
    expect(decodeFully(redactKeys(`/v1/${deep}`))).not.toContain(secret);
    expect(redactKeys("/v1/search%2Fplain%20text")).toBe("/v1/search%2Fplain%20text");
  });
});

describe("rate limits under concurrency", () => {
  test("two keys bursting 200 requests each at once get exactly 100 each", async () => {
    const a = server.keyStore.create({ plan: "pro" }).key;
    const b = server.keyStore.create({ plan: "free" }).key;
    await roomInThisMinute();
    const all = await Promise.all(Array.from({ length: 400 }, (_, i) => call(server.baseUrl, "/v1/stats", { key: i % 2 === 0 ? a : b })));
    const ok = (parity: number) => all.filter((r, i) => i % 2 === parity && r.status === 200).length;
    const limited = (parity: number) => all.filter((r, i) => i % 2 === parity && r.status === 429).length;
    expect([ok(0), limited(0), ok(1), limited(1)]).toEqual([100, 100, 100, 100]);
  });
});
