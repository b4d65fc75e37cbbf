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

/** What a channel listing (Videos tab, feed) shows of a video: its record's fields of those names. */
export type VideoListing = Pick<VideoRecord, "videoId" | "title" | "viewCount" | "publishedAt" | "thumbnail" | "lengthSeconds">;

export interface CorpusLookup {
  video(videoId: string): VideoRecord | undefined;
  /**
   * The listing fields of a video, equal to those of `video(videoId)`. A corpus
   * that can give them without building the whole record (its transcript) says
   * so by having this; without it, listings look the whole video up.
   */
  listing?(videoId: string): VideoListing | undefined;
  /**
   * The video's record with every transcript's `segments` empty, all else
   * equal to `video(videoId)`: enough for a watch page or a player answer.
   * Optional, like `listing`, for a corpus that can skip building the text.
   */
  videoMetadata?(videoId: string): VideoRecord | undefined;
  channel(channelId: string): ChannelListing | undefined;
  /** Accepts the handle with or without the leading `@`, in any case (handles are case-insensitive). */
  channelByHandle(handle: string): ChannelListing | undefined;
}
