/**
 * Step 2: the ANDROID `/youtubei/v1/player` call, and what its answer means
 * (youtube.md's playability table), reduced to the caption tracks and the
 * video details the rest of the flow needs.
 */
import { ANDROID_CLIENT, asArray, asString, dig, parseJsonBody, textOf, type ClientContext } from "./client-context.js";
import { BOT_CHECK } from "./block-wording.js";
import { YouTubeError } from "./errors.js";

export interface CaptionTrack {
  /** Signed, expiring URL: use once, never store. */
  baseUrl: string;
  languageCode: string;
  /** Name in words, e.g. "English (auto-generated)". */
  language: string;
  isGenerated: boolean;
  isTranslatable: boolean;
}

export interface TranslationLanguage {
  languageCode: string;
  language: string;
}

export interface PlayerResult {
  response: unknown;
  tracks: CaptionTrack[];
  translationLanguages: TranslationLanguage[];
  usedProxy: boolean;
}

const AGE_RESTRICTED = "This video may be inappropriate for some users.";
const UNAVAILABLE = "This video is unavailable";

export async function fetchPlayer(
  ctx: ClientContext,
  videoId: string,
  apiKey: string,
  options: { cookie?: string; signal?: AbortSignal },
): Promise<PlayerResult> {
  const response = await ctx.transport.send({
    method: "POST",
    url: `${ctx.origin}/youtubei/v1/player?key=${encodeURIComponent(apiKey)}`,
    headers: {
      "content-type": "application/json",
      "accept-language": "en-US",
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    body: JSON.stringify({ context: { client: ANDROID_CLIENT }, videoId }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const { usedProxy } = response;
  if (response.status >= 400) {
    throw new YouTubeError("upstream_status", `The player endpoint answered HTTP ${response.status}`, {
      status: response.status,
      usedProxy,
    });
  }
  const json = parseJsonBody(response.body, "The player response", usedProxy);
  assertPlayable(json, usedProxy);

  const renderer = dig(json, "captions", "playerCaptionsTracklistRenderer");
  const tracks = asArray(dig(renderer, "captionTracks")).flatMap((raw) => {
    const track = toCaptionTrack(raw);
    return track ? [track] : [];
  });
  if (tracks.length === 0) {
    throw new YouTubeError("transcripts_disabled", "Transcripts are disabled for this video", { usedProxy });
  }
  const translationLanguages = asArray(dig(renderer, "translationLanguages")).flatMap((raw) => {
    const languageCode = asString(dig(raw, "languageCode"));
    if (!languageCode) return [];
    return [{ languageCode, language: textOf(dig(raw, "languageName")) ?? languageCode }];
  });
  return { response: json, tracks, translationLanguages, usedProxy };
}

/** Throws the typed error matching a non-OK `playabilityStatus`. */
export function assertPlayable(json: unknown, usedProxy: boolean): void {
  const playability = dig(json, "playabilityStatus");
  const status = asString(dig(playability, "status"));
  if (status === undefined) {
    throw new YouTubeError("upstream_unparsable", "The player response has no playabilityStatus", { usedProxy });
  }
  if (status === "OK") return;
  const reason = asString(dig(playability, "reason")) ?? textOf(dig(playability, "errorScreen", "playerErrorMessageRenderer", "reason")) ?? "";
  if (status === "LOGIN_REQUIRED" && BOT_CHECK.test(reason)) {
    throw new YouTubeError("request_blocked", "YouTube asked to confirm this is not a bot: the request was blocked", {
      usedProxy,
      reason,
    });
  }
  if (status === "LOGIN_REQUIRED" && reason === AGE_RESTRICTED) {
    throw new YouTubeError("age_restricted", "The video is age restricted and needs a signed-in user", { usedProxy, reason });
  }
  if (status === "ERROR" && reason === UNAVAILABLE) {
    throw new YouTubeError("video_unavailable", "The video is unavailable", { usedProxy, reason });
  }
  const subreasons = asArray(dig(playability, "errorScreen", "playerErrorMessageRenderer", "subreason", "runs"))
    .map((run) => asString(dig(run, "text"))?.trim() ?? "")
    .filter((text) => text.length > 0);
  throw new YouTubeError("unplayable", `The video is unplayable (${status}): ${reason || "no reason given"}`, {
    usedProxy,
    reason,
    subreasons,
  });
}

function toCaptionTrack(raw: unknown): CaptionTrack | undefined {
  const baseUrl = asString(dig(raw, "baseUrl"));
  const languageCode = asString(dig(raw, "languageCode"));
  if (!baseUrl || !languageCode) return undefined;
  const vssId = asString(dig(raw, "vssId")) ?? "";
  return {
    baseUrl,
    languageCode,
    language: textOf(dig(raw, "name")) ?? languageCode,
    isGenerated: dig(raw, "kind") === "asr" || vssId.startsWith("a."),
    isTranslatable: dig(raw, "isTranslatable") === true,
  };
}
