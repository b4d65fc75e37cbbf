/** Who may call what: 401 for identity problems, 403 for entitlement ones, checked on every request. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { IDS } from "./helpers/fixture-records.js";
import { call, expectProblem, postJson } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let now = Date.parse("2030-06-01T12:00:00Z");
let artifacts: Artifacts;
let server: TestServer;
let freeBulkServer: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, clock: () => now, env: { ACCESS_LOG: "on" } });
  freeBulkServer = await startTestServer({ artifacts, env: { BULK_PLANS: "free, pro" } });
});
afterAll(async () => {
  await server.close();
  await freeBulkServer.close();
  artifacts.cleanup();
});

describe("API keys", () => {
  test("a free key can use every endpoint except bulk", async () => {
    for (const path of ["/v1/stats", "/v1/search?q=river", `/v1/transcript/${IDS.markup}`, "/v1/channels/UCaaaaaaaaaaaaaaaaaaaaaa/videos"]) {
      expect((await call(server.baseUrl, path, { key: server.keys.free })).status).toBe(200);
    }
    const bulk = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.free, { videoIds: [IDS.markup] });
    expectProblem(bulk, 403, "plan_required");
    expect(bulk.body.requiredPlans).toEqual(["pro"]);
    expect((await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, { videoIds: [IDS.markup] })).status).toBe(200);
  });

  test("BULK_PLANS decides which plans may use bulk", async () => {
    const res = await postJson(freeBulkServer.baseUrl, "/v1/transcripts/bulk", freeBulkServer.keys.free, { videoIds: [IDS.markup] });
    expect(res.status).toBe(200);
  });

  test("a key stops working the moment it is revoked", async () => {
    const { key, record } = server.keyStore.create({ plan: "pro", name: "short-lived" });
    expect((await call(server.baseUrl, "/v1/stats", { key })).status).toBe(200);
    server.keyStore.revoke(record.keyId);
    expectProblem(await call(server.baseUrl, "/v1/stats", { key }), 401, "invalid_api_key");
  });

  test("a key with an expiry works until then and gets 403 subscription_expired after", async () => {
    const { key } = server.keyStore.create({ plan: "pro", expiresAt: "2030-06-01T12:00:30.000Z" });
    expect((await call(server.baseUrl, "/v1/stats", { key })).status).toBe(200);
    now += 30_000;
    const expired = await call(server.baseUrl, "/v1/stats", { key });
    expectProblem(expired, 403, "subscription_expired");
    expect(expired.headers.get("x-ratelimit-limit")).toBe("100");
  });

  test("a key that differs from a valid one in its secret is invalid", async () => {
    const key = server.keys.pro;
    const tampered = `${key.slice(0, -2)}${key.endsWith("AA") ? "BB" : "AA"}`;
    expectProblem(await call(server.baseUrl, "/v1/stats", { key: tampered }), 401, "invalid_api_key");
  });

  test("the key reaches no log line, which carries the keyId instead", async () => {
    await call(server.baseUrl, "/v1/stats", { key: server.keys.pro, headers: { "X-Request-Id": "log-check" } });
    const text = server.logs.join("");
    for (const key of Object.values(server.keys)) expect(text).not.toContain(key);
    const keyId = server.keys.pro.split("_")[1];
    const line = server.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === "log-check");
    expect(line).toMatchObject({ msg: "request", method: "GET", path: "/v1/stats", status: 200, keyId });
    expect(Object.keys(line).sort()).toEqual(["keyId", "level", "method", "ms", "msg", "path", "requestId", "status", "time"]);
  });

  test("the access log records the path without the query string", async () => {
    await call(server.baseUrl, "/v1/search?q=secret-query", { key: server.keys.pro, headers: { "X-Request-Id": "log-query" } });
    const line = server.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === "log-query");
    expect(line.path).toBe("/v1/search");
    expect(server.logs.join("")).not.toContain("secret-query");
  });
});

describe("the key as Authorization: Bearer", () => {
  const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

  test("is accepted on REST as X-API-Key is, and counts in the same window", async () => {
    const viaHeader = await call(server.baseUrl, "/v1/stats", { key: server.keys.pro });
    const viaBearer = await call(server.baseUrl, "/v1/stats", { headers: bearer(server.keys.pro) });
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body).toEqual(viaHeader.body);
    expect(Number(viaBearer.headers.get("x-ratelimit-remaining"))).toBe(Number(viaHeader.headers.get("x-ratelimit-remaining")) - 1);
    expect((await call(server.baseUrl, "/v1/search?q=river", { headers: { Authorization: `bearer  ${server.keys.pro}` } })).status).toBe(200);
    const bulk = await call(server.baseUrl, "/v1/transcripts/bulk", {
      method: "POST",
      headers: { ...bearer(server.keys.pro), "Content-Type": "application/json" },
      body: JSON.stringify({ videoIds: [IDS.markup] }),
    });
    expect(bulk.status).toBe(200);
  });

  test("has the same refusals: 401 invalid or revoked, 403 expired or plan, 401 missing with a challenge naming both ways", async () => {
    expectProblem(await call(server.baseUrl, "/v1/stats", { headers: bearer("tsk_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") }), 401, "invalid_api_key");
    expectProblem(await call(server.baseUrl, "/v1/stats", { headers: bearer(server.keys.revoked) }), 401, "invalid_api_key");
    expectProblem(await call(server.baseUrl, "/v1/stats", { headers: bearer(server.keys.expired) }), 403, "subscription_expired");
    const free = await call(server.baseUrl, "/v1/transcripts/bulk", {
      method: "POST",
      headers: { ...bearer(server.keys.free), "Content-Type": "application/json" },
      body: JSON.stringify({ videoIds: [IDS.markup] }),
    });
    expectProblem(free, 403, "plan_required");
    const without: Record<string, string>[] = [{}, { Authorization: `Basic ${server.keys.pro}` }, { Authorization: "Bearer " }];
    for (const headers of without) {
      const missing = await call(server.baseUrl, "/v1/stats", { headers });
      expectProblem(missing, 401, "missing_api_key");
      expect(missing.body.detail).toBe("Send your API key in the X-API-Key header or as Authorization: Bearer.");
      expect(missing.headers.get("www-authenticate")).toBe('ApiKey header="X-API-Key", Bearer');
    }
  });

  test("beside X-API-Key: the same key passes, another scheme is left to whom it is for, a different key is 400 conflicting_api_keys", async () => {
    expect((await call(server.baseUrl, "/v1/stats", { key: server.keys.pro, headers: bearer(server.keys.pro) })).status).toBe(200);
    // A proxy's own Basic credentials do not stand in the way of the key.
    expect((await call(server.baseUrl, "/v1/stats", { key: server.keys.pro, headers: { Authorization: "Basic dXNlcjpwYXNz" } })).status).toBe(200);
    for (const [header, authorization] of [
      [server.keys.pro, server.keys.free],
      [server.keys.pro, "tsk_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
      [server.keys.revoked, server.keys.pro],
    ] as const) {
      const conflict = await call(server.baseUrl, "/v1/stats", { key: header, headers: bearer(authorization) });
      expectProblem(conflict, 400, "conflicting_api_keys");
      expect(conflict.body.detail).toBe("X-API-Key and Authorization: Bearer carry different keys; send the key once.");
      // Refused before any key is taken: not counted.
      expect(conflict.headers.get("x-ratelimit-limit")).toBeNull();
      for (const key of Object.values(server.keys)) expect(JSON.stringify(conflict.body)).not.toContain(key);
    }
  });
});
