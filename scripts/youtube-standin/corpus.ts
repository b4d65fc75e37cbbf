/**
 * What the stand-in serves: any object answering these three look-ups.
 * Kept minimal on purpose so a generated corpus of half a million videos
 * can answer lazily, without materialising anything up front.
 */
import type { VideoRecord } from "../../pipeline/contract.js";

export interface StandinChannel {
  channelId: string;
  title: string;
  /** `@name`, with the at sign, as in `VideoRecord.channelHandle`. */
  handle: string;
  /** The channel's uploads, in any order; the stand-in sorts them newest first. */
  videoIds: string[];
}

export interface StandinCorpus {
  video(videoId: string): VideoRecord | undefined;
  channel(channelId: string): StandinChannel | undefined;
  /** Looked up with the at sign (`@name`); `/c/name` and `/user/name` URLs are tried as `@name` too. */
  channelByHandle(handle: string): StandinChannel | undefined;
}

/** A corpus over records held in memory, for tests and small demos. */
export function inMemoryCorpus(videos: readonly VideoRecord[], channels: readonly StandinChannel[]): StandinCorpus {
  const byVideo = new Map(videos.map((v) => [v.videoId, v]));
  const byChannel = new Map(channels.map((c) => [c.channelId, c]));
  const byHandle = new Map(channels.map((c) => [c.handle.toLowerCase(), c]));
  return {
    video: (id) => byVideo.get(id),
    channel: (id) => byChannel.get(id),
    channelByHandle: (handle) => byHandle.get(handle.toLowerCase()),
  };
}
