/**
 * The client over the project's own fixtures (test/fixtures/youtube): one
 * video with three tracks and a translation list, and one video per other
 * upstream outcome the client tells apart. The same checks over real
 * recorded responses: recorded-fixtures.test.ts.
 */
import { describe, expect, it } from "vitest";
import { YouTubeError, type YouTubeClient } from "../../pipeline/youtube/index.js";
import { useHarness, type StandinHarness } from "./helpers/setup.js";

let harness: StandinHarness;
let client: YouTubeClient;

useHarness((started) => {
  harness = started;
  client = started.client();
});

async function failure(videoId: string, languages = ["en"]): Promise<YouTubeError> {
  const error = await client.fetchTranscript(videoId, { languages }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(YouTubeError);
  return error as YouTubeError;
}

describe("fixture video fixtureOKAY (tracks de, en, en auto-generated)", () => {
  it("yields the English manual track, not the auto-generated one, with the written text cleaned", async () => {
    const result = await client.fetchTranscript("fixtureOKAY", { languages: ["en"] });
    expect(result.record.transcripts).toHaveLength(1);
    expect(result.record.transcripts[0]).toMatchObject({ languageCode: "en", language: "English", isGenerated: false });
    // transcript.xml: text escaped twice, tags inside the text, an empty cue, a cue without dur, a line break.
    expect(result.record.transcripts[0]?.segments).toEqual([
      { start: 0.5, duration: 2.8, text: "Today we're baking sourdough" },
      { start: 3.3, duration: 3.1, text: "flour, water & salt" },
      { start: 6.9, duration: 0, text: "that's all it takes" },
    ]);
    expect(result.method).toBe("innertube-android");
    expect(result.usedProxy).toBe(false);
    expect(result.availableLanguages.map((l) => `${l.languageCode}${l.isGenerated ? "*" : ""}`)).toEqual(["de", "en", "en*"]);
  });

  it("takes metadata from videoDetails and the publish date from the WEB page, in UTC", async () => {
    const { record } = await client.fetchTranscript("fixtureOKAY", { languages: ["en"] });
    expect(record).toMatchObject({
      videoId: "fixtureOKAY",
      title: "How to bake sourdough at home",
      channelId: "UCfixtureBakeryChannel01",
      channelTitle: "Fixture Bakery",
      channelHandle: "@fixturebakery",
      viewCount: 48213,
      lengthSeconds: 754,
      publishedAt: "2024-03-05T17:30:00Z",
      description: "A first loaf, step by step.",
      keywords: ["sourdough", "bread", "baking"],
      // The largest thumbnail, though YouTube listed it second.
      thumbnail: "https://i.ytimg.com/vi/fixtureOKAY/hqdefault.jpg",
    });
    expect(record.category).toBeUndefined();
    expect(record.chapters).toBeUndefined();
  });

  it("adds category, chapters and the page's full description when metadata is asked for", async () => {
    const { record } = await client.fetchTranscript("fixtureOKAY", { languages: ["en"], includeMetadata: true });
    expect(record.category).toBe("Howto & Style");
    expect(record.description).toBe("A first loaf, step by step.\nYou need flour, water & salt {nothing else}.");
    expect(record.chapters).toEqual([
      { title: "The starter", startSeconds: 0 },
      { title: "Shaping", startSeconds: 95.5 },
      { title: "Baking", startSeconds: 410 },
    ]);
  });

  it("never stores the signed caption URL", async () => {
    const { record } = await client.fetchTranscript("fixtureOKAY", { languages: ["en"] });
    expect(JSON.stringify(record)).not.toMatch(/signature=|expire=|timedtext/);
  });

  it("makes exactly one watch, one player and one timedtext request", async () => {
    await client.fetchTranscript("fixtureOKAY", { languages: ["en"] });
    expect(harness.standin.stats.byVideo["fixtureOKAY"]).toEqual({ watch: 1, player: 1, timedtext: 1 });
  });

  it('gives the German manual track for languages ["de"]', async () => {
    const german = await client.fetchTranscript("fixtureOKAY", { languages: ["de"] });
    expect(german.record.transcripts[0]).toMatchObject({ languageCode: "de", language: "German", isGenerated: false });
    expect(german.record.transcripts[0]?.segments[0]?.text).toBe("This is the German caption track of video fixtureOKAY.");
  });

  it("serves its auto-generated English track with a text different from the manual one", async () => {
    const url = (kind: string) => `${harness.standin.origin}/api/timedtext?v=fixtureOKAY&lang=en${kind}`;
    const manual = await (await fetch(url(""))).text();
    const generated = await (await fetch(url("&kind=asr"))).text();
    expect(manual).toContain("baking sourdough");
    expect(generated).toContain("auto generated english");
    expect(generated).not.toContain("baking sourdough");
  });

  it("walks the requested languages in order", async () => {
    const result = await client.fetchTranscript("fixtureOKAY", { languages: ["pt", "de", "en"] });
    expect(result.record.transcripts[0]?.languageCode).toBe("de");
  });

  it("translates the first translatable track with tlang when no requested language has a track", async () => {
    const result = await client.fetchTranscript("fixtureOKAY", { languages: ["fr"] });
    expect(result.record.transcripts[0]).toMatchObject({ languageCode: "fr", language: "French", isGenerated: true });
    // The stand-in marks translations; the first translatable track of this video is German.
    expect(result.record.transcripts[0]?.segments[0]?.text).toBe("[fr] This is the German caption track of video fixtureOKAY.");
  });

  it("prefers a real track in a later language over a translation into an earlier one", async () => {
    const result = await client.fetchTranscript("fixtureOKAY", { languages: ["nl", "en"] });
    expect(result.record.transcripts[0]).toMatchObject({ languageCode: "en", isGenerated: false });
  });

  it("matches language codes exactly, and lists the tracks there are", async () => {
    const error = await failure("fixtureOKAY", ["en-GB"]);
    expect(error).toMatchObject({ code: "language_not_available", kind: "permanent" });
    expect(error.availableLanguages).toEqual([
      { languageCode: "de", language: "German", isGenerated: false },
      { languageCode: "en", language: "English", isGenerated: false },
      { languageCode: "en", language: "English (auto-generated)", isGenerated: true },
    ]);
  });
});

describe("fixture videos for the other outcomes", () => {
  it.each([
    ["fixtureAGED", "age_restricted", "permanent"],
    ["fixtureBOTS", "request_blocked", "blocked"],
    ["fixtureGONE", "video_unavailable", "permanent"],
    ["fixtureUNPL", "unplayable", "permanent"],
    ["fixtureNOCC", "transcripts_disabled", "permanent"],
    ["fixtureNOTR", "transcripts_disabled", "permanent"],
    ["fixturePOTK", "po_token_required", "permanent"],
    ["fixtureJUNK", "upstream_unparsable", "transient"],
    ["fixtureNODT", "upstream_unparsable", "transient"],
  ])("video %s fails with %s", async (videoId, code, kind) => {
    const error = await failure(videoId);
    expect(error.code).toBe(code);
    expect(error.kind).toBe(kind);
  });

  it("reports the reason and every non-blank sub-reason of an unplayable video", async () => {
    const error = await failure("fixtureUNPL");
    expect(error.reason).toBe("Video unavailable");
    expect(error.subreasons).toEqual(["The uploader has not made this video available in your country.", "It may be available elsewhere."]);
  });

  it("names the missing fields when the player answer has no videoDetails", async () => {
    expect((await failure("fixtureNODT")).message).toMatch(/video details are incomplete \(.*channelId/);
  });

  it("does not request the timedtext of a track that needs a proof-of-origin token", async () => {
    await failure("fixturePOTK");
    expect(harness.standin.stats.byVideo["fixturePOTK"]?.timedtext ?? 0).toBe(0);
  });

  it("still serves a track without the token requirement from the same video", async () => {
    const result = await client.fetchTranscript("fixturePOTK", { languages: ["de"] });
    expect(result.record.transcripts[0]).toMatchObject({ languageCode: "de", language: "German" });
  });

  it("retries a bot check with exponential backoff and gives up after maxBlockedRetries", async () => {
    await failure("fixtureBOTS");
    expect(harness.standin.stats.byVideo["fixtureBOTS"]?.player).toBe(3);
    // Base 1000 ms doubled per retry, plus 25 % jitter from random() = 0.5.
    expect(harness.sleeps).toEqual([1250, 2500]);
  });
});
