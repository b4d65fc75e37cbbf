/**
 * GET /v1/channels with the live store: transcripts fetched live (from the
 * YouTube stand-in) since the build count in their channel at once, a channel
 * only YouTube knew appears, and the list keeps adding up to /v1/stats and
 * to each channel's video list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inMemoryCorpus } from "../../scripts/youtube-standin/corpus.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { call } from "../server/helpers/http.js";
import { fixtureRecords } from "../server/helpers/fixture-records.js";
import { artifactRecords, CAPTIONED_UPSTREAM, fresh, LIVE_CHANNEL, PARTIAL_UPSTREAM, STORED } from "./helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "./helpers/live-server.js";

const NEW_CHANNEL = "UCnewOnYouTubeOnly000001";
const NEW_VIDEO = makeVideo({
  videoId: "newchan0001",
  channelId: NEW_CHANNEL,
  channelTitle: "Only On YouTube",
  channelHandle: "@onlyonyoutube",
  transcripts: [transcript("en", "English", false, ["a channel the build never saw"])],
});
const FRESH = Array.from({ length: 6 }, (_, i) => fresh(i));

interface Channel {
  channelId: string;
  title: string;
  videoCount: number;
  transcriptCount: number;
}

let standin: Standin;
let server: LiveServer;

beforeAll(async () => {
  const videos = [STORED, PARTIAL_UPSTREAM, CAPTIONED_UPSTREAM, ...FRESH, NEW_VIDEO];
  standin = await startStandin({
    corpus: inMemoryCorpus(videos, [
      { channelId: LIVE_CHANNEL, title: "Live Test Channel", handle: "@livetest", videoIds: videos.filter((v) => v.channelId === LIVE_CHANNEL).map((v) => v.videoId) },
      { channelId: NEW_CHANNEL, title: "Only On YouTube", handle: "@onlyonyoutube", videoIds: [NEW_VIDEO.videoId] },
    ]),
  });
  server = await startLiveServer({ standin, records: [...artifactRecords(), ...fixtureRecords()] });
});
afterAll(async () => {
  await server?.close();
  await standin?.close();
});

const get = (path: string) => call(server.baseUrl, path, { key: server.key });

async function channels(): Promise<Channel[]> {
  const res = await get("/v1/channels?limit=100");
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.pagination.total).toBe(res.body.channels.length);
  return res.body.channels as Channel[];
}

async function fetchLive(videoId: string): Promise<void> {
  const res = await get(`/v1/transcript/${videoId}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.cached).toBe(false);
}

/** The list is sorted as documented, and adds up to /v1/stats and to each channel's video list. */
async function expectConsistent(list: Channel[]): Promise<void> {
  const sorted = [...list].sort((a, b) => b.transcriptCount - a.transcriptCount || (a.channelId < b.channelId ? -1 : 1));
  expect(list).toEqual(sorted);
  const stats = (await get("/v1/stats")).body;
  expect(list.length).toBe(stats.channels);
  expect(list.reduce((sum, c) => sum + c.videoCount, 0)).toBe(stats.videos);
  expect(list.reduce((sum, c) => sum + c.transcriptCount, 0)).toBe(stats.transcripts);
  for (const channel of list) {
    const videos = (await get(`/v1/channels/${channel.channelId}/videos?limit=1`)).body;
    expect(videos.pagination.total, channel.channelId).toBe(channel.videoCount);
    expect(videos.channelTitle).toBe(channel.title);
  }
}

describe("GET /v1/channels with transcripts fetched live since the build", () => {
  it("counts them in their channel at once, lists a channel only YouTube knew, and re-sorts", async () => {
    const before = await channels();
    await expectConsistent(before);
    const live = (list: Channel[]) => list.find((c) => c.channelId === LIVE_CHANNEL)!;
    expect(before.map((c) => c.channelId)).not.toContain(NEW_CHANNEL);
    expect(before[0]!.channelId).not.toBe(LIVE_CHANNEL);

    // New videos of a known channel: one more video and transcript each.
    for (const video of FRESH) await fetchLive(video.videoId);
    // Stored without a transcript, now with one: a transcript more, no video more.
    await fetchLive(CAPTIONED_UPSTREAM.videoId);
    // Stored with German only, now with English too: the set's transcript stays the counted one.
    await fetchLive(PARTIAL_UPSTREAM.videoId);
    const afterKnown = await channels();
    expect(live(afterKnown)).toEqual({
      ...live(before),
      videoCount: live(before).videoCount + FRESH.length,
      transcriptCount: live(before).transcriptCount + FRESH.length + 1,
    });
    // It now has the most transcripts: first.
    expect(live(before).transcriptCount + FRESH.length + 1).toBeGreaterThan(Math.max(...before.filter((c) => c.channelId !== LIVE_CHANNEL).map((c) => c.transcriptCount)));
    expect(afterKnown[0]!.channelId).toBe(LIVE_CHANNEL);
    await expectConsistent(afterKnown);

    await fetchLive(NEW_VIDEO.videoId);
    const after = await channels();
    expect(after.find((c) => c.channelId === NEW_CHANNEL)).toEqual({ channelId: NEW_CHANNEL, title: "Only On YouTube", videoCount: 1, transcriptCount: 1 });
    expect(after).toHaveLength(before.length + 1);
    await expectConsistent(after);
  });
});
