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
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hashKey } from "../../server/auth/api-key.js";
import { KEYS_DB_FILE, openKeyStore } from "../../server/auth/key-store.js";
import { IDS } from "../server/helpers/fixture-records.js";
import { call, expectProblem, postJson, type ApiResponse } from "../server/helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "../server/helpers/test-server.js";

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

describe("rate limits under concurrency", () => {
  test("two keys bursting 200 requests each at once get exactly 100 each", async () => {
    const a = server.keyStore.create({ plan: "pro" }).key;
    const b = server.keyStore.create({ plan: "free" }).key;
    const all = await Promise.all(Array.from({ length: 400 }, (_, i) => call(server.baseUrl, "/v1/stats", { key: i % 2 === 0 ? a : b })));
    const ok = (parity: number) => all.filter((r, i) => i % 2 === parity && r.status === 200).length;
    const limited = (parity: number) => all.filter((r, i) => i % 2 === parity && r.status === 429).length;
    expect([ok(0), limited(0), ok(1), limited(1)]).toEqual([100, 100, 100, 100]);
  });
});
