/**
 * GET / and GET /v1: a JSON index, without a key, pointing to the reference,
 * the OpenAPI document, the API and the MCP endpoint, and listing the
 * operations of the OpenAPI document; every link it gives is served.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, expectProblem } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts });
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

describe("GET /", () => {
  test("answers 200 without a key: a JSON index pointing to /docs, /v1/openapi.json, /v1 and /mcp", async () => {
    const res = await call(server.baseUrl, "/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    expect(res.body).toMatchObject({
      name: "Transcript Retrieval Service",
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      docs: "/docs",
      openapi: "/v1/openapi.json",
      api: "/v1",
      mcp: "/mcp",
      auth: expect.stringContaining("Authorization: Bearer"),
    });
  });

  test("every link it gives is served: the page, the document, the index of /v1, and POST /mcp with a key", async () => {
    const { body } = await call(server.baseUrl, "/");
    const docs = await fetch(`${server.baseUrl}${body.docs}`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect((await call(server.baseUrl, body.openapi)).body.openapi).toBe("3.1.0");
    const mcp = await call(server.baseUrl, body.mcp, {
      method: "POST",
      key: server.keys.pro,
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(200);
    expect(mcp.body.result.tools.length).toBeGreaterThan(0);
  });

  test("lists each operation of the OpenAPI document and POST /mcp, saying which need a key", async () => {
    const { body } = await call(server.baseUrl, "/");
    const openapi = (await call(server.baseUrl, "/v1/openapi.json")).body;
    const documented = Object.entries(openapi.paths as Record<string, Record<string, { summary: string; security?: unknown[] }>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary, key: op.security === undefined })),
    );
    expect(body.endpoints).toEqual([...documented, { method: "POST", path: "/mcp", summary: expect.any(String), key: true }]);
    expect(body.endpoints).toEqual(expect.arrayContaining([{ method: "GET", path: "/v1/search", summary: expect.any(String), key: true }]));
    expect(body.endpoints).toEqual(expect.arrayContaining([{ method: "GET", path: "/", summary: expect.any(String), key: false }]));
  });

  test("GET /v1 answers the same index; HEAD has no body; other methods are 405; unknown parameters 400; other paths still 404", async () => {
    const root = await call(server.baseUrl, "/");
    const v1 = await call(server.baseUrl, "/v1");
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(root.body);
    const head = await fetch(`${server.baseUrl}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await call(server.baseUrl, "/", { method: "POST" });
    expectProblem(post, 405, "method_not_allowed");
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expectProblem(await call(server.baseUrl, "/?verbose=1"), 400, "invalid_parameter");
    expectProblem(await call(server.baseUrl, "/v2"), 404, "route_not_found");
    // A key that is not valid does not matter where none is needed.
    expect((await call(server.baseUrl, "/v1", { key: "tsk_nope" })).status).toBe(200);
  });
});
