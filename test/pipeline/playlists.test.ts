/**
 * Playlists in the channel list: a line may name a playlist (its id, or a
 * YouTube URL with `list=`), whose videos are crawled like a channel's, each
 * under its uploader's channel, through `browse` with `VL` + the id and its
 * continuations, as the stand-in serves them in YouTube's shapes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticCorpus, type SyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { parseChannelList } from "../../pipeline/crawl/read-channel-list.js";
import { createYouTubeClient, isYouTubeError, type PlaylistVideo } from "../../pipeline/youtube/index.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { run, stateRows, tempDataDir } from "./helpers/run-harness.js";

const PLAYLIST = "PLstandin0000000000000000000000001";
const SMALL = "PLstandin0000000000000000000000002";
let corpus: SyntheticCorpus;
let standin: Standin;
/** Every third video of the corpus, across its channels, with two ids no one knows (private videos) among them. */
let listed: string[];
const data = tempDataDir();

beforeAll(async () => {
  corpus = createSyntheticCorpus({ seed: 31, videos: 700, channels: 5, meanTranscriptWords: 150 });
  listed = Array.from({ length: 700 }, (_, i) => corpus.videoIdAt(i)).filter((_, i) => i % 3 === 0);
  listed.splice(10, 0, "privateVid1");
  listed.splice(150, 0, "privateVid2");
  const small = [corpus.videoIdAt(1), corpus.videoIdAt(2), corpus.videoIdAt(3)];
  standin = await startStandin({
    corpus,
    playlists: [
      { playlistId: PLAYLIST, title: "Every third video", videoIds: listed },
      { playlistId: SMALL, title: "Three videos", videoIds: small },
    ],
  });
});
afterAll(async () => {
  await standin.close();
  data.cleanup();
});

describe("the channel list", () => {
  it("takes a playlist as its id, a /playlist?list= URL or a watch URL with list=, once each", () => {
    const entries = parseChannelList(
      [
        PLAYLIST,
        `https://www.youtube.com/playlist?list=${SMALL}`,
        `youtube.com/watch?v=abcdefghijk&list=${PLAYLIST}  # the same playlist again`,
        "UUaaaaaaaaaaaaaaaaaaaaaa",
        "@kitchen",
      ].join("\n"),
    );
    expect(entries).toEqual([
      { input: PLAYLIST, line: 1, playlistId: PLAYLIST },
      { input: `https://www.youtube.com/playlist?list=${SMALL}`, line: 2, playlistId: SMALL },
      { input: "UUaaaaaaaaaaaaaaaaaaaaaa", line: 4, playlistId: "UUaaaaaaaaaaaaaaaaaaaaaa" },
      { input: "@kitchen", line: 5 },
    ]);
  });

  it("refuses a list= that is no playlist id, and a playlist on another site", () => {
    expect(() => parseChannelList("https://www.youtube.com/playlist?list=nope\nhttps://example.com/playlist?list=" + PLAYLIST, "list.txt")).toThrow(
      "list.txt:1: not a channel id (UC…), @handle, channel URL or playlist (PL…, a URL with list=)\nlist.txt:2: not a channel id",
    );
  });
});

describe("listPlaylistVideos", () => {
  it("reads every page in order, each video with its uploader's channel, and skips private videos", async () => {
    const client = createYouTubeClient({ origin: standin.origin });
    try {
      standin.stats.reset();
      const stream = client.listPlaylistVideos(PLAYLIST);
      const videos: PlaylistVideo[] = [];
      for await (const video of stream) videos.push(video);
      const known = listed.filter((id) => id.startsWith("privateVid") === false);
      expect(videos.map((v) => v.videoId)).toEqual(known);
      // 236 entries, 100 a page: three pages, the continuation read in both of its shapes.
      expect(stream.pages).toBe(3);
      expect(standin.stats.byEndpoint.browse).toBe(3);
      expect(stream.unavailable).toBe(2);
      expect(stream.title).toBe("Every third video");
      for (const video of videos) {
        const record = corpus.videoMetadata!(video.videoId)!;
        expect(video.channelId).toBe(record.channelId);
        expect(video.title).toBe(record.title);
      }
      expect(new Set(videos.map((v) => v.channelId)).size).toBe(5);
      expect(videos[0]!.publishedText).toMatch(/ ago$/);
      expect(videos[0]!.viewCount).toBeTypeOf("number");
    } finally {
      await client.close();
    }
  });

  it("fails with channel_not_found for a playlist YouTube does not have", async () => {
    const client = createYouTubeClient({ origin: standin.origin });
    try {
      const stream = client.listPlaylistVideos("PLnothing00000000000000000000000");
      const error = await (async () => {
        for await (const _ of stream) return undefined;
        return undefined;
      })().catch((e: unknown) => e);
      expect(isYouTubeError(error, "channel_not_found")).toBe(true);
      expect((error as Error).message).toContain("The playlist does not exist.");
    } finally {
      await client.close();
    }
  });
});

describe("a run over a list with a playlist", () => {
  it("fetches the playlist's videos beside the channel's, each once, and builds them", async () => {
    const channel = corpus.channel(corpus.channels[0]!.channelId)!;
    const list = join(data.dir, "channels.txt");
    writeFileSync(list, `${channel.channelId}\nhttps://www.youtube.com/playlist?list=${PLAYLIST}\nhttps://www.youtube.com/playlist?list=PLnothing00000000000000000000000\n`);
    standin.stats.reset();
    const summary = await run({ dataDir: data.dir, channelsFile: list, origin: standin.origin });
    // The missing playlist is the run's one failure: exit 4, the rest published.
    expect(summary.channels.failed).toEqual([
      expect.objectContaining({ input: "https://www.youtube.com/playlist?list=PLnothing00000000000000000000000", code: "channel_not_found" }),
    ]);
    expect(summary.outcome).toBe("partial");
    const wanted = new Set([...channel.videoIds, ...listed.filter((id) => !id.startsWith("privateVid"))]);
    expect(summary.videos.seen).toBe(channel.videoIds.length + listed.length - 2);
    expect(summary.videos.new).toBe(wanted.size);
    const withTranscript = [...wanted].filter((id) => corpus.video(id)!.transcripts.length > 0);
    expect(summary.transcripts.fetched).toBe(withTranscript.length);
    expect(summary.build?.counts.transcripts).toBe(withTranscript.length);
    for (const id of wanted) expect(standin.stats.byVideo[id]?.timedtext ?? 0, id).toBe(corpus.video(id)!.transcripts.length > 0 ? 1 : 0);
    // Each video under its own channel; the playlist's crawl time kept under its id.
    const rows = stateRows<{ video_id: string; channel_id: string }>(data.dir, "SELECT video_id, channel_id FROM videos");
    for (const row of rows) expect(row.channel_id).toBe(corpus.videoMetadata!(row.video_id)!.channelId);
    expect(stateRows<{ title: string }>(data.dir, "SELECT title FROM channels WHERE channel_id = ? AND crawled_at IS NOT NULL", PLAYLIST)).toEqual([
      { title: "Every third video" },
    ]);
  }, 120_000);
});
