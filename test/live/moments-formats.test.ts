/**
 * Transcripts fetched live (from the loopback YouTube stand-in) and kept in
 * the live store: searched, their hits give the moment of the segment that
 * holds the match; asked for with q, they mark it; asked for as SubRip or
 * WebVTT, the first answer (the fetch itself) and the stored ones agree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SegmentRecord, VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { inMemoryCorpus } from "../../scripts/youtube-standin/corpus.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { makeVideo } from "../youtube/helpers/records.js";
import { call } from "../server/helpers/http.js";
import { LIVE_CHANNEL, artifactRecords } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

const seg = (start: number, duration: number, text: string): SegmentRecord => ({ start, duration, text });

function video(videoId: string, segments: SegmentRecord[]): VideoRecord {
  return makeVideo({
    videoId,
    channelId: LIVE_CHANNEL,
    channelTitle: "Live Test Channel",
    channelHandle: "@livetest",
    title: `Video ${videoId}`,
    transcripts: [{ languageCode: "en", language: "English", isGenerated: true, segments }],
  });
}

const MOMENTS = video("livemoment1", [
  seg(0, 4, "hello and welcome back"),
  seg(3.5, 4, "a wombat walks in"),
  seg(7.25, 4, "then a purple"),
  seg(11, 4, "wombat digs a burrow"),
  seg(3600.5, 3, "one hour later the wombat sleeps"),
]);
const CAPTIONS = video("livecaption", [seg(0, 5, "rolling line one & 1 < 2"), seg(2.5, 5, "rolling line two"), seg(6, 0, "blink")]);

let standin: Standin;
let server: LiveServer;

beforeAll(async () => {
  const upstream = [MOMENTS, CAPTIONS];
  standin = await startStandin({
    corpus: inMemoryCorpus(upstream, [{ channelId: LIVE_CHANNEL, title: "Live Test Channel", handle: "@livetest", videoIds: upstream.map((v) => v.videoId) }]),
  });
  server = await startLiveServer({ standin, records: artifactRecords() });
});
afterAll(async () => {
  await server?.close();
  await standin?.close();
});

const get = (path: string) => call(server.baseUrl, path, { key: server.key });
const text = async (path: string) => {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { "X-API-Key": server.key } });
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
};

describe("a transcript fetched live, then searched", () => {
  it("gives the moment of the segment holding the match, for words and for a phrase across two segments", async () => {
    expect((await get("/v1/search?q=wombat")).body.results).toEqual([]);
    const fetched = await get("/v1/transcript/livemoment1");
    expect(fetched.status, JSON.stringify(fetched.body)).toBe(200);
    expect(fetched.body.cached).toBe(false);

    const [hit] = (await get("/v1/search?q=wombat")).body.results;
    expect(hit).toMatchObject({ videoId: "livemoment1", channelId: LIVE_CHANNEL, startSeconds: 3.5, url: "https://www.youtube.com/watch?v=livemoment1&t=3s" });
    expect(hit.moments.map((m: { startSeconds: number }) => m.startSeconds)).toEqual([11, 3600.5]);
    expect(hit.moments[1].text).toBe("one hour later the <mark>wombat</mark> sleeps");

    const [phrase] = (await get(`/v1/search?q=${encodeURIComponent('"purple wombat"')}`)).body.results;
    expect(phrase).toMatchObject({ videoId: "livemoment1", startSeconds: 7.25, url: "https://www.youtube.com/watch?v=livemoment1&t=7s" });
    const [words] = (await get("/v1/search?q=burrow%20hello")).body.results;
    expect(words.startSeconds).toBe(0);
    expect((await get("/v1/search?q=sleeps")).body.results[0].url).toBe("https://www.youtube.com/watch?v=livemoment1&t=3600s");
  });

  it("marks the matching segments of the stored live transcript with q", async () => {
    const res = await get("/v1/transcript/livemoment1?q=wombat");
    expect(res.body.cached).toBe(true);
    expect(res.body.matches).toEqual([1, 3, 4]);
    expect((await get(`/v1/transcript/livemoment1?q=${encodeURIComponent('"purple wombat"')}`)).body.matches).toEqual([2]);
  });
});

describe("a transcript fetched live in a subtitle format", () => {
  it("answers the fetch itself as WebVTT, and the same text once stored; SubRip from the store agrees", async () => {
    const first = await text("/v1/transcript/livecaption?format=vtt");
    expect(first.status, first.body).toBe(200);
    expect(first.type).toBe("text/vtt; charset=utf-8");
    expect(first.body).toBe(
      [
        "WEBVTT",
        "",
        "00:00:00.000 --> 00:00:02.500",
        "rolling line one &amp; 1 &lt; 2",
        "",
        "00:00:02.500 --> 00:00:06.000",
        "rolling line two",
        "",
        "00:00:06.000 --> 00:00:07.000",
        "blink",
        "",
      ].join("\n"),
    );
    expect((await get("/v1/transcript/livecaption")).body.cached).toBe(true);
    expect((await text("/v1/transcript/livecaption?format=vtt")).body).toBe(first.body);
    const srt = await text("/v1/transcript/livecaption?format=srt");
    expect(srt.body.split("\n\n")[1]).toBe("2\n00:00:02,500 --> 00:00:06,000\nrolling line two");
  });
});
