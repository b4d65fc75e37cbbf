/**
 * Every endpoint's success shape, field by field, against SPEC.md and the
 * response schemas the OpenAPI document is generated from.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ChannelVideosResponseSchema } from "../../server/routes/channel-videos.js";
import { HealthSchema } from "../../server/routes/health.js";
import { SearchResponseSchema } from "../../server/routes/search.js";
import { StatsSchema } from "../../server/routes/stats.js";
import { VideoSchema } from "../../server/routes/transcript-body.js";
import { BulkResponseSchema } from "../../server/routes/transcripts-bulk.js";
import { CHANNEL_A, CHANNEL_B, IDS, MARKUP_TEXT, RIVER_VIDEO_COUNT } from "./helpers/fixture-records.js";
import { call, postJson } from "./helpers/http.js";
import { buildFixtureArtifacts, startTestServer, type Artifacts, type TestServer } from "./helpers/test-server.js";

let artifacts: Artifacts;
let server: TestServer;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

beforeAll(async () => {
  artifacts = await buildFixtureArtifacts();
  server = await startTestServer({ artifacts });
});
afterAll(async () => {
  await server.close();
  artifacts.cleanup();
});

const get = (path: string) => call(server.baseUrl, path, { key: server.keys.pro });

describe("GET /v1/search", () => {
  test("returns query, results and pagination with exactly the spec's fields and types", async () => {
    const res = await get("/v1/search?q=%20river%20&limit=3");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(Object.keys(res.body).sort()).toEqual(["pagination", "query", "results"]);
    expect(res.body.query).toBe("river");
    expect(res.body.results).toHaveLength(3);
    for (const hit of res.body.results) {
      expect(Object.keys(hit).sort()).toEqual(["channelId", "channelTitle", "moments", "snippet", "startSeconds", "title", "url", "videoId", "viewCount", "wordCount"]);
      expect(hit.videoId).toMatch(/^[A-Za-z0-9_-]{11}$/);
      expect(typeof hit.title).toBe("string");
      expect(typeof hit.channelTitle).toBe("string");
      expect(Number.isInteger(hit.viewCount)).toBe(true);
      expect(Number.isInteger(hit.wordCount)).toBe(true);
      expect(hit.snippet).toContain("<mark>");
      expect(hit.snippet).toContain("</mark>");
    }
    expect(res.body.pagination).toEqual({ limit: 3, offset: 0, total: RIVER_VIDEO_COUNT + 1, hasMore: true, totalExact: true });
    SearchResponseSchema.parse(res.body);
  });

  test("returns snippets HTML-escaped so transcript markup cannot inject into a page", async () => {
    const res = await get("/v1/search?q=beware%20markup");
    const hit = res.body.results.find((h: { videoId: string }) => h.videoId === IDS.markup);
    expect(hit).toBeDefined();
    expect(hit.snippet).not.toContain("<script>");
    expect(hit.snippet).toContain("&lt;script&gt;");
    expect(hit.snippet).toContain("&amp;");
    expect(hit.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/<|>/);
    expect(hit.title).toBe("Markup <b>&</b> friends");
  });

  test("filters by channel and by minimum views", async () => {
    const byChannel = await get(`/v1/search?q=energy&channel=${CHANNEL_B}`);
    expect(byChannel.body.results.map((h: { videoId: string }) => h.videoId)).toEqual([IDS.chapters]);
    const none = await get(`/v1/search?q=river&channel=${CHANNEL_B}`);
    expect(none.body.results).toEqual([]);
    expect(none.body.pagination).toMatchObject({ total: 0, hasMore: false });
    const popular = await get("/v1/search?q=river&minViews=50000");
    expect(popular.body.results.map((h: { videoId: string }) => h.videoId)).toEqual([IDS.markup]);
  });
});

describe("GET /v1/transcript/:videoId", () => {
  test("returns the Video object with the transcript, cached, debug and timing, and no metadata by default", async () => {
    const res = await get(`/v1/transcript/${IDS.markup}`);
    expect(res.status).toBe(200);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual(
      ["cached", "channelId", "channelTitle", "debug", "publishedAt", "thumbnail", "timing", "title", "transcript", "videoId", "viewCount"].sort(),
    );
    expect(body.videoId).toBe(IDS.markup);
    expect(body.title).toBe("Markup <b>&</b> friends");
    expect(body.channelTitle).toBe("Alpha Lectures");
    expect(body.channelId).toBe(CHANNEL_A);
    expect(body.viewCount).toBe(90_000);
    expect(body.publishedAt).toMatch(ISO_UTC);
    expect(body.thumbnail).toBe(`https://i.ytimg.com/vi/${IDS.markup}/hqdefault.jpg`);
    expect(body.cached).toBe(true);
    expect(body.debug).toEqual({ method: "storage", usedProxy: false });
    expect(Object.keys(body.timing)).toEqual(["totalMs"]);
    expect(typeof body.timing.totalMs).toBe("number");
    expect(body.timing.totalMs).toBeGreaterThanOrEqual(0);

    const t = body.transcript;
    expect(Object.keys(t).sort()).toEqual(["duration", "isGenerated", "language", "languageCode", "script", "subs", "wordCount"]);
    expect(t.script).toBe(MARKUP_TEXT);
    expect(t.language).toBe("English");
    expect(t.languageCode).toBe("en");
    expect(t.wordCount).toBe(9);
    expect(t.isGenerated).toBe(false);
    expect(t.duration).toBe(5);
    expect(t.subs[0]).toEqual({ text: "beware <script>alert(1)</script> & other markup", offset: "0", duration: "2.5" });
    for (const sub of t.subs) {
      expect(typeof sub.offset).toBe("string");
      expect(typeof sub.duration).toBe("string");
      expect(sub.offset).toMatch(/^\d+(\.\d+)?$/);
    }
    expect(t.subs.map((s: { text: string }) => s.text).join(" ")).toBe(MARKUP_TEXT);
    VideoSchema.parse(body);
  });

  test("adds lengthSeconds, description, keywords, category and chapters with end times when includeMetadata=true", async () => {
    const res = await get(`/v1/transcript/${IDS.chapters}?includeMetadata=true`);
    expect(res.status).toBe(200);
    expect(res.body.lengthSeconds).toBe(300);
    expect(res.body.description).toBe("How plants store energy.");
    expect(res.body.keywords).toEqual(["plants", "energy"]);
    expect(res.body.category).toBe("Education");
    expect(res.body.chapters).toEqual([
      { title: "Intro", startSeconds: 0, endSeconds: 120 },
      { title: "Light", startSeconds: 120, endSeconds: 300 },
    ]);
    // The manual English track wins over the auto-generated one.
    expect(res.body.transcript.isGenerated).toBe(false);
    expect(res.body.transcript.script).toBe("photosynthesis turns light into chemical energy inside green plants");
    VideoSchema.parse(res.body);
  });

  test("reports metadata of a video without any as null or empty, and includeMetadata=false as absent", async () => {
    const res = await get(`/v1/transcript/${IDS.markup}?includeMetadata=true`);
    expect(res.body).toMatchObject({ lengthSeconds: 600, description: null, keywords: [], category: null, chapters: [] });
    const off = await get(`/v1/transcript/${IDS.markup}?includeMetadata=false`);
    expect(off.body).not.toHaveProperty("chapters");
    expect(off.body).not.toHaveProperty("lengthSeconds");
  });

  test("serves other languages by lang and marks the response cacheable for the caller only", async () => {
    const res = await get(`/v1/transcript/${IDS.chapters}?lang=es`);
    expect(res.status).toBe(200);
    expect(res.body.transcript).toMatchObject({ languageCode: "es", language: "Spanish", script: "energía de las plantas y la luz" });
    expect(res.headers.get("cache-control")).toBe("private, max-age=300");
    expect(res.headers.get("etag")).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
  });
});

describe("POST /v1/transcripts/bulk", () => {
  test("returns requested, found, fetched, transcripts, errors and timing with the documented item shapes", async () => {
    const res = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.keys.pro, { videoIds: [IDS.markup, IDS.chapters] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["errors", "fetched", "found", "requested", "timing", "transcripts"]);
    expect(res.body).toMatchObject({ requested: 2, found: 2, fetched: 0, errors: [] });
    const [first] = res.body.transcripts;
    expect(Object.keys(first).sort()).toEqual(["cached", "channelId", "channelTitle", "title", "transcript", "videoId"]);
    expect(first).toMatchObject({ videoId: IDS.markup, title: "Markup <b>&</b> friends", channelId: CHANNEL_A, channelTitle: "Alpha Lectures", cached: true });
    expect(first.transcript).toEqual({ script: MARKUP_TEXT, wordCount: 9, language: "English", languageCode: "en", isGenerated: false, duration: 5 });
    expect(typeof res.body.timing.totalMs).toBe("number");
    BulkResponseSchema.parse(res.body);
  });
});

describe("GET /v1/channels/:channelId/videos", () => {
  test("lists the channel's videos newest first with transcript metadata", async () => {
    const res = await get(`/v1/channels/${CHANNEL_B}/videos`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["channelId", "channelTitle", "pagination", "videos"]);
    expect(res.body.channelId).toBe(CHANNEL_B);
    expect(res.body.channelTitle).toBe("Beta Wissenschaft");
    expect(res.body.videos.map((v: { videoId: string }) => v.videoId)).toEqual([IDS.chapters, IDS.german]);
    for (const v of res.body.videos) {
      expect(Object.keys(v).sort()).toEqual(["hasTranscript", "publishedAt", "title", "transcript", "videoId", "viewCount"]);
      expect(v.publishedAt).toMatch(ISO_UTC);
      expect(Number.isInteger(v.viewCount)).toBe(true);
    }
    expect(res.body.videos[1].transcript).toEqual({ languageCode: "de", wordCount: 6, isGenerated: false });
    expect(res.body.pagination).toEqual({ limit: 20, offset: 0, total: 2, hasMore: false });
    ChannelVideosResponseSchema.parse(res.body);
  });

  test("reports a video without transcript with hasTranscript false and transcript null", async () => {
    const res = await get(`/v1/channels/${CHANNEL_A}/videos?limit=100`);
    const silent = res.body.videos.find((v: { videoId: string }) => v.videoId === IDS.silent);
    expect(silent).toMatchObject({ hasTranscript: false, transcript: null });
    const dates = res.body.videos.map((v: { publishedAt: string }) => v.publishedAt);
    expect([...dates].sort().reverse()).toEqual(dates);
  });
});

describe("GET /v1/stats and /healthz", () => {
  test("returns the statistics object with integer counts", async () => {
    const res = await get("/v1/stats");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ videos: 10, transcripts: 9, totalWords: expect.any(Number), avgWordsPerTranscript: expect.any(Number), channels: 2, transcriptsWithVectors: 0 });
    for (const value of Object.values(res.body)) expect(Number.isInteger(value)).toBe(true);
    StatsSchema.parse(res.body);
  });

  test("healthz answers without a key with status, builtAt and schemaVersion of the served set", async () => {
    const res = await call(server.baseUrl, "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", builtAt: artifacts.manifest.builtAt, schemaVersion: artifacts.manifest.schemaVersion });
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    HealthSchema.parse(res.body);
  });
});

describe("headers on every response", () => {
  test("carry the security headers, no-store outside transcripts and Vary: Accept-Encoding", async () => {
    for (const path of ["/v1/stats", "/healthz", "/v1/search?q=river", "/v1/nothing-here"]) {
      const res = await get(path);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
    }
  });

  test("echo a sane X-Request-Id and replace one that is too long or has odd characters", async () => {
    const sane = await call(server.baseUrl, "/healthz", { headers: { "X-Request-Id": "abc-123_XYZ" } });
    expect(sane.headers.get("x-request-id")).toBe("abc-123_XYZ");
    for (const bad of ["a".repeat(65), "has space", "semi;colon", "<script>"]) {
      const res = await call(server.baseUrl, "/healthz", { headers: { "X-Request-Id": bad } });
      const id = res.headers.get("x-request-id");
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  test("HEAD is served like GET without a body", async () => {
    const get = await call(server.baseUrl, `/v1/transcript/${IDS.markup}`, { key: server.keys.pro, headers: { "Accept-Encoding": "identity" } });
    const head = await call(server.baseUrl, `/v1/transcript/${IDS.markup}`, { key: server.keys.pro, method: "HEAD", headers: { "Accept-Encoding": "identity" } });
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect(head.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(100);
  });
});
