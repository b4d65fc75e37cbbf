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

export function withVideoCache(corpus: StandinCorpus, capacity = DEFAULT_VIDEO_CACHE_SIZE): StandinCorpus {
  if (capacity <= 0) return corpus;
  const cache = new Lru<string, ReturnType<StandinCorpus["video"]>>(capacity);
  return {
    video(videoId) {
      const cached = cache.get(videoId);
      if (cached !== undefined) return cached;
      const video = corpus.video(videoId);
      // Unknown ids are not cached: they cost nothing to look up and would push real videos out.
      if (video !== undefined) cache.set(videoId, video);
      return video;
    },
    channel: (channelId) => corpus.channel(channelId),
    channelByHandle: (handle) => corpus.channelByHandle(handle),
  };
}
