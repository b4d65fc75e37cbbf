/**
 * A generated corpus builds a video's record from scratch on every look-up,
 * and one transcript fetch asks for the same video three times in a row
 * (watch page, player, timedtext). A small LRU in front of the corpus makes
 * those three one generation, without holding a large corpus in memory.
 */
import { Lru } from "../../server/data/lru.js";
import type { StandinCorpus } from "./corpus.js";

/** Videos kept; a fetcher with a few dozen videos in flight still hits. */
export const DEFAULT_VIDEO_CACHE_SIZE = 256;

/** Channel listings kept: a generated corpus lists a channel by planning all its videos, and a crawl asks once per page. */
const CHANNEL_CACHE_SIZE = 64;

export function withVideoCache(corpus: StandinCorpus, capacity = DEFAULT_VIDEO_CACHE_SIZE): StandinCorpus {
  if (capacity <= 0) return corpus;
  const cache = new Lru<string, ReturnType<StandinCorpus["video"]>>(capacity);
  const channels = new Lru<string, ReturnType<StandinCorpus["channel"]>>(CHANNEL_CACHE_SIZE);
  const channel = (channelId: string) => {
    const cached = channels.get(channelId);
    if (cached !== undefined) return cached;
    const listing = corpus.channel(channelId);
    if (listing !== undefined) channels.set(channelId, listing);
    return listing;
  };
  return {
    video(videoId) {
      const cached = cache.get(videoId);
      if (cached !== undefined) return cached;
      const video = corpus.video(videoId);
      // Unknown ids are not cached: they cost nothing to look up and would push real videos out.
      if (video !== undefined) cache.set(videoId, video);
      return video;
    },
    channel,
    // Records without text are cheap to build: passed through, not cached, so they push no video out.
    ...(corpus.videoMetadata ? { videoMetadata: (videoId: string) => corpus.videoMetadata!(videoId) } : {}),
    channelByHandle: (handle) => {
      const listing = corpus.channelByHandle(handle);
      return listing === undefined ? undefined : channel(listing.channelId);
    },
  };
}
