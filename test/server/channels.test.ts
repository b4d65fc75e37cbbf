/**
 * GET /v1/channels over a real server and a real artifact set: every indexed
 * channel with its counts, most transcripts first, paged as the other lists
 * are, and counts that agree with /v1/stats and each channel's video list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHANNEL_A, CHANNEL_B, fixtureRecords } from "./helpers/fixture-records.js";
import { call, expectProblem, paramsOf } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts });
});
afterAll(async () => {
  await server?.close();
  artifacts?.cleanup();
});

const get = (path: string) => call(server.baseUrl, path, { key: server.keys.pro });

/** Each channel of the fixture records, counted from the records themselves. */
function expectedChannels() {
  const byId = new Map<string, { channelId: string; title: string; videoCount: number; transcriptCount: number }>();
  for (const record of fixtureRecords()) {
    const channel = byId.get(record.channelId) ?? { channelId: record.channelId, title: record.channelTitle, videoCount: 0, transcriptCount: 0 };
    channel.videoCount++;
    if (record.transcripts.length > 0) channel.transcriptCount++;
    byId.set(record.channelId, channel);
  }
  return [...byId.values()];
}

describe("GET /v1/channels", () => {
  it("lists every channel with its title, video count and transcript count, most transcripts first", async () => {
    const res = await get("/v1/channels");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = expectedChannels().sort((a, b) => b.transcriptCount - a.transcriptCount || (a.channelId < b.channelId ? -1 : 1));
    expect(expected.map((c) => c.channelId)).toEqual([CHANNEL_A, CHANNEL_B]);
    expect(res.body).toEqual({ channels: expected, pagination: { limit: 20, offset: 0, total: 2, hasMore: false } });
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("pages with limit and offset as the channel's video list does", async () => {
    const first = await get("/v1/channels?limit=1");
    const second = await get("/v1/channels?limit=1&offset=1");
    const beyond = await get("/v1/channels?offset=5");
    expect(first.body.channels.map((c: { channelId: string }) => c.channelId)).toEqual([CHANNEL_A]);
    expect(first.body.pagination).toEqual({ limit: 1, offset: 0, total: 2, hasMore: true });
    expect(second.body.channels.map((c: { channelId: string }) => c.channelId)).toEqual([CHANNEL_B]);
    expect(second.body.pagination).toEqual({ limit: 1, offset: 1, total: 2, hasMore: false });
    expect(beyond.body).toEqual({ channels: [], pagination: { limit: 20, offset: 5, total: 2, hasMore: false } });
    expect((await get("/v1/channels?limit=1000")).body.pagination.limit).toBe(100);
  });

  it("counts what /v1/stats counts, and each channel's videos as its video list does", async () => {
    const { channels, pagination } = (await get("/v1/channels?limit=100")).body;
    const stats = (await get("/v1/stats")).body;
    expect(pagination.total).toBe(stats.channels);
    expect(channels.reduce((sum: number, c: { videoCount: number }) => sum + c.videoCount, 0)).toBe(stats.videos);
    expect(channels.reduce((sum: number, c: { transcriptCount: number }) => sum + c.transcriptCount, 0)).toBe(stats.transcripts);
    for (const channel of channels) {
      const videos = (await get(`/v1/channels/${channel.channelId}/videos?limit=100`)).body;
      expect(videos.pagination.total).toBe(channel.videoCount);
      expect(videos.channelTitle).toBe(channel.title);
      expect(videos.videos.filter((v: { hasTranscript: boolean }) => v.hasTranscript)).toHaveLength(channel.transcriptCount);
    }
  });

  it("refuses bad paging and unknown parameters with invalid_parameter naming each", async () => {
    const paging = await get("/v1/channels?limit=0&offset=-1");
    expectProblem(paging, 400, "invalid_parameter");
    expect(paramsOf(paging).sort()).toEqual(["limit", "offset"]);
    const unknown = await get("/v1/channels?sort=title");
    expectProblem(unknown, 400, "invalid_parameter");
    expect(paramsOf(unknown)).toEqual(["sort"]);
  });

  it("wants a key, like every /v1 route", async () => {
    expectProblem(await call(server.baseUrl, "/v1/channels"), 401, "missing_api_key");
  });
});
