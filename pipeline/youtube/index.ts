/** The YouTube client's public surface; import from here, not from the step modules. */
export { createYouTubeClient, DEFAULT_USER_AGENT, type YouTubeClient, type YouTubeClientOptions } from "./client.js";
export {
  YouTubeError,
  isYouTubeError,
  YOUTUBE_ERROR_KINDS,
  type AvailableLanguage,
  type YouTubeErrorCode,
  type YouTubeErrorKind,
} from "./errors.js";
export type { FetchTranscriptOptions, FetchTranscriptResult } from "./fetch-transcript.js";
export type { ResolvedChannel } from "./channel-resolve.js";
export type { ChannelVideoStream } from "./channel-videos.js";
export { playlistIdOf, PLAYLIST_ID_PATTERN, type PlaylistVideoStream } from "./playlist-videos.js";
export type { PlaylistVideo } from "./playlist-page.js";
export type { ChannelMetadata, ChannelVideo } from "./browse-page.js";
export type { FeedEntry } from "./channel-feed.js";
export { parseViewCount } from "./view-count.js";
export { UNKNOWN_PUBLISHED_AT } from "./video-record.js";
