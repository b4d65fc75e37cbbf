import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { parseTimedtext } from "../../pipeline/youtube/timedtext.js";
import { type YouTubeClient } from "../../pipeline/youtube/index.js";
import { OWN_FIXTURES } from "../../scripts/youtube-standin/fixtures.js";
import { ASR_ONLY, BREAD, SILENT } from "./helpers/records.js";
import { useHarness, type StandinHarness } from "./helpers/setup.js";

let harness: StandinHarness;
let client: YouTubeClient;

useHarness((started) => {
  harness = started;
  client = started.client();
});

describe("synthetic corpus videos", () => {
  it("round-trip through the stand-in into the same record, text escaped twice on the wire", async () => {
    const { record } = await client.fetchTranscript(BREAD.videoId, { languages: ["en"], includeMetadata: true });
    expect(VideoRecord.parse(record)).toEqual(record);
    const { transcripts, ...metadata } = BREAD;
    expect(record).toEqual({ ...metadata, transcripts: [transcripts[0]] });
  });

  it("leave out chapters and category unless metadata is asked for", async () => {
    const { record } = await client.fetchTranscript(BREAD.videoId, { languages: ["en"] });
    expect(record.chapters).toBeUndefined();
    expect(record.category).toBeUndefined();
    expect(record.description).toBe(BREAD.description);
  });

  it("fall back to the auto-generated track when there is no manual one", async () => {
    const { record } = await client.fetchTranscript(ASR_ONLY.videoId, { languages: ["en"] });
    expect(record.transcripts[0]).toMatchObject({ language: "English (auto-generated)", isGenerated: true });
  });

  it("report transcripts_disabled for a video without captions", async () => {
    await expect(client.fetchTranscript(SILENT.videoId, { languages: ["en"] })).rejects.toMatchObject({ code: "transcripts_disabled" });
  });

  it("report video_unavailable for an id the corpus does not have", async () => {
    await expect(client.fetchTranscript("zzzzzzzzzzz", { languages: ["en"] })).rejects.toMatchObject({ code: "video_unavailable" });
  });

  it("are served in srv3 and json3 too", async () => {
    const base = `${harness.standin.origin}/api/timedtext?v=${BREAD.videoId}&lang=en`;
    const srv3 = await (await fetch(`${base}&fmt=srv3`)).text();
    const json3 = (await (await fetch(`${base}&fmt=json3`)).json()) as { events: { tStartMs: number; segs: { utf8: string }[] }[] };
    expect(parseTimedtext(srv3)).toEqual(BREAD.transcripts[0]?.segments);
    expect(json3.events[1]).toMatchObject({ tStartMs: 4250, segs: [{ utf8: BREAD.transcripts[0]?.segments[1]?.text }] });
  });

  it("carry caption URLs that point at the stand-in and need no token on ANDROID only", async () => {
    const player = async (clientName: string) =>
      (await (
        await fetch(`${harness.standin.origin}/youtubei/v1/player?key=k`, {
          method: "POST",
          body: JSON.stringify({ context: { client: { clientName, clientVersion: "1" } }, videoId: BREAD.videoId }),
        })
      ).json()) as { captions: { playerCaptionsTracklistRenderer: { captionTracks: { baseUrl: string; vssId: string }[] } } };
    const android = (await player("ANDROID")).captions.playerCaptionsTracklistRenderer.captionTracks;
    const web = (await player("WEB")).captions.playerCaptionsTracklistRenderer.captionTracks;
    expect(android.map((t) => t.vssId)).toEqual([".en", "a.en", ".de"]);
    expect(android[0]?.baseUrl.startsWith(`${harness.standin.origin}/api/timedtext?`)).toBe(true);
    expect(android[0]?.baseUrl).toMatch(/expire=\d+/);
    expect(android[0]?.baseUrl).not.toContain("exp=xpe");
    expect(web[0]?.baseUrl).toContain("&exp=xpe");
  });
});

describe("timedtext parsing", () => {
  const fixture = (name: string) => readFileSync(path.join(OWN_FIXTURES.dir, name), "utf8");

  it("decodes the fixture document: escaped twice, tags stripped, empty cue skipped, a missing dur is 0", () => {
    expect(parseTimedtext(fixture("transcript.xml"))).toEqual([
      { start: 0.5, duration: 2.8, text: "Today we're baking sourdough" },
      { start: 3.3, duration: 3.1, text: "flour, water & salt" },
      { start: 6.9, duration: 0, text: "that's all it takes" },
    ]);
  });

  it("decodes the fixture srv3 document: milliseconds, word runs joined, empty cue skipped", () => {
    expect(parseTimedtext(fixture("transcript-srv3.xml"))).toEqual([
      { start: 0.5, duration: 2.8, text: "Today we're baking sourdough" },
      { start: 3.3, duration: 3.1, text: "flour, water & salt" },
    ]);
  });

  it("unescapes HTML once more after the XML decode, folds whitespace and treats a missing dur as 0", () => {
    const xml = `<transcript><text start="1.5">It&amp;#39;s  &amp;quot;fine&amp;quot;\n&amp;amp; &lt;i&gt;done&lt;/i&gt;</text></transcript>`;
    expect(parseTimedtext(xml)).toEqual([{ start: 1.5, duration: 0, text: `It's "fine" & done` }]);
  });

  it("removes control characters that the snippet code reserves", () => {
    const xml = `<transcript><text start="0" dur="1">a&#1;b</text></transcript>`;
    expect(parseTimedtext(xml)[0]?.text).toBe("ab");
  });

  it("reads past an HTML entity written into the XML and decodes it as HTML, as YouTube's own double escaping is", () => {
    const xml = `<transcript><text start="0" dur="1">a&nbsp;b&amp;nbsp;c</text><text start="1" dur="1">d</text></transcript>`;
    expect(parseTimedtext(xml).map((s) => s.text)).toEqual(["a b c", "d"]);
  });

  it("takes a cue's text from nested elements and CDATA, and ignores elements outside the cue path", () => {
    const srv3 = `<timedtext format="3"><head><p t="0">not a cue</p></head><body><p t="1500" d="2000"><s>one</s><s t="500"> two</s><![CDATA[ & three]]></p></body></timedtext>`;
    expect(parseTimedtext(srv3)).toEqual([{ start: 1.5, duration: 2, text: "one two & three" }]);
  });

  it.each([
    ["truncated", `<transcript><text start="0" dur="1">hello</text><text sta`],
    ["unclosed", `<transcript><text start="0" dur="1">hello</text>`],
    ["a bare <", `<transcript><text start="0" dur="1">a < b</text></transcript>`],
    ["a bare &", `<transcript><text start="0" dur="1">a & b</text></transcript>`],
    ["text after the root", `<transcript></transcript>more`],
    ["empty", ""],
    ["HTML", "<!DOCTYPE html><html><body>nope</body></html>"],
    ["not XML at all", "{}"],
  ])("rejects a %s document as upstream_unparsable", (_label, xml) => {
    expect(() => parseTimedtext(xml)).toThrow(expect.objectContaining({ code: "upstream_unparsable" }));
  });
});
