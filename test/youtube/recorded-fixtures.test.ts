/**
 * The client over real YouTube responses recorded in June 2025 (the folder
 * YOUTUBE_RECORDINGS_DIR names; skipped without it). The same outcomes over
 * the project's own fixtures run in every run: fixture-videos.test.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { YouTubeError, type YouTubeClient } from "../../pipeline/youtube/index.js";
import { parseTimedtext } from "../../pipeline/youtube/timedtext.js";
import { describeRecorded, recordingsDir } from "../helpers/recordings.js";
import { BREAD } from "./helpers/records.js";
import { useHarness, type StandinHarness } from "./helpers/setup.js";

let harness: StandinHarness;
let client: YouTubeClient;

describeRecorded("recorded YouTube responses", () => {
  useHarness(
    (started) => {
      harness = started;
      client = started.client();
    },
    recordingsDir === undefined ? {} : { recordingsDir },
  );

  async function failure(videoId: string, languages = ["en"]): Promise<YouTubeError> {
    const error = await client.fetchTranscript(videoId, { languages }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(YouTubeError);
    return error as YouTubeError;
  }

  describe("recorded video GJLlxj_dtq8", () => {
    it("yields the English manual track, not the auto-generated one, with the recorded text cleaned", async () => {
      const result = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["en"] });
      const [track] = result.record.transcripts;
      expect(result.record.transcripts).toHaveLength(1);
      expect(track).toMatchObject({ languageCode: "en", language: "English", isGenerated: false });
      expect(track?.segments).toEqual([
        { start: 0, duration: 1.54, text: "Hey, this is just a test" },
        { start: 1.54, duration: 4.16, text: "this is not the original transcript" },
        { start: 5.7, duration: 3.239, text: "just something shorter, I made up for testing" },
      ]);
      expect(result.method).toBe("innertube-android");
      expect(result.usedProxy).toBe(false);
      expect(result.availableLanguages.map((l) => `${l.languageCode}${l.isGenerated ? "*" : ""}`)).toEqual([
        "zh", "cs", "en", "en*", "de", "hi", "ja", "ko", "es",
      ]);
    });

    it("takes metadata from videoDetails and the publish date from the WEB page, in UTC", async () => {
      const { record } = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["en"] });
      expect(record).toMatchObject({
        videoId: "GJLlxj_dtq8",
        title: "Surface Go Review - It’s Awesome",
        channelId: "UCVYamHliCI9rw1tHR1xbkfw",
        channelTitle: "Dave2D",
        channelHandle: "@Dave2D",
        viewCount: 1856109,
        lengthSeconds: 316,
        publishedAt: "2018-08-02T13:00:08Z",
        thumbnail: "https://i.ytimg.com/vi/GJLlxj_dtq8/sddefault.jpg",
      });
      expect(record.keywords).toContain("Surface Go");
      expect(record.description).toMatch(/^Dave2D review of the Microsoft Surface Go/);
      expect(record.category).toBeUndefined();
    });

    it("adds the category when metadata is asked for", async () => {
      const { record } = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["en"], includeMetadata: true });
      expect(record.category).toBe("Science & Technology");
    });

    it("never stores the signed caption URL", async () => {
      const { record } = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["en"] });
      expect(JSON.stringify(record)).not.toMatch(/signature=|expire=|timedtext/);
    });

    it("makes exactly one watch, one player and one timedtext request", async () => {
      await client.fetchTranscript("GJLlxj_dtq8", { languages: ["en"] });
      expect(harness.standin.stats.byVideo["GJLlxj_dtq8"]).toEqual({ watch: 1, player: 1, timedtext: 1 });
    });

    it("gives the German manual track for languages [\"de\"]", async () => {
      const manual = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["en"] });
      const german = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["de"] });
      expect(german.record.transcripts[0]).toMatchObject({ languageCode: "de", language: "German", isGenerated: false });
      expect(german.record.transcripts[0]?.segments[0]?.text).toContain("German");
      expect(german.record.transcripts[0]?.segments[0]?.text).not.toEqual(manual.record.transcripts[0]?.segments[0]?.text);
    });

    it("serves its auto-generated English track with a text different from the manual one", async () => {
      const url = (kind: string) => `${harness.standin.origin}/api/timedtext?v=GJLlxj_dtq8&lang=en${kind}`;
      const manual = await (await fetch(url(""))).text();
      const generated = await (await fetch(url("&kind=asr"))).text();
      expect(manual).toContain("Hey, this is just a test");
      expect(generated).toContain("auto generated english");
      expect(generated).not.toContain("Hey, this is just a test");
    });

    it("walks the requested languages in order", async () => {
      const result = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["pt", "ko", "en"] });
      expect(result.record.transcripts[0]?.languageCode).toBe("ko");
    });

    it("translates the first translatable track with tlang when no requested language has a track", async () => {
      const result = await client.fetchTranscript("GJLlxj_dtq8", { languages: ["fr"] });
      expect(result.record.transcripts[0]).toMatchObject({ languageCode: "fr", language: "French", isGenerated: true });
      // The stand-in marks translations; the first translatable track of this video is Chinese.
      expect(result.record.transcripts[0]?.segments[0]?.text).toMatch(/^\[fr\] This is the Chinese caption track/);
    });

    it("matches language codes exactly", async () => {
      const error = await failure("GJLlxj_dtq8", ["en-GB"]);
      expect(error.code).toBe("language_not_available");
      expect(error.availableLanguages?.map((l) => l.languageCode)).toContain("en");
    });
  });

  describe("recorded error fixtures", () => {
    it.each([
      ["fx_age_rstr", "age_restricted", "permanent"],
      ["fx_botcheck", "request_blocked", "blocked"],
      ["fx_unavail_", "video_unavailable", "permanent"],
      ["fx_unplayab", "unplayable", "permanent"],
      ["fx_nocaps_1", "transcripts_disabled", "permanent"],
      ["fx_nocaps_2", "transcripts_disabled", "permanent"],
      ["fx_potoken_", "po_token_required", "permanent"],
    ])("video %s fails with %s", async (videoId, code, kind) => {
      const error = await failure(videoId);
      expect(error.code).toBe(code);
      expect(error.kind).toBe(kind);
    });

    it("reports the reason and every sub-reason of an unplayable video", async () => {
      const error = await failure("fx_unplayab");
      expect(error.reason).toBe("Custom Reason");
      expect(error.subreasons).toEqual(["Sub Reason 1", "Sub Reason 2"]);
    });

    it("does not request the timedtext of a track that needs a proof-of-origin token", async () => {
      await failure("fx_potoken_");
      expect(harness.standin.stats.byVideo["fx_potoken_"]?.timedtext ?? 0).toBe(0);
    });

    it("still serves a track without the token requirement from the same video", async () => {
      const result = await client.fetchTranscript("fx_potoken_", { languages: ["de"] });
      expect(result.record.transcripts[0]?.languageCode).toBe("de");
    });

    it("retries a bot check with exponential backoff and gives up after maxBlockedRetries", async () => {
      harness.sleeps.length = 0;
      await failure("fx_botcheck");
      expect(harness.standin.stats.byVideo["fx_botcheck"]?.player).toBe(3);
      // Base 1000 ms doubled per retry, plus 25 % jitter from random() = 0.5.
      expect(harness.sleeps).toEqual([1250, 2500]);
    });

    it("serves the second recording of the same video like the first", async () => {
      const result = await client.fetchTranscript("fx_altered_", { languages: ["en"] });
      expect(result.record.transcripts[0]?.segments[0]?.text).toBe("Hey, this is just a test");
    });
  });

  describe("recorded video with English tracks only (ww1_nl_en)", () => {
    it("gives the English manual track for English", async () => {
      const result = await client.fetchTranscript("fx_ww1_nlen", { languages: ["en"] });
      expect(result.record.transcripts[0]).toMatchObject({ languageCode: "en", isGenerated: false });
      expect(result.record.channelTitle).toBe("The Great War");
    });

    it("translates English into Dutch, named from translationLanguages and counted as generated", async () => {
      const result = await client.fetchTranscript("fx_ww1_nlen", { languages: ["nl"] });
      expect(result.record.transcripts[0]).toMatchObject({ languageCode: "nl", language: "Dutch", isGenerated: true });
      expect(result.record.transcripts[0]?.segments[0]?.text).toMatch(/^\[nl\] This is the English caption track/);
    });

    it("prefers a real track in a later language over a translation into an earlier one", async () => {
      const result = await client.fetchTranscript("fx_ww1_nlen", { languages: ["nl", "en"] });
      expect(result.record.transcripts[0]).toMatchObject({ languageCode: "en", isGenerated: false });
    });

    it("lists the available tracks when the language is neither present nor translatable", async () => {
      const error = await failure("fx_ww1_nlen", ["xx"]);
      expect(error.code).toBe("language_not_available");
      expect(error.availableLanguages).toEqual([
        { languageCode: "en", language: "English", isGenerated: false },
        { languageCode: "en", language: "English (auto-generated)", isGenerated: true },
      ]);
    });
  });

  describe("recorded pages the stand-in's faults answer with", () => {
    it("passes the recorded consent page with the CONSENT cookie", async () => {
      harness.standin.setFault({ kind: "consent" });
      const result = await client.fetchTranscript(BREAD.videoId, { languages: ["en"] });
      expect(result.record.videoId).toBe(BREAD.videoId);
      expect(harness.standin.stats.byVideo[BREAD.videoId]?.watch).toBe(2);
    });

    it("fails with consent_failed on the recorded consent page without a value", async () => {
      harness.standin.setFault({ kind: "consent", invalid: true });
      await expect(client.fetchTranscript(BREAD.videoId, { languages: ["en"] })).rejects.toMatchObject({ code: "consent_failed" });
    });

    it("maps the recorded captcha page to ip_blocked", async () => {
      harness.standin.setFault({ kind: "captcha" });
      await expect(harness.client({ maxBlockedRetries: 0 }).fetchTranscript(BREAD.videoId, { languages: ["en"] })).rejects.toMatchObject({
        code: "ip_blocked",
        kind: "blocked",
      });
    });

    it("maps the recorded bot check to request_blocked", async () => {
      harness.standin.setFault({ kind: "bot-check" });
      await expect(harness.client({ maxBlockedRetries: 0 }).fetchTranscript(BREAD.videoId, { languages: ["en"] })).rejects.toMatchObject({
        code: "request_blocked",
      });
    });
  });

  describe("recorded timedtext", () => {
    it("decodes the recorded document: escaped tags stripped, empty cue skipped", () => {
      const xml = readFileSync(path.join(recordingsDir ?? "", "transcript.xml.static"), "utf8");
      expect(parseTimedtext(xml).map((s) => s.text)).toEqual([
        "Hey, this is just a test",
        "this is not the original transcript",
        "just something shorter, I made up for testing",
      ]);
    });
  });
});
