/**
 * `track` on the live path, over the real server, live fetcher and live store,
 * with the YouTube stand-in: a kind of track storage lacks is fetched from
 * YouTube as a missing language is, and stored beside the other; a kind
 * YouTube lacks too is 404 `track_not_available`, remembered; a request
 * without `track` keeps answering what it answered before; and without live
 * fetching, storage's own answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { inMemoryCorpus } from "../../scripts/youtube-standin/corpus.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { call, expectProblem, postJson } from "../server/helpers/http.js";
import { artifactRecords, LIVE_CHANNEL, STORED } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

const manual = (id: string) => transcript("en", "English", false, [`the manual track of ${id}`]);
const generated = (id: string) => transcript("en", "English (auto-generated)", true, [`the auto generated track of ${id}`]);
const video = (videoId: string, transcripts: VideoRecord["transcripts"]) =>
  makeVideo({ videoId, channelId: LIVE_CHANNEL, channelTitle: "Live Test Channel", channelHandle: "@livetest", title: `Video ${videoId}`, transcripts });

/** Both tracks on YouTube; the artifact set has the manual one only. */
const BOTH_STORED_MANUAL = video("bothstored1", [manual("bothstored1"), generated("bothstored1")]);
/** Both tracks on YouTube, nothing stored. */
const bothFresh = (id: string) => video(id, [manual(id), generated(id)]);
/** Only the auto-generated track on YouTube, nothing stored. */
const asrFresh = (id: string) => video(id, [generated(id)]);

const UPSTREAM = [
  STORED,
  BOTH_STORED_MANUAL,
  ...["bothfresh01", "bothfresh02", "bulkboth001"].map(bothFresh),
  ...["asrfresh001", "asrfresh002", "asrfresh003"].map(asrFresh),
];

let standin: Standin;
let server: LiveServer;
let offline: LiveServer;

beforeAll(async () => {
  standin = await startStandin({
    corpus: inMemoryCorpus(UPSTREAM, [{ channelId: LIVE_CHANNEL, title: "Live Test Channel", handle: "@livetest", videoIds: UPSTREAM.map((v) => v.videoId) }]),
  });
  const records = [...artifactRecords(), { ...BOTH_STORED_MANUAL, transcripts: [manual("bothstored1")] }];
  [server, offline] = await Promise.all([startLiveServer({ standin, records }), startLiveServer({ standin, records, env: { LIVE_FETCH: "off" } })]);
});
afterAll(async () => {
  await server?.close();
  await offline?.close();
  await standin?.close();
});

const get = (s: LiveServer, path: string) => call(s.baseUrl, path, { key: s.key });
const playerCalls = (id: string) => standin.stats.byVideo[id]?.player ?? 0;
const script = (record: VideoRecord["transcripts"][number]) => record.segments.map((s) => s.text).join(" ");

describe("a kind of track storage lacks", () => {
  it("is fetched from YouTube and stored beside the other; without track the stored manual one is still answered", async () => {
    const id = BOTH_STORED_MANUAL.videoId;
    const first = await get(server, `/v1/transcript/${id}?track=generated`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ cached: false, transcript: { isGenerated: true, languageCode: "en", script: script(generated(id)) } });
    const stored = await get(server, `/v1/transcript/${id}?track=generated`);
    expect(stored.body).toMatchObject({ cached: true, transcript: { isGenerated: true, script: first.body.transcript.script } });
    for (const query of ["", "?track=manual"]) {
      expect((await get(server, `/v1/transcript/${id}${query}`)).body, query).toMatchObject({ cached: true, transcript: { isGenerated: false, script: script(manual(id)) } });
    }
    expect(playerCalls(id)).toBe(1);
  });

  it("is 404 track_not_available when YouTube lacks it too, remembered for the next request; the stored track is unchanged", async () => {
    const id = STORED.videoId;
    for (let i = 0; i < 2; i++) {
      const res = await get(server, `/v1/transcript/${id}?track=generated`);
      expectProblem(res, 404, "track_not_available");
    }
    expect(playerCalls(id)).toBe(1);
    expect((await get(server, `/v1/transcript/${id}`)).body).toMatchObject({ cached: true, transcript: { isGenerated: false } });
    expect((await get(server, `/v1/transcript/${id}?track=manual`)).body).toMatchObject({ cached: true, transcript: { isGenerated: false } });
    expect(playerCalls(id)).toBe(1);
  });
});

describe("a video not stored at all", () => {
  it("track=generated stores the track a request without track would fetch too, so that one still answers the manual track", async () => {
    const id = "bothfresh01";
    const auto = await get(server, `/v1/transcript/${id}?track=generated`);
    expect(auto.status, JSON.stringify(auto.body)).toBe(200);
    expect(auto.body).toMatchObject({ cached: false, transcript: { isGenerated: true, script: script(generated(id)) } });
    expect((await get(server, `/v1/transcript/${id}`)).body).toMatchObject({ cached: true, transcript: { isGenerated: false, script: script(manual(id)) } });
    expect((await get(server, `/v1/transcript/${id}?track=generated`)).body).toMatchObject({ cached: true, transcript: { isGenerated: true } });
    // One fetch for the manual track, one for the auto-generated one.
    expect(playerCalls(id)).toBe(2);
  });

  it("track=manual fetches once when YouTube has a manual track", async () => {
    const id = "bothfresh02";
    expect((await get(server, `/v1/transcript/${id}?track=manual`)).body).toMatchObject({ cached: false, transcript: { isGenerated: false, script: script(manual(id)) } });
    expect((await get(server, `/v1/transcript/${id}`)).body).toMatchObject({ cached: true, transcript: { isGenerated: false } });
    expect(playerCalls(id)).toBe(1);
  });

  it("track=manual where YouTube has only the auto-generated track: 404 track_not_available, and that track is stored for requests without track", async () => {
    const id = "asrfresh001";
    expectProblem(await get(server, `/v1/transcript/${id}?track=manual`), 404, "track_not_available");
    expect((await get(server, `/v1/transcript/${id}`)).body).toMatchObject({ cached: true, transcript: { isGenerated: true, script: script(generated(id)) } });
    expectProblem(await get(server, `/v1/transcript/${id}?track=manual`), 404, "track_not_available");
    expect(playerCalls(id)).toBe(2);
  });

  it("track=generated where YouTube has only the auto-generated track: fetched once", async () => {
    const id = "asrfresh002";
    expect((await get(server, `/v1/transcript/${id}?track=generated`)).body).toMatchObject({ cached: false, transcript: { isGenerated: true } });
    expect(playerCalls(id)).toBe(1);
  });

  it("a language YouTube neither has nor translates into is language_not_available whatever the track", async () => {
    for (const track of ["manual", "generated"]) {
      const res = await get(server, `/v1/transcript/bothfresh02?lang=sw&track=${track}`);
      expectProblem(res, 404, "language_not_available");
      expect(res.body.availableLanguages).toEqual(["en"]);
    }
  });

  it("a machine translation counts as auto-generated: track=generated gets it, track=manual is track_not_available", async () => {
    expectProblem(await get(server, "/v1/transcript/bothfresh02?lang=fr&track=manual"), 404, "track_not_available");
    const translated = await get(server, "/v1/transcript/bothfresh02?lang=fr&track=generated");
    expect(translated.body).toMatchObject({ transcript: { languageCode: "fr", isGenerated: true } });
  });
});

describe("bulk", () => {
  it("fetches the asked-for track per id, with the codes a single request gets", async () => {
    const res = await postJson(server.baseUrl, "/v1/transcripts/bulk", server.key, { videoIds: ["bulkboth001", STORED.videoId, "asrfresh003"], track: "generated" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ requested: 3, found: 2, fetched: 2 });
    expect(res.body.transcripts.map((t: { videoId: string; transcript: { isGenerated: boolean } }) => [t.videoId, t.transcript.isGenerated])).toEqual([
      ["bulkboth001", true],
      ["asrfresh003", true],
    ]);
    const single = await get(server, `/v1/transcript/${STORED.videoId}?track=generated`);
    expect(res.body.errors).toEqual([{ videoId: STORED.videoId, code: single.body.code, detail: single.body.detail }]);
    expect((await get(server, "/v1/transcript/bulkboth001")).body).toMatchObject({ cached: true, transcript: { isGenerated: false } });
  });
});

describe("without live fetching", () => {
  it("a kind of track storage lacks is 404 track_not_available, with nothing fetched", async () => {
    const before = playerCalls(BOTH_STORED_MANUAL.videoId);
    for (const id of [STORED.videoId, BOTH_STORED_MANUAL.videoId]) expectProblem(await get(offline, `/v1/transcript/${id}?track=generated`), 404, "track_not_available");
    const bulk = await postJson(offline.baseUrl, "/v1/transcripts/bulk", offline.key, { videoIds: [BOTH_STORED_MANUAL.videoId], track: "generated" });
    expect(bulk.body.errors).toEqual([{ videoId: BOTH_STORED_MANUAL.videoId, code: "track_not_available", detail: expect.any(String) }]);
    expect(playerCalls(BOTH_STORED_MANUAL.videoId)).toBe(before);
  });
});
