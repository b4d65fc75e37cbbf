/**
 * What the local YouTube stand-in needs from a corpus: look a video up by
 * id, list a channel by id or handle. Any corpus (synthetic or loaded from
 * JSONL) can implement it.
 */
import type { VideoRecord } from "../artifact/contract/index.js";

export interface ChannelListing {
  channelId: string;
  title: string;
  /** `@handle`, as YouTube shows it. */
  handle: string;
  /** Newest first, as a channel's uploads are listed. */
  videoIds: string[];
}

export interface CorpusLookup {
  video(videoId: string): VideoRecord | undefined;
  /**
   * The video's record with every transcript's `segments` empty, all else
   * equal to `video(videoId)`: enough for a channel's Videos tab and feed, a
   * watch page or a player answer. A corpus that can skip building the text
   * has it; without it, those look the whole video up.
   */
  videoMetadata?(videoId: string): VideoRecord | undefined;
  channel(channelId: string): ChannelListing | undefined;
  /** Accepts the handle with or without the leading `@`, in any case (handles are case-insensitive). */
  channelByHandle(handle: string): ChannelListing | undefined;
}
