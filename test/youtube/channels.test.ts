import { describe, expect, it } from "vitest";
import { parseChannelFeed } from "../../pipeline/youtube/channel-feed.js";
import { parseViewCount, type ChannelVideo, type YouTubeClient } from "../../pipeline/youtube/index.js";
import { COOKING_CHANNEL, LARGE_CHANNEL } from "./helpers/records.js";
import { useHarness, type StandinHarness } from "./helpers/setup.js";

let harness: StandinHarness;
let client: YouTubeClient;

useHarness((started) => {
  harness = started;
  client = started.client();
});

describe("resolveChannel", () => {
  it.each([
    ["a channel id", COOKING_CHANNEL],
    ["an @handle", "@kitchennotes"],
    ["a /channel/ URL", `https://www.youtube.com/channel/${COOKING_CHANNEL}`],
    ["an /@handle URL", "https://www.youtube.com/@kitchennotes/videos"],
    ["a /c/ URL", "https://www.youtube.com/c/kitchennotes"],
    ["a /user/ URL", "youtube.com/user/kitchennotes"],
  ])("resolves %s", async (_label, input) => {
    expect(await client.resolveChannel(input)).toEqual({ channelId: COOKING_CHANNEL, title: "Kitchen Notes", handle: "@kitchennotes" });
  });

  it("fails with channel_not_found for an unknown handle", async () => {
    await expect(client.resolveChannel("@nobodyhere")).rejects.toMatchObject({ code: "channel_not_found" });
  });

  it("fails with channel_not_found for an unknown channel id", async () => {
    await expect(client.resolveChannel("UCzzzzzzzzzzzzzzzzzzzzzz")).rejects.toMatchObject({ code: "channel_not_found" });
  });

  it("rejects input that is not a channel without any request", async () => {
    await expect(client.resolveChannel("https://example.com/@kitchennotes")).rejects.toMatchObject({ code: "invalid_channel" });
    await expect(client.resolveChannel("https://www.youtube.com/watch?v=bread000001")).rejects.toMatchObject({ code: "invalid_channel" });
    expect(harness.standin.stats.total).toBe(0);
  });
});

describe("listChannelVideos", () => {
  it("crawls a channel of 100 videos through four pages in both item shapes", async () => {
    const stream = client.listChannelVideos(LARGE_CHANNEL);
    const videos: ChannelVideo[] = [];
    for await (const video of stream) videos.push(video);
    expect(videos).toHaveLength(100);
    expect(new Set(videos.map((v) => v.videoId)).size).toBe(100);
    expect(stream.pages).toBe(4);
    expect(harness.standin.stats.byEndpoint.browse).toBe(4);
    expect(stream.metadata).toEqual({ title: "Big Archive", externalId: LARGE_CHANNEL, vanityChannelUrl: `http://www.youtube.com/@bigarchive` });

    // Newest first. Page 1 is lockupViewModel (short counts), page 2 videoRenderer (exact counts).
    expect(videos[0]).toEqual({ videoId: "big00000099", title: "Archive episode 100", viewCount: 3_700_000, publishedText: "2 years ago", lengthText: "1:41:39" });
    expect(videos[30]).toEqual({ videoId: "big00000069", title: "Archive episode 70", viewCount: 2_606_199, publishedText: "2 years ago", lengthText: "1:11:09" });
    expect(videos[98]).toMatchObject({ videoId: "big00000001", viewCount: 1 });
    expect(videos[99]).toMatchObject({ videoId: "big00000000", viewCount: 0, lengthText: "1:00" });
  });

  it("costs no further requests when the caller stops early", async () => {
    for await (const video of client.listChannelVideos(LARGE_CHANNEL)) {
      if (video.videoId) break;
    }
    expect(harness.standin.stats.byEndpoint.browse).toBe(1);
  });

  it("fails with channel_not_found for an unknown channel", async () => {
    const iterate = async () => {
      for await (const _ of client.listChannelVideos("UCzzzzzzzzzzzzzzzzzzzzzz")) break;
    };
    await expect(iterate()).rejects.toMatchObject({ code: "channel_not_found" });
  });
});

describe("channelFeed", () => {
  it("gives the newest 15 uploads with exact UTC dates and view counts", async () => {
    const entries = await client.channelFeed(LARGE_CHANNEL);
    expect(entries).toHaveLength(15);
    expect(entries[0]).toEqual({ videoId: "big00000099", title: "Archive episode 100", publishedAt: "2023-04-10T00:00:00Z", viewCount: 3_739_329 });
    expect(entries[14]?.publishedAt).toBe("2023-03-27T00:00:00Z");
  });

  it("decodes escaped titles", async () => {
    const entries = await client.channelFeed(COOKING_CHANNEL);
    expect(entries.map((e) => e.title)).toContain("Sourdough for Beginners");
  });

  it("fails with channel_not_found for an unknown channel", async () => {
    await expect(client.channelFeed("UCzzzzzzzzzzzzzzzzzzzzzz")).rejects.toMatchObject({ code: "channel_not_found" });
  });
});

describe("parseChannelFeed", () => {
  const entry = (id: string, published: string, title: string, views: string) => `
  <entry>
    <id>yt:video:${id}</id>
    <yt:videoId>${id}</yt:videoId>
    <title>${title}</title>
    <published>${published}</published>
    <media:group>
      <media:title>the media title, not the entry's</media:title>
      <media:community><media:statistics views="${views}"/></media:community>
    </media:group>
  </entry>`;
  const feed = (entries: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom"><title>Channel</title>${entries}</feed>`;

  it("reads each entry's own id, title, date and views; an entry without a date is left out", () => {
    const xml = feed(entry("aaaaaaaaaaa", "2024-05-01T10:00:00+02:00", " Salt &amp; Pepper ", "1234") + entry("bbbbbbbbbbb", "", "no date", "5") + entry("ccccccccccc", "2024-04-01T00:00:00+00:00", "x", "n/a"));
    expect(parseChannelFeed(xml)).toEqual([
      { videoId: "aaaaaaaaaaa", title: "Salt & Pepper", publishedAt: "2024-05-01T08:00:00Z", viewCount: 1234 },
      { videoId: "ccccccccccc", title: "x", publishedAt: "2024-04-01T00:00:00Z", viewCount: undefined },
    ]);
  });

  it.each([
    ["not a feed", "<rss><channel/></rss>"],
    ["truncated", feed(entry("aaaaaaaaaaa", "2024-05-01T10:00:00Z", "t", "1")).slice(0, 200)],
    ["HTML", "<!DOCTYPE html><html><body><p>Error 404</p></body></html>"],
  ])("rejects %s as upstream_unparsable", (_label, xml) => {
    expect(() => parseChannelFeed(xml)).toThrow(expect.objectContaining({ code: "upstream_unparsable" }));
  });
});

describe("parseViewCount", () => {
  it.each([
    ["No views", 0],
    ["1 view", 1],
    ["999 views", 999],
    ["1,234 views", 1234],
    ["1,234,567 views", 1_234_567],
    ["1.2K views", 1200],
    ["12K views", 12_000],
    ["1.2M views", 1_200_000],
    ["3.7M views", 3_700_000],
    ["2B views", 2_000_000_000],
    ["1.234 views", 1234],
    ["15 watching", 15],
    ["3 weeks ago", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("reads %j as %j", (text, expected) => {
    expect(parseViewCount(text)).toBe(expected);
  });
});
