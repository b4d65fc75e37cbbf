/** Arbitrary input never produces a 500 or echoes itself back: every answer is 200/404 or a well-formed 400. */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, expectProblem, postJson } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "1000000" } });
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

/** Long enough that finding it in a response means it was echoed, not a coincidence. */
const marker = fc.stringMatching(/^[A-Za-z]{12}$/).map((s) => `zq${s}`);

describe("arbitrary query strings", () => {
  test("search answers 200 or a 400 problem, never 500, and never echoes bad parameters", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          q: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
          limit: fc.option(fc.oneof(fc.string({ maxLength: 6 }), fc.integer().map(String)), { nil: undefined }),
          offset: fc.option(fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: -5, max: 20_000 }).map(String)), { nil: undefined }),
          channel: fc.option(marker, { nil: undefined }),
          minViews: fc.option(fc.oneof(fc.string({ maxLength: 6 }), fc.double().map(String)), { nil: undefined }),
        }),
        async (params) => {
          const query = new URLSearchParams();
          for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
          const res = await call(server.baseUrl, `/v1/search?${query}`, { key: server.keys.pro });
          if (res.status === 200) {
            expect(res.body.pagination.limit).toBeLessThanOrEqual(100);
            return;
          }
          expectProblem(res, 400, "invalid_parameter");
          if (params.channel !== undefined) expect(JSON.stringify(res.body)).not.toContain(params.channel);
        },
      ),
      { numRuns: 150 },
    );
  });

  test("transcript lookups answer 200, 404 or a 400 problem for any path segment and lang", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 14 }), fc.string({ maxLength: 12 }), async (id, lang) => {
        const res = await call(server.baseUrl, `/v1/transcript/${encodeURIComponent(id)}?lang=${encodeURIComponent(lang)}`, {
          key: server.keys.pro,
        });
        expect([200, 400, 404]).toContain(res.status);
        if (res.status !== 200) expect(res.headers.get("content-type")).toBe("application/problem+json");
      }),
      { numRuns: 150 },
    );
  });
});

describe("arbitrary bulk bodies", () => {
  test("any JSON value answers 200 or a 400 problem, never 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.jsonValue(),
          fc.record({ videoIds: fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.jsonValue()), { maxLength: 5 }) }, { requiredKeys: [] }),
          fc.record({ videoIds: fc.array(fc.stringMatching(/^[A-Za-z0-9_-]{11}$/), { minLength: 1, maxLength: 5 }), fetchMissing: fc.jsonValue() }),
        ),
        async (body) => {
          const res = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, body);
          if (res.status === 200) return;
          expect(res.status).toBe(400);
          expect(["invalid_parameter", "invalid_json", "too_many_video_ids"]).toContain(res.body.code);
        },
      ),
      { numRuns: 150 },
    );
  });
});
