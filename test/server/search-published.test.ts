/**
 * GET /v1/search and the MCP tool search_transcripts with publishedAfter and
 * publishedBefore, against a real server on port 0 over a real artifact set
 * and a live store: hits from both published in the range, bounds
 * inclusive, undated videos left out, the tool answering as REST does, and
 * every bad value a 400 naming the parameter.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { UNKNOWN_PUBLISHED_AT } from "../../pipeline/youtube/video-record.js";
import { CHANNEL_A, fixtureRecords } from "./helpers/fixture-records.js";
import { call, expectProblem, paramsOf } from "./helpers/http.js";
import { startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

/** A "river" video of channel A, published at `publishedAt`. */
function river(videoId: string, publishedAt: string): VideoRecord {
  return {
    videoId,
    channelId: CHANNEL_A,
    channelTitle: "Alpha Lectures",
    title: `Fetched river talk ${videoId}`,
    viewCount: 4000,
    publishedAt,
    thumbnail: `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`,
    lengthSeconds: 60,
    transcripts: [{ language: "English", languageCode: "en", isGenerated: false, segments: [{ start: 0, duration: 5, text: "a river seen from the bridge" }] }],
  };
}

/** In the artifact set: the fixtures' river videos (2021-01-11 to 2021-01-16, and 2021-01-31), and one with no date. */
const SET_UNDATED = "setundated1";
/** In the live store: two dated river videos and one with no date. */
const LIVE = { early: river("liveearly01", "2022-03-01T00:00:00Z"), late: river("livelate001", "2022-03-01T23:59:59Z"), undated: river("liveundated", UNKNOWN_PUBLISHED_AT) };

let artifacts: Artifacts;
let server: TestServer;
let client: Client;
/** Every "river" video's date, by id. */
const published = new Map<string, string>();

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), "published-artifacts-"));
  const dir = path.join(root, "current");
  const records = [...fixtureRecords(), river(SET_UNDATED, UNKNOWN_PUBLISHED_AT)];
  const { manifest } = await buildArtifacts({ records, outDir: dir, dataset: "test" });
  artifacts = { dir, manifest, cleanup: () => rmSync(root, { recursive: true, force: true }) };
  server = await startTestServer({ artifacts, live: true, env: { RATE_LIMIT_PER_MINUTE: "100000" } });
  for (const record of Object.values(LIVE)) server.catalog.storeLive(record);
  for (const record of [...records, ...Object.values(LIVE)]) published.set(record.videoId, new Date(record.publishedAt).toISOString());
  client = new Client({ name: "published-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { "X-API-Key": server.keys.pro } } }));
  await client.listTools();
}, 60_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
  artifacts?.cleanup();
});

const search = (query: string) => call(server.baseUrl, `/v1/search?q=river&limit=100&${query}`, { key: server.keys.pro });
const ids = (body: { results: { videoId: string }[] }) => body.results.map((r) => r.videoId).sort();
const tool = (args: Record<string, unknown>) => client.callTool({ name: "search_transcripts", arguments: { q: "river", limit: 100, ...args } }) as Promise<CallToolResult>;

describe("GET /v1/search with publishedAfter and publishedBefore", () => {
  it("finds in both the artifact set and the live store only what was published in the range", async () => {
    const all = await search("");
    expect(all.status).toBe(200);
    // Unfiltered, the undated videos and both sources are there.
    expect(ids(all.body)).toEqual(expect.arrayContaining([SET_UNDATED, LIVE.undated.videoId, LIVE.early.videoId, "river000000"]));
    for (const [after, before] of [
      ["2021-01-12", "2021-01-14"],
      ["2021-01-15", "2022-03-01"],
      ["2021-01-01T00:00:00Z", "2022-02-28T23:59:59Z"],
      ["2022-01-01", undefined],
      [undefined, "2021-01-13"],
    ] as const) {
      const query = [after && `publishedAfter=${encodeURIComponent(after)}`, before && `publishedBefore=${encodeURIComponent(before)}`].filter(Boolean).join("&");
      const res = await search(query);
      expect(res.status, query).toBe(200);
      const from = after === undefined ? "" : new Date(after.length === 10 ? `${after}T00:00:00Z` : after).toISOString();
      const to = before === undefined ? "\uffff" : before.length === 10 ? `${before}T23:59:59.999Z` : new Date(before).toISOString();
      const expected = ids(all.body).filter((id) => published.get(id)! > "1970-01-01T00:00:00.000Z" && published.get(id)! >= from && published.get(id)! <= to);
      expect(ids(res.body), query).toEqual(expected);
      expect(res.body.pagination.total).toBe(expected.length);
    }
  });

  it("includes both bounds: a day from its start to its end, a date-time at its instant, in any offset", async () => {
    expect(ids((await search("publishedAfter=2022-03-01&publishedBefore=2022-03-01")).body)).toEqual([LIVE.late.videoId, LIVE.early.videoId].sort());
    expect(ids((await search("publishedAfter=2022-03-01T23:59:59Z")).body)).toEqual([LIVE.late.videoId]);
    expect(ids((await search("publishedBefore=2022-03-01T00:00:00Z&publishedAfter=2022-03-01T00:00:00Z")).body)).toEqual([LIVE.early.videoId]);
    expect(ids((await search(`publishedAfter=${encodeURIComponent("2022-03-01T01:59:59+02:00")}&publishedBefore=${encodeURIComponent("2022-03-01T01:59:59+02:00")}`)).body)).toEqual([]);
    expect(ids((await search(`publishedAfter=${encodeURIComponent("2022-03-02T01:59:59+02:00")}`)).body)).toEqual([LIVE.late.videoId]);
    // The fixtures' river000001 is published on 2021-01-12 at midnight UTC.
    expect(ids((await search("publishedAfter=2021-01-12&publishedBefore=2021-01-12")).body)).toEqual(["river000001"]);
    expect(ids((await search("publishedAfter=2021-01-12T00:00:00.001Z&publishedBefore=2021-01-12")).body)).toEqual([]);
  });

  it("leaves out videos whose date is unknown whenever a date filter is set", async () => {
    for (const query of ["publishedAfter=0000-01-01", "publishedBefore=9999-12-31", "publishedAfter=1970-01-01&publishedBefore=1970-01-01"]) {
      const found = ids((await search(query)).body);
      expect(found, query).not.toContain(SET_UNDATED);
      expect(found, query).not.toContain(LIVE.undated.videoId);
    }
  });

  it("refuses a value that is not a date or an RFC 3339 date-time, and a range that ends before it starts, with 400 naming the parameter", async () => {
    for (const [query, param] of [
      ["publishedAfter=yesterday", "publishedAfter"],
      ["publishedBefore=2024-02-30", "publishedBefore"],
      ["publishedAfter=2024-13-01", "publishedAfter"],
      ["publishedAfter=2024-05-01T12:00:00", "publishedAfter"],
      ["publishedBefore=2024-05-01T25:00:00Z", "publishedBefore"],
      ["publishedBefore=", "publishedBefore"],
      ["publishedAfter=20240501", "publishedAfter"],
      [`publishedAfter=${"9".repeat(5000)}`, "publishedAfter"],
      ["publishedAfter=2024-05-02&publishedBefore=2024-05-01", "publishedAfter"],
      ["publishedAfter=2024-05-01T12:00:01Z&publishedBefore=2024-05-01T12:00:00Z", "publishedAfter"],
    ] as const) {
      const res = await search(query);
      expectProblem(res, 400, "invalid_parameter");
      expect(paramsOf(res), query.slice(0, 80)).toEqual([param]);
    }
    // Repeated, as every query parameter.
    expectProblem(await search("publishedAfter=2024-01-01&publishedAfter=2024-01-02"), 400, "invalid_parameter");
  });
});

describe("search_transcripts with publishedAfter and publishedBefore", () => {
  it("answers what GET /v1/search answers", async () => {
    const cases: Record<string, string>[] = [{ publishedAfter: "2021-01-12", publishedBefore: "2021-01-14" }, { publishedAfter: "2022-03-01T00:00:00+00:00" }, { publishedBefore: "2021-01-31" }];
    for (const args of cases) {
      const result = await tool(args);
      expect(result.isError ?? false).toBe(false);
      const rest = await search(new URLSearchParams(args).toString());
      expect(result.structuredContent, JSON.stringify(args)).toEqual(rest.body);
      expect(rest.body.results.length).toBeGreaterThan(0);
    }
  });

  it("refuses bad dates as REST does, naming the argument", async () => {
    for (const [args, param] of [
      [{ publishedAfter: "last week" }, "publishedAfter"],
      [{ publishedBefore: 20240501 }, "publishedBefore"],
      [{ publishedAfter: "2024-05-02", publishedBefore: "2024-05-01" }, "publishedAfter"],
    ] as const) {
      const result = await tool(args);
      expect(result.isError).toBe(true);
      const problem = JSON.parse((result.content[0] as { text: string }).text) as { status: number; code: string; errors: { param: string }[] };
      expect(problem).toMatchObject({ status: 400, code: "invalid_parameter" });
      expect(problem.errors.map((e) => e.param)).toEqual([param]);
    }
  });

  it("lists the date filters in the tool's input schema, with their descriptions", async () => {
    const { tools } = await client.listTools();
    const properties = tools.find((t) => t.name === "search_transcripts")!.inputSchema.properties as Record<string, { description?: string }>;
    expect(properties.publishedAfter?.description).toMatch(/inclusive/i);
    expect(properties.publishedBefore?.description).toMatch(/unknown/i);
  });
});
