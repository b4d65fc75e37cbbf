/**
 * Live fetch through the API against the stand-in: every fixture video
 * (test/fixtures/youtube) maps to its outcome and status, tracks are chosen as documented, a miss is
 * stored and then served from storage and search, "no transcript" answers are
 * remembered, and bulk fetches missing ids through the same fetcher.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectProblem, postJson } from "../server/helpers/http.js";
import { CAPTIONED_STORED, LIVE_CHANNEL, PARTIAL_STORED, STORED, fresh } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer();
});
afterAll(() => server.close());

const get = (path: string) => call(server.baseUrl, path, { key: server.key });
const upstreamCalls = () => server.standin.stats.total;

describe("fixture videos through GET /v1/transcript", () => {
  it("fixtureOKAY yields the English manual track with the written text, fetched live", async () => {
    const res = await get("/v1/transcript/fixtureOKAY");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      videoId: "fixtureOKAY",
      title: "How to bake sourdough at home",
      channelTitle: "Fixture Bakery",
      channelId: "UCfixtureBakeryChannel01",
      viewCount: 48213,
      // Stored the way the artifact set stores dates (toISOString).
      publishedAt: "2024-03-05T17:30:00.000Z",
      cached: false,
      debug: { method: "innertube-android", usedProxy: false },
    });
    // Eleven words: "&" is not one.
    expect(res.body.transcript).toMatchObject({ languageCode: "en", language: "English", isGenerated: false, wordCount: 11 });
    expect(res.body.transcript.script).toBe("Today we're baking sourdough flour, water & salt that's all it takes");
    expect(res.body.transcript.subs).toEqual([
      { text: "Today we're baking sourdough", offset: "0.5", duration: "2.8" },
      { text: "flour, water & salt", offset: "3.3", duration: "3.1" },
      { text: "that's all it takes", offset: "6.9", duration: "0" },
    ]);
  });

  it("lang=de of fixtureOKAY gives its German manual track, and lang=fr the documented fallback: a translation", async () => {
    const german = await get("/v1/transcript/fixtureOKAY?lang=de");
    expect(german.body).toMatchObject({ cached: false, transcript: { languageCode: "de", language: "German", isGenerated: false } });
    expect(german.body.transcript.script).toContain("German caption track");
    const french = await get("/v1/transcript/fixtureOKAY?lang=fr");
    expect(french.body.transcript).toMatchObject({ languageCode: "fr", language: "French", isGenerated: true });
    expect(french.body.transcript.script).toMatch(/^\[fr\] This is the German caption track/);
    // Both languages are now stored beside the English one.
    expect((await get("/v1/transcript/fixtureOKAY?lang=de")).body.cached).toBe(true);
    expect((await get("/v1/transcript/fixtureOKAY")).body.cached).toBe(true);
  });

  it("matches language codes exactly: en-GB is not en, and the problem lists every language YouTube has", async () => {
    const res = await get("/v1/transcript/fixtureOKAY?lang=en-GB");
    expectProblem(res, 404, "language_not_available");
    expect(res.body.availableLanguages).toEqual(["de", "en"]);
  });

  it.each([
    ["fixtureAGED", 403, "age_restricted", null],
    ["fixtureBOTS", 502, "request_blocked", "60"],
    ["fixtureGONE", 404, "video_unavailable", null],
    ["fixtureUNPL", 404, "unplayable", null],
    ["fixtureNOCC", 404, "transcripts_disabled", null],
    ["fixtureNOTR", 404, "transcripts_disabled", null],
    ["fixturePOTK", 502, "po_token_required", null],
    ["fixtureJUNK", 502, "upstream_unparsable", null],
    ["fixtureNODT", 502, "upstream_unparsable", null],
  ])("%s answers %i %s", async (videoId, status, code, retryAfter) => {
    const res = await get(`/v1/transcript/${videoId}`);
    expectProblem(res, status, code);
    expect(res.headers.get("retry-after")).toBe(retryAfter);
    if (code === "transcripts_disabled") expect(res.body.availableLanguages).toEqual([]);
  });

  it("fixturePOTK still serves a language whose track needs no token", async () => {
    expect((await get("/v1/transcript/fixturePOTK?lang=de")).body.transcript.languageCode).toBe("de");
  });

  it("a malformed id never reaches YouTube", async () => {
    const before = upstreamCalls();
    expectProblem(await get("/v1/transcript/short"), 400, "invalid_video_id");
    expect(upstreamCalls()).toBe(before);
  });
});

describe("a miss, then a hit", () => {
  it("is fetched live (cached false, innertube-android), then served from storage (cached true, storage)", async () => {
    const id = fresh(0).videoId;
    const first = await get(`/v1/transcript/${id}`);
    expect(first.body).toMatchObject({ videoId: id, cached: false, debug: { method: "innertube-android", usedProxy: false } });
    const calls = upstreamCalls();
    const second = await get(`/v1/transcript/${id}?includeMetadata=true`);
    expect(second.body).toMatchObject({ videoId: id, cached: true, debug: { method: "storage", usedProxy: false } });
    expect(second.body.transcript).toEqual(first.body.transcript);
    expect(second.body.chapters.map((c: { title: string }) => c.title)).toEqual(["Ingredients", "Mixing", "Baking"]);
    expect(upstreamCalls()).toBe(calls);
  });

  it("the fetched video is found by /v1/search at once, and counted in /v1/stats and its channel", async () => {
    const before = (await get("/v1/stats")).body;
    const id = fresh(1).videoId;
    expect((await get("/v1/search?q=quokka1")).body.results).toEqual([]);
    expect((await get(`/v1/transcript/${id}`)).status).toBe(200);
    const search = await get("/v1/search?q=quokka1");
    expect(search.body.results.map((r: { videoId: string }) => r.videoId)).toEqual([id]);
    expect(search.body.results[0].snippet).toContain("<mark>quokka1</mark>");
    const after = (await get("/v1/stats")).body;
    expect(after.transcripts).toBe(before.transcripts + 1);
    const channel = await get(`/v1/channels/${LIVE_CHANNEL}/videos?limit=100`);
    expect(channel.body.videos.map((v: { videoId: string }) => v.videoId)).toContain(id);
  });
});

describe("stored videos without the wanted transcript", () => {
  it("a language the stored copy lacks is fetched live; the stored one still comes from storage", async () => {
    const calls = upstreamCalls();
    const stored = await get(`/v1/transcript/${PARTIAL_STORED.videoId}?lang=de`);
    expect(stored.body).toMatchObject({ cached: true, debug: { method: "storage" } });
    expect(upstreamCalls()).toBe(calls);
    const english = await get(`/v1/transcript/${PARTIAL_STORED.videoId}?lang=en`);
    expect(english.body).toMatchObject({ cached: false, transcript: { languageCode: "en", script: "magma rises through the crust of the volcano" } });
    expect((await get(`/v1/transcript/${PARTIAL_STORED.videoId}?lang=en`)).body.cached).toBe(true);
  });

  it("a video stored without any transcript is fetched live when YouTube now has one", async () => {
    const res = await get(`/v1/transcript/${CAPTIONED_STORED.videoId}`);
    expect(res.body).toMatchObject({ cached: false, transcript: { languageCode: "en", isGenerated: true } });
  });
});

describe("the negative cache", () => {
  it("answers a repeated request for a video without transcripts without asking YouTube again", async () => {
    const first = await get("/v1/transcript/fixtureNOCC?lang=ja");
    expectProblem(first, 404, "transcripts_disabled");
    const calls = upstreamCalls();
    const again = await get("/v1/transcript/fixtureNOCC?lang=ja");
    expectProblem(again, 404, "transcripts_disabled");
    expectProblem(await get("/v1/transcript/fixtureNOCC?lang=en"), 404, "transcripts_disabled");
    expect(upstreamCalls()).toBe(calls);
    expect(server.runtime.fetcher?.stats.negativeHits).toBeGreaterThanOrEqual(2);
  });

  it("remembers a missing language for that language only", async () => {
    expectProblem(await get("/v1/transcript/fixtureOKAY?lang=xx"), 404, "language_not_available");
    const calls = upstreamCalls();
    const again = await get("/v1/transcript/fixtureOKAY?lang=xx");
    expect(again.body.availableLanguages).toEqual(["de", "en"]);
    expect(upstreamCalls()).toBe(calls);
    // Dutch is not stored yet: a translation, fetched live.
    expect((await get("/v1/transcript/fixtureOKAY?lang=nl")).body.transcript.languageCode).toBe("nl");
    expect(upstreamCalls()).toBeGreaterThan(calls);
  });
});

describe("bulk with fetchMissing", () => {
  it("fetches missing ids through the same fetcher and counts them in fetched", async () => {
    const ids = [fresh(2).videoId, STORED.videoId, fresh(3).videoId, "fixtureGONE"];
    const res = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.key, { videoIds: ids });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requested: 4, found: 3, fetched: 2 });
    expect(res.body.transcripts.map((t: { videoId: string; cached: boolean }) => [t.videoId, t.cached])).toEqual([
      [fresh(2).videoId, false],
      [STORED.videoId, true],
      [fresh(3).videoId, false],
    ]);
    expect(res.body.errors).toEqual([{ videoId: "fixtureGONE", code: "video_unavailable", detail: expect.any(String) }]);
    const again = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.key, { videoIds: ids.slice(0, 3) });
    expect(again.body).toMatchObject({ found: 3, fetched: 0 });
  });

  it("leaves missing ids alone when fetchMissing is false", async () => {
    const calls = upstreamCalls();
    const res = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.key, { videoIds: [fresh(4).videoId], fetchMissing: false });
    expect(res.body).toMatchObject({ found: 0, fetched: 0, errors: [{ code: "not_fetched" }] });
    expect(upstreamCalls()).toBe(calls);
  });
});
