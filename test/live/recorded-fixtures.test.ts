/**
 * Live fetch through the API over the real YouTube responses recorded in June
 * 2025 (the folder YOUTUBE_RECORDINGS_DIR names; skipped without it): each
 * recording maps to its outcome and status, tracks chosen as documented. The
 * same over the project's own fixtures runs in every run: fixtures.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandin } from "../../scripts/youtube-standin/server.js";
import { describeRecorded, recordingsDir } from "../helpers/recordings.js";
import { call, expectProblem } from "../server/helpers/http.js";
import { upstreamCorpus } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

let server: LiveServer;

const get = (path: string) => call(server.baseUrl, path, { key: server.key });

describeRecorded("recorded YouTube responses through the live fetch", () => {
  beforeAll(async () => {
    const standin = await startStandin({ corpus: upstreamCorpus(), ...(recordingsDir === undefined ? {} : { recordingsDir }) });
    try {
      server = await startLiveServer({ standin });
    } catch (error) {
      await standin.close();
      throw error;
    }
  });
  afterAll(async () => {
    await server?.close();
    await server?.standin.close();
  });

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
  });
});
