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
export { ExitPool, type Exit, type ExitPoolOptions, type ExitPoolSnapshot, type ExitView, type ExitCondition } from "./exits/exit-pool.js";
export { DEFAULT_EXIT_POLICY, type ExitPolicy } from "./exits/exit-policy.js";
export type { ExitStateStore, ExitRecord, ExitOutcome, ClaimResult } from "./exits/exit-state-store.js";
export { MemoryExitStore } from "./exits/memory-exit-store.js";
export { REAL_CLOCK, type ExitClock } from "./exits/exit-clock.js";
export { ExitsResting } from "./exits/exits-resting.js";
export { exitPolicyFromSettings, type ExitSettings } from "./exits/exit-settings.js";
export { blockedThrough, describeExits } from "./exits/describe-exits.js";
