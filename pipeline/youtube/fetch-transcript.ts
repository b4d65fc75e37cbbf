/**
 * One video's transcript, the way youtube.md describes it: watch page →
 * ANDROID player → track choice → timedtext. Each network step is retried
 * on its own when YouTube blocks it, so a retry goes out through the next
 * proxy instead of replaying the steps that already worked.
 */
import { type TrackKind, VIDEO_ID_PATTERN, type VideoRecord } from "../artifact/contract/index.js";
import type { ClientContext } from "./client-context.js";
import { YouTubeError, type AvailableLanguage } from "./errors.js";
import { fetchPlayer } from "./player.js";
import { fetchTimedtext } from "./timedtext.js";
import { availableLanguagesOf, chooseTrack } from "./track-choice.js";
import { buildVideoRecord } from "./video-record.js";
import { fetchWatchPage } from "./watch-page.js";

export interface FetchTranscriptOptions {
  /** Language codes in order of preference, e.g. `["en"]`; see track-choice.ts for the rule. */
  languages: string[];
  /** The kind of track wanted (track-choice.ts); default `any`: manual before auto-generated. */
  track?: TrackKind;
  /** Also fill description (full), chapters and category. Default false. */
  includeMetadata?: boolean;
  signal?: AbortSignal;
}

export interface FetchTranscriptResult {
  /** The video with exactly one transcript, the chosen one. */
  record: VideoRecord;
  method: "innertube-android";
  /** Whether any upstream call of this fetch went through a proxy. */
  usedProxy: boolean;
  availableLanguages: AvailableLanguage[];
}

export async function fetchTranscript(
  ctx: ClientContext,
  videoId: string,
  options: FetchTranscriptOptions,
): Promise<FetchTranscriptResult> {
  if (!VIDEO_ID_PATTERN.test(videoId)) {
    throw new YouTubeError("invalid_video_id", "A video id is 11 characters of A-Z, a-z, 0-9, _ and -");
  }
  if (options.languages.length === 0) {
    throw new TypeError('Expected the "languages" option to list at least one language code');
  }
  const { signal } = options;
  const page = await ctx.retryBlocked(() => fetchWatchPage(ctx, videoId, signal), signal);
  const request = { ...(page.cookie ? { cookie: page.cookie } : {}), ...(signal ? { signal } : {}) };
  const player = await ctx.retryBlocked(() => fetchPlayer(ctx, videoId, page.apiKey, request), signal);
  const choice = chooseTrack(player.tracks, player.translationLanguages, options.languages, player.usedProxy, options.track);
  const timedtext = await ctx.retryBlocked(() => fetchTimedtext(ctx, choice, request), signal);
  const usedProxy = page.usedProxy || player.usedProxy || timedtext.usedProxy;
  const record = buildVideoRecord({
    videoId,
    playerResponse: player.response,
    pageHtml: page.html,
    choice,
    segments: timedtext.segments,
    includeMetadata: options.includeMetadata ?? false,
    usedProxy,
  });
  return { record, method: "innertube-android", usedProxy, availableLanguages: availableLanguagesOf(player.tracks) };
}
