/** limit/offset parsing, clamping and the edges of pages, for search and channel listings. */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CHANNEL_A, RIVER_VIDEO_COUNT } from "./helpers/fixture-records.js";
import { call, expectProblem, paramsOf } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;
/** Channel A: the river videos, the markup one and the silent one. */
const CHANNEL_A_VIDEOS = RIVER_VIDEO_COUNT + 2;
const RIVER_HITS = RIVER_VIDEO_COUNT + 1;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

const get = (path: string) => call(server.baseUrl, path, { key: server.keys.pro });
const ids = (items: { videoId: string }[]) => items.map((i) => i.videoId);

describe.each([
  { route: "search", path: (q: string) => `/v1/search?q=river${q}`, items: "results", total: RIVER_HITS },
  { route: "channel videos", path: (q: string) => `/v1/channels/${CHANNEL_A}/videos${q.replace(/^&/, "?")}`, items: "videos", total: CHANNEL_A_VIDEOS },
])("pagination of $route", ({ path, items, total }) => {
  test("defaults to limit 20 and offset 0", async () => {
    const res = await get(path(""));
    expect(res.body.pagination).toMatchObject({ limit: 20, offset: 0, total, hasMore: false });
    expect(res.body[items]).toHaveLength(total);
  });

  test("clamps a limit above 100 to 100 and reports the applied limit", async () => {
    for (const limit of ["101", "1000", "999999999"]) {
      const res = await get(path(`&limit=${limit}`));
      expect(res.status).toBe(200);
      expect(res.body.pagination.limit).toBe(100);
    }
  });

  test("walks the pages without gaps or repeats, with hasMore false on the last", async () => {
    const all = ids((await get(path("&limit=100"))).body[items]);
    const seen: string[] = [];
    for (let offset = 0; offset < total; offset += 3) {
      const res = await get(path(`&limit=3&offset=${offset}`));
      expect(res.body.pagination).toMatchObject({ limit: 3, offset, total, hasMore: offset + 3 < total });
      seen.push(...ids(res.body[items]));
    }
    expect(seen).toEqual(all);
  });

  test("returns an empty page with hasMore false for an offset past the end", async () => {
    const res = await get(path(`&offset=${total + 5}`));
    expect(res.status).toBe(200);
    expect(res.body[items]).toEqual([]);
    expect(res.body.pagination).toMatchObject({ offset: total + 5, total, hasMore: false });
  });

  test("accepts the deep-pagination cap itself and refuses one more", async () => {
    expect((await get(path("&offset=10000"))).status).toBe(200);
    const res = await get(path("&offset=10001"));
    expectProblem(res, 400, "invalid_parameter");
    expect(paramsOf(res)).toEqual(["offset"]);
  });

  test.each(["0", "-1", "1.5", "NaN", "", "abc", "1e2", "0x10", " 5"])("refuses limit=%j", async (limit) => {
    const res = await get(path(`&limit=${encodeURIComponent(limit)}`));
    expectProblem(res, 400, "invalid_parameter");
    expect(paramsOf(res)).toEqual(["limit"]);
  });

  test.each(["-1", "2.5", "x"])("refuses offset=%j", async (offset) => {
    const res = await get(path(`&offset=${offset}`));
    expectProblem(res, 400, "invalid_parameter");
    expect(paramsOf(res)).toEqual(["offset"]);
  });

  test("refuses a duplicated limit or offset", async () => {
    expect(paramsOf(await get(path("&limit=2&limit=2")))).toEqual(["limit"]);
    expect(paramsOf(await get(path("&offset=0&offset=1")))).toEqual(["offset"]);
  });
});

describe("search parameters", () => {
  test("accepts q of exactly 500 characters after trimming", async () => {
    const q = `river ${"a".repeat(494)}`;
    const res = await get(`/v1/search?q=${encodeURIComponent(`  ${q}  `)}`);
    expect(res.status).toBe(200);
    expect(res.body.query).toBe(q);
  });

  test("refuses minViews that is negative or fractional and accepts 0", async () => {
    expect((await get("/v1/search?q=river&minViews=0")).body.pagination.total).toBe(RIVER_HITS);
    expect(paramsOf(await get("/v1/search?q=river&minViews=-5"))).toEqual(["minViews"]);
    expect(paramsOf(await get("/v1/search?q=river&minViews=2.5"))).toEqual(["minViews"]);
  });

  test("refuses parameters it does not define, naming each", async () => {
    const res = await get("/v1/search?q=river&_=123&utm_source=x");
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { param: "_", message: "is not a parameter of this endpoint" },
      { param: "utm_source", message: "is not a parameter of this endpoint" },
    ]);
  });
});
