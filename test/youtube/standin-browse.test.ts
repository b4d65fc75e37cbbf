/** The stand-in's channel pages: each page builds only its own videos, so crawling a channel is linear in its size. */
import { describe, expect, it } from "vitest";
import { BROWSE_PAGE_SIZE, browsePage, decodeContinuation } from "../../scripts/youtube-standin/render-browse.js";
import { inMemoryCorpus, type StandinCorpus } from "../../scripts/youtube-standin/corpus.js";
import { FEED_SIZE, renderFeed } from "../../scripts/youtube-standin/render-feed.js";
import { withVideoCache } from "../../scripts/youtube-standin/video-cache.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { LARGE_CHANNEL, testCorpus } from "./helpers/records.js";

function counting(corpus: StandinCorpus): { corpus: StandinCorpus; lookups: { videos: number; channels: number } } {
  const lookups = { videos: 0, channels: 0 };
  return {
    lookups,
    corpus: {
      video: (id) => (lookups.videos++, corpus.video(id)),
      channel: (id) => (lookups.channels++, corpus.channel(id)),
      channelByHandle: (handle) => corpus.channelByHandle(handle),
    },
  };
}

/** Every continuation token of a page, and the video ids it lists. */
function read(page: object): { ids: string[]; next: number | undefined } {
  const text = JSON.stringify(page);
  const ids = [...text.matchAll(/"(?:videoId|contentId)":"([^"]+)"/g)].map((m) => m[1]!);
  const token = /"token":"([^"]+)"/.exec(text)?.[1];
  return { ids: [...new Set(ids)], next: token ? decodeContinuation(token)?.offset : undefined };
}

describe("the stand-in's Videos tab", () => {
  it("looks up each video of a crawled channel once, and lists them newest first", () => {
    const { videos, channels } = testCorpus();
    const big = channels.find((c) => c.channelId === LARGE_CHANNEL)!;
    // Given oldest first: the corpus puts them newest first, as the lookup contract says.
    const { corpus, lookups } = counting(inMemoryCorpus(videos, channels));
    const listing = corpus.channel(LARGE_CHANNEL)!;
    const seen: string[] = [];
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const page = read(browsePage(corpus, listing, offset, Date.UTC(2026, 0, 1)));
      expect(page.ids.length).toBeLessThanOrEqual(BROWSE_PAGE_SIZE);
      seen.push(...page.ids);
      offset = page.next;
    }
    expect(seen).toHaveLength(big.videoIds.length);
    expect(new Set(seen)).toEqual(new Set(big.videoIds));
    expect(lookups.videos).toBe(big.videoIds.length);
    const published = seen.map((id) => videos.find((v) => v.videoId === id)!.publishedAt);
    expect(published).toEqual([...published].sort().reverse());
  });

  it("takes its items from records without caption text where the corpus has them, generating no text", () => {
    const synthetic = createSyntheticCorpus({ seed: 3, videos: 200, channels: 3 });
    const lookups = { videos: 0, withoutText: 0 };
    const corpus: StandinCorpus = {
      video: (id) => (lookups.videos++, synthetic.video(id)),
      videoMetadata: (id) => (lookups.withoutText++, synthetic.videoMetadata(id)),
      channel: (id) => synthetic.channel(id),
      channelByHandle: (handle) => synthetic.channelByHandle(handle),
    };
    const channel = synthetic.channels[0]!;
    const page = browsePage(withVideoCache(corpus), corpus.channel(channel.channelId)!, 0, Date.UTC(2026, 0, 1));
    const first = synthetic.video(read(page).ids[0]!)!;
    expect(JSON.stringify(page)).toContain(JSON.stringify(first.title));
    expect(lookups).toEqual({ videos: 0, withoutText: Math.min(BROWSE_PAGE_SIZE, channel.videoCount) });
  });

  it("remembers channel listings in front of a corpus that builds them on each call", () => {
    const { videos, channels } = testCorpus();
    const { corpus, lookups } = counting(inMemoryCorpus(videos, channels));
    const cached = withVideoCache(corpus);
    for (let i = 0; i < 5; i++) expect(cached.channel(LARGE_CHANNEL)?.videoIds.length).toBe(100);
    expect(cached.channelByHandle("@bigarchive")?.channelId).toBe(LARGE_CHANNEL);
    expect(lookups.channels).toBe(1);
  });
});

describe("the stand-in's channel feed", () => {
  it("looks up only the 15 newest videos, and lists them newest first", () => {
    const { videos, channels } = testCorpus();
    const { corpus, lookups } = counting(inMemoryCorpus(videos, channels));
    const feed = renderFeed(corpus, corpus.channel(LARGE_CHANNEL)!);
    const ids = [...feed.matchAll(/<yt:videoId>([^<]+)<\/yt:videoId>/g)].map((m) => m[1]!);
    const newest = [...videos].filter((v) => v.channelId === LARGE_CHANNEL).sort((a, b) => b.publishedAt.localeCompare(a.publishedAt)).slice(0, FEED_SIZE);
    expect(ids).toEqual(newest.map((v) => v.videoId));
    expect(lookups.videos).toBe(FEED_SIZE);
  });
});
