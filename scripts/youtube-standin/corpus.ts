/**
 * What the stand-in serves: any object answering these three look-ups.
 * Kept minimal on purpose so a generated corpus of half a million videos
 * can answer lazily, without materialising anything up front.
 */
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import type { ChannelListing, CorpusLookup } from "../../pipeline/corpus/corpus-lookup.js";

/** The look-ups the corpus side defines (pipeline/corpus/corpus-lookup.ts), under the stand-in's names. */
export type StandinChannel = ChannelListing;
export type StandinCorpus = CorpusLookup;

/**
 * A corpus over records held in memory, for tests and small demos. Channel
 * listings keep only the videos given and are put newest first (ties by
 * video id), as the lookup contract says, whatever order they come in.
 */
export function inMemoryCorpus(videos: readonly VideoRecord[], givenChannels: readonly StandinChannel[]): StandinCorpus {
  const byVideo = new Map(videos.map((v) => [v.videoId, v]));
  const channels = givenChannels.map((c) => ({
    ...c,
    videoIds: c.videoIds
      .flatMap((id) => byVideo.get(id) ?? [])
      .sort((a, b) => b.publishedAt.localeCompare(a.publishedAt) || a.videoId.localeCompare(b.videoId))
      .map((v) => v.videoId),
  }));
  const byChannel = new Map(channels.map((c) => [c.channelId, c]));
  const handleKey = (handle: string) => handle.replace(/^@/, "").toLowerCase();
  const byHandle = new Map(channels.map((c) => [handleKey(c.handle), c]));
  return {
    video: (id) => byVideo.get(id),
    channel: (id) => byChannel.get(id),
    channelByHandle: (handle) => byHandle.get(handleKey(handle)),
  };
}

/** A video as listed or shown before its captions (Videos tab, feed, watch page, player): without caption text where the corpus can skip it. */
export function videoWithoutText(corpus: StandinCorpus, videoId: string): VideoRecord | undefined {
  return corpus.videoMetadata ? corpus.videoMetadata(videoId) : corpus.video(videoId);
}
