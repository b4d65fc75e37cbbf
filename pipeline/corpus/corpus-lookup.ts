/**
 * What the local YouTube stand-in needs from a corpus: look a video up by
 * id, list a channel by id or handle. Any corpus (synthetic or loaded from
 * JSONL) can implement it.
 */
import type { VideoRecord } from "../contract.js";

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
  channel(channelId: string): ChannelListing | undefined;
  /** Accepts the handle with or without the leading `@`, in any case (handles are case-insensitive). */
  channelByHandle(handle: string): ChannelListing | undefined;
}
