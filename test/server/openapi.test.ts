/** The OpenAPI document is served without a key, is plausible OpenAPI 3.1, and lists every route with its schemas. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { liveFetchProblems } from "../../server/live/upstream-problem.js";
import { ROUTES } from "../../server/app/route-table.js";
import { call } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;
let doc: any;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts });
  const res = await call(server.baseUrl, "/v1/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  doc = res.body;
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

/** Every $ref in the document, to check that each one resolves. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe("GET /v1/openapi.json", () => {
  test("is an OpenAPI 3.1 document with info, the two ways of sending the key (X-API-Key or Bearer) and components", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(typeof doc.info.title).toBe("string");
    expect(typeof doc.info.version).toBe("string");
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    // Either one: two requirement objects are alternatives.
    expect(doc.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    const stats = doc.paths["/v1/stats"].get.responses;
    expect(stats["400"].content["application/problem+json"].schema.allOf[1].properties.code.enum).toContain("conflicting_api_keys");
    expect(doc.components.headers["WWW-Authenticate"]?.description ?? stats["401"].headers["WWW-Authenticate"].description).toContain("Bearer");
  });

  test("lists every route of the route table under its method", () => {
    const listed = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    // /mcp speaks JSON-RPC and is described in docs/mcp.md, not here.
    const expected = ROUTES.filter((r) => r.ownProtocol !== true).map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, "{$1}")}`);
    expect(listed.sort()).toEqual(expected.sort());
    expect(listed).toEqual(
      expect.arrayContaining([
        "GET /v1/search",
        "GET /v1/transcript/{videoId}",
        "POST /v1/transcripts/bulk",
        "GET /v1/channels",
        "GET /v1/channels/{channelId}/videos",
        "GET /v1/stats",
        "GET /healthz",
        "GET /readyz",
        "GET /v1/openapi.json",
        "GET /",
        "GET /v1",
      ]),
    );
  });

  test("resolves every $ref", () => {
    for (const ref of refs(doc)) {
      const parts = ref.replace(/^#\//, "").split("/");
      let node: any = doc;
      for (const part of parts) node = node?.[part];
      expect(node, ref).toBeDefined();
    }
  });

  test("documents query parameters with their rules, generated from the validating schemas", () => {
    const params = doc.paths["/v1/search"].get.parameters as { name: string; in: string; required: boolean; schema: any }[];
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(["channel", "limit", "minViews", "mode", "offset", "publishedAfter", "publishedBefore", "q"]);
    expect(byName.mode).toMatchObject({ required: false, schema: { type: "string", enum: ["keyword", "semantic", "hybrid"], default: "keyword" } });
    // A date or a date-time, either documented with its format.
    expect(byName.publishedAfter).toMatchObject({ required: false, schema: { anyOf: [{ type: "string", format: "date" }, { type: "string", format: "date-time" }] } });
    expect((byName.publishedBefore as { description?: string } | undefined)?.description).toMatch(/inclusive/i);
    expect(byName.q).toMatchObject({ in: "query", required: true, schema: { type: "string", minLength: 1, maxLength: 500 } });
    expect(byName.limit).toMatchObject({ required: false, schema: { type: "integer", minimum: 1, default: 20 } });
    expect(byName.offset).toMatchObject({ schema: { type: "integer", minimum: 0, maximum: 10000, default: 0 } });
    expect(byName.channel?.schema.pattern).toBe("^UC[A-Za-z0-9_-]{22}$");
    const transcript = doc.paths["/v1/transcript/{videoId}"].get.parameters;
    expect(transcript.find((p: { name: string }) => p.name === "videoId")).toMatchObject({ in: "path", required: true });
    expect(transcript.find((p: { name: string }) => p.name === "includeMetadata").schema.enum).toEqual(["true", "false"]);
  });

  test("documents response schemas with the spec's fields", () => {
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.SearchHit.properties).sort()).toEqual(["channelId", "channelTitle", "moments", "snippet", "startSeconds", "title", "url", "videoId", "viewCount", "wordCount"]);
    expect(Object.keys(schemas.Transcript.properties).sort()).toEqual(["duration", "isGenerated", "language", "languageCode", "script", "subs", "wordCount"]);
    expect(schemas.Video.required).toEqual(expect.arrayContaining(["videoId", "transcript", "cached", "debug", "timing"]));
    expect(schemas.Video.required).not.toContain("chapters");
    expect(schemas.Problem.required).toEqual(expect.arrayContaining(["type", "title", "status", "detail", "code", "requestId"]));
    expect(doc.paths["/v1/stats"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Stats" });
  });

  test("documents the bulk body as the client sends it, inline, with defaults optional", () => {
    // Behind a $ref, openapi-typescript makes a field with a default required: the body is inlined instead.
    const body = doc.paths["/v1/transcripts/bulk"].post.requestBody.content["application/json"].schema;
    expect(body.$ref).toBeUndefined();
    expect(doc.components.schemas.BulkRequest).toBeUndefined();
    expect(body.required).toEqual(["videoIds"]);
    expect(body.properties.videoIds).toMatchObject({ type: "array", minItems: 1, maxItems: 100 });
    expect(body.properties.fetchMissing).toMatchObject({ type: "boolean", default: true });
    expect(body.additionalProperties).toBe(false);
  });

  test("gives every integer a real lower bound and none the safe-integer range", () => {
    const integers: { at: string; schema: any }[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`));
      else if (node !== null && typeof node === "object") {
        if ((node as { type?: unknown }).type === "integer") integers.push({ at, schema: node });
        for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
      }
    };
    walk(doc, "#");
    expect(integers.length).toBeGreaterThan(20);
    for (const { at, schema } of integers) {
      expect(typeof schema.minimum, `${at} has a minimum`).toBe("number");
      expect(Math.abs(schema.minimum), at).toBeLessThan(Number.MAX_SAFE_INTEGER);
      if (schema.maximum !== undefined) expect(schema.maximum, at).toBeLessThan(Number.MAX_SAFE_INTEGER);
    }
    expect(JSON.stringify(doc)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  test("has a license, tags, and a tag, summary and description on every operation", () => {
    expect(doc.info.license).toMatchObject({ name: expect.any(String) });
    const tagNames = (doc.tags as { name: string; description: string }[]).map((t) => t.name);
    expect(tagNames.length).toBeGreaterThan(1);
    for (const ops of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(ops)) {
        expect(op.tags).toHaveLength(1);
        expect(tagNames).toContain(op.tags[0]);
        expect(op.summary.length, op.operationId).toBeGreaterThan(10);
        expect(op.description.length, op.operationId).toBeGreaterThan(40);
      }
    }
    expect(doc.paths["/v1/search"].get.description).not.toMatch(/most-viewed first\./);
    expect(doc.paths["/v1/search"].get.description).toMatch(/BM25/);
  });

  test("lists on the transcript route every problem of the live-fetch table, with Retry-After where the table gives one", () => {
    const responses = doc.paths["/v1/transcript/{videoId}"].get.responses;
    const codesOf = (status: number): string[] =>
      responses[String(status)]?.content["application/problem+json"].schema.allOf[1].properties.code.enum ?? [];
    for (const problem of liveFetchProblems()) {
      expect(codesOf(problem.status), `${problem.status} ${problem.code}`).toContain(problem.code);
      if (problem.retryAfter) expect(responses[String(problem.status)].headers["Retry-After"], problem.code).toBeDefined();
    }
    expect(codesOf(502)).toEqual(expect.arrayContaining(["connection_failed", "request_blocked", "upstream_rate_limited"]));
    expect(codesOf(403)).toContain("age_restricted");
    expect(codesOf(404)).toEqual(expect.arrayContaining(["video_unavailable", "transcripts_disabled", "unplayable", "video_not_found"]));
    expect(responses["200"].headers.ETag.required).toBe(true);
    expect(responses["304"].headers.ETag.required).toBe(true);
    expect(responses["429"].headers["Retry-After"].required).toBe(true);
  });

  test("documents the rate-limit headers (X-RateLimit-*, and the IETF draft's RateLimit and RateLimit-Policy) on authenticated routes", () => {
    const search = doc.paths["/v1/search"].get.responses;
    for (const name of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy", "X-Request-Id", "Cache-Control", "Vary"]) {
      expect(search["200"].headers[name], name).toBeDefined();
    }
    expect(search["401"].headers["X-RateLimit-Limit"]).toBeUndefined();
    expect(search["401"].headers["WWW-Authenticate"].required).toBe(true);
    expect(doc.paths["/healthz"].get.responses["200"].headers["X-RateLimit-Limit"]).toBeUndefined();
  });

  test("marks the index (/ and /v1), /healthz, /readyz and the document itself as needing no key, and every other route with 401, 403 and 429", () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(ops)) {
        if (["/", "/v1", "/healthz", "/readyz", "/v1/openapi.json"].includes(path)) {
          expect(op.security).toEqual([]);
        } else {
          expect(op.security).toBeUndefined();
          expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "429", "500"]));
        }
      }
    }
  });

  test("documents the 503 of /healthz (unhealthy) and /readyz (not ready) with their own bodies", () => {
    expect(doc.paths["/healthz"].get.responses["503"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Health" });
    expect(doc.paths["/readyz"].get.responses["503"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Readiness" });
    expect(doc.components.schemas.Health.properties.status.enum).toEqual(["ok", "degraded", "unhealthy"]);
  });
});
