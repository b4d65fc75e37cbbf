/** The OpenAPI document is served without a key, is plausible OpenAPI 3.1, and lists every route with its schemas. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROUTES } from "../../server/routes/route-table.js";
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
  test("is an OpenAPI 3.1 document with info, the API-key scheme and components", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(typeof doc.info.title).toBe("string");
    expect(typeof doc.info.version).toBe("string");
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  test("lists every route of the route table under its method", () => {
    const listed = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = ROUTES.map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, "{$1}")}`);
    expect(listed.sort()).toEqual(expected.sort());
    expect(listed).toEqual(
      expect.arrayContaining([
        "GET /v1/search",
        "GET /v1/transcript/{videoId}",
        "POST /v1/transcripts/bulk",
        "GET /v1/channels/{channelId}/videos",
        "GET /v1/stats",
        "GET /healthz",
        "GET /readyz",
        "GET /v1/openapi.json",
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
    expect(Object.keys(byName).sort()).toEqual(["channel", "limit", "minViews", "offset", "q"]);
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

  test("documents the bulk body as the client sends it, with defaults optional", () => {
    const body = doc.components.schemas.BulkRequest;
    expect(body.required).toEqual(["videoIds"]);
    expect(body.properties.videoIds).toMatchObject({ type: "array", minItems: 1, maxItems: 100 });
    expect(body.properties.fetchMissing).toMatchObject({ type: "boolean", default: true });
    expect(body.additionalProperties).toBe(false);
  });

  test("marks /healthz, /readyz and the document itself as needing no key, and every other route with 401, 403 and 429", () => {
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(ops)) {
        if (path === "/healthz" || path === "/readyz" || path === "/v1/openapi.json") {
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
