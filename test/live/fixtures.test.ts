/**
 * Live fetch through the API against the stand-in: every recorded fixture
 * maps to its outcome and status, tracks are chosen as documented, a miss is
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

describe("recorded fixtures through GET /v1/transcript", () => {
  it("GJLlxj_dtq8 yields the English manual track with the recorded text, fetched live", async () => {
    const res = await get("/v1/transcript/GJLlxj_dtq8");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      videoId: "GJLlxj_dtq8",
      title: "Surface Go Review - It’s Awesome",
      channelTitle: "Dave2D",
      channelId: "UCVYamHliCI9rw1tHR1xbkfw",
      viewCount: 1856109,
      // Stored the way the artifact set stores dates (toISOString).
      publishedAt: "2018-08-02T13:00:08.000Z",
      cached: false,
      debug: { method: "innertube-android", usedProxy: false },
    });
    expect(res.body.transcript).toMatchObject({ languageCode: "en", language: "English", isGenerated: false, wordCount: 20 });
    expect(res.body.transcript.script).toBe(
      "Hey, this is just a test this is not the original transcript just something shorter, I made up for testing",
    );
    expect(res.body.transcript.subs).toEqual([
      { text: "Hey, this is just a test", offset: "0", duration: "1.54" },
      { text: "this is not the original transcript", offset: "1.54", duration: "4.16" },
      { text: "just something shorter, I made up for testing", offset: "5.7", duration: "3.239" },
    ]);
  });

  it("lang=de of GJLlxj_dtq8 gives its German manual track, and lang=fr the documented fallback: a translation", async () => {
    const german = await get("/v1/transcript/GJLlxj_dtq8?lang=de");
    expect(german.body).toMatchObject({ cached: false, transcript: { languageCode: "de", language: "German", isGenerated: false } });
    expect(german.body.transcript.script).toContain("German caption track");
    const french = await get("/v1/transcript/GJLlxj_dtq8?lang=fr");
    expect(french.body.transcript).toMatchObject({ languageCode: "fr", language: "French", isGenerated: true });
    expect(french.body.transcript.script).toMatch(/^\[fr\] This is the Chinese caption track/);
    // Both languages are now stored beside the English one.
    expect((await get("/v1/transcript/GJLlxj_dtq8?lang=de")).body.cached).toBe(true);
    expect((await get("/v1/transcript/GJLlxj_dtq8")).body.cached).toBe(true);
  });

  it("the ww1 fixture gives English, translates into Dutch, and lists its tracks for a language it cannot give", async () => {
    expect((await get("/v1/transcript/fx_ww1_nlen")).body.transcript).toMatchObject({ languageCode: "en", isGenerated: false });
    const dutch = await get("/v1/transcript/fx_ww1_nlen?lang=nl");
    expect(dutch.body.transcript).toMatchObject({ languageCode: "nl", language: "Dutch", isGenerated: true });
    expect(dutch.body.transcript.script).toMatch(/^\[nl\] This is the English caption track/);
    const missing = await get("/v1/transcript/fx_ww1_nlen?lang=xx");
    expectProblem(missing, 404, "language_not_available");
    expect(missing.body.availableLanguages).toEqual(["en"]);
  });

  it("matches language codes exactly: en-GB is not en, and the problem lists every language YouTube has", async () => {
    const res = await get("/v1/transcript/GJLlxj_dtq8?lang=en-GB");
    expectProblem(res, 404, "language_not_available");
    expect(res.body.availableLanguages).toEqual(["zh", "cs", "en", "de", "hi", "ja", "ko", "es"]);
  });

  it("the second recording of the same video is served like the first", async () => {
    const res = await get("/v1/transcript/fx_altered_");
    expect(res.body.transcript.subs[0].text).toBe("Hey, this is just a test");
  });

  it.each([
    ["fx_age_rstr", 403, "age_restricted", null],
    ["fx_botcheck", 502, "request_blocked", "60"],
    ["fx_unavail_", 404, "video_unavailable", null],
    ["fx_unplayab", 404, "unplayable", null],
    ["fx_nocaps_1", 404, "transcripts_disabled", null],
    ["fx_nocaps_2", 404, "transcripts_disabled", null],
    ["fx_potoken_", 502, "po_token_required", null],
  ])("%s answers %i %s", async (videoId, status, code, retryAfter) => {
    const res = await get(`/v1/transcript/${videoId}`);
    expectProblem(res, status, code);
    expect(res.headers.get("retry-after")).toBe(retryAfter);
    if (code === "transcripts_disabled") expect(res.body.availableLanguages).toEqual([]);
  });

  it("fx_potoken_ still serves a language whose track needs no token", async () => {
    expect((await get("/v1/transcript/fx_potoken_?lang=de")).body.transcript.languageCode).toBe("de");
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
    const first = await get("/v1/transcript/fx_nocaps_1?lang=ja");
    expectProblem(first, 404, "transcripts_disabled");
    const calls = upstreamCalls();
    const again = await get("/v1/transcript/fx_nocaps_1?lang=ja");
    expectProblem(again, 404, "transcripts_disabled");
    expectProblem(await get("/v1/transcript/fx_nocaps_1?lang=en"), 404, "transcripts_disabled");
    expect(upstreamCalls()).toBe(calls);
    expect(server.runtime.fetcher?.stats.negativeHits).toBeGreaterThanOrEqual(2);
  });

  it("remembers a missing language for that language only", async () => {
    expectProblem(await get("/v1/transcript/fx_ww1_nlen?lang=xx"), 404, "language_not_available");
    const calls = upstreamCalls();
    const again = await get("/v1/transcript/fx_ww1_nlen?lang=xx");
    expect(again.body.availableLanguages).toEqual(["en"]);
    expect(upstreamCalls()).toBe(calls);
    expect((await get("/v1/transcript/fx_ww1_nlen?lang=de")).body.transcript.languageCode).toBe("de");
    expect(upstreamCalls()).toBeGreaterThan(calls);
  });
});

describe("bulk with fetchMissing", () => {
  it("fetches missing ids through the same fetcher and counts them in fetched", async () => {
    const ids = [fresh(2).videoId, STORED.videoId, fresh(3).videoId, "fx_unavail_"];
    const res = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.key, { videoIds: ids });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requested: 4, found: 3, fetched: 2 });
    expect(res.body.transcripts.map((t: { videoId: string; cached: boolean }) => [t.videoId, t.cached])).toEqual([
      [fresh(2).videoId, false],
      [STORED.videoId, true],
      [fresh(3).videoId, false],
    ]);
    expect(res.body.errors).toEqual([{ videoId: "fx_unavail_", code: "video_unavailable", detail: expect.any(String) }]);
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
