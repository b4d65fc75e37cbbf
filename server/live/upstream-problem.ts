/**
 * How a failed live fetch is told to the API's caller: the status and
 * Retry-After come from the client's one table (`youtubeErrorStatus`), the
 * code from the outcome, and the detail from a fixed text per code, never
 * from the upstream message (it can name proxy hosts or carry YouTube's
 * free text).
 */
import { youtubeErrorStatus, type YouTubeError, type YouTubeErrorCode } from "../../pipeline/youtube/index.js";
import { HttpError } from "../http/http-error.js";

/** Problem codes that differ from the client's: `rate_limited` is already the API's own 429. */
const API_CODES: Partial<Record<YouTubeErrorCode, string>> = {
  rate_limited: "upstream_rate_limited",
};

const DETAILS: Record<YouTubeErrorCode, string> = {
  invalid_video_id: "The video id is not 11 characters of A-Z, a-z, 0-9, _ or -.",
  invalid_channel: "The channel reference is not valid.",
  video_unavailable: "YouTube reports the video as unavailable (removed, private, or never existed).",
  transcripts_disabled: "The video has no transcripts: captions are disabled for it.",
  language_not_available: "The video has no transcript in the requested language; availableLanguages lists those it has.",
  unplayable: "YouTube refuses to play the video, so it has no transcript to fetch.",
  age_restricted: "The video is age restricted; YouTube serves its transcript to signed-in users only.",
  channel_not_found: "No such channel on YouTube.",
  po_token_required: "YouTube requires a proof-of-origin token for this transcript; it cannot be fetched now.",
  request_blocked: "YouTube asked for a bot check on every attempt; try again later.",
  ip_blocked: "YouTube blocked the addresses this service fetches from; try again later.",
  rate_limited: "YouTube rate-limited the fetch on every attempt; try again later.",
  consent_failed: "YouTube's consent page could not be passed.",
  empty_transcript: "YouTube returned an empty transcript.",
  upstream_timeout: "YouTube did not answer in time.",
  upstream_status: "YouTube answered with a server error.",
  upstream_unparsable: "YouTube's answer could not be understood.",
  upstream_too_large: "YouTube's answer was larger than accepted.",
  connection_failed: "The connection to YouTube failed.",
};

export function upstreamHttpError(error: YouTubeError): HttpError {
  const { status, retryAfterSeconds } = youtubeErrorStatus(error.code);
  // YouTube's own Retry-After (on a 429) wins when it asks for a longer pause than the table.
  const retryAfter = Math.max(retryAfterSeconds ?? 0, error.retryAfterSeconds ?? 0);
  const extensions: Record<string, unknown> = {};
  if (error.code === "language_not_available") {
    extensions.availableLanguages = [...new Set((error.availableLanguages ?? []).map((l) => l.languageCode))];
  } else if (error.code === "transcripts_disabled") {
    extensions.availableLanguages = [];
  }
  return new HttpError(status, API_CODES[error.code] ?? error.code, DETAILS[error.code], {
    ...(retryAfter > 0 ? { headers: { "Retry-After": String(retryAfter) } } : {}),
    extensions,
    cause: error,
  });
}

const BUSY_DETAILS = {
  "queue-full": "Too many transcripts are being fetched from YouTube right now; try again shortly.",
  deadline: "No upstream fetch slot came free before the request's deadline; nothing was fetched. Try again shortly.",
} as const;

/** The wait queue of upstream fetches is full, or the caller's deadline passed while its fetch still waited for a slot. */
export function upstreamBusyError(retryAfterSeconds: number, why: keyof typeof BUSY_DETAILS = "queue-full"): HttpError {
  return new HttpError(503, "upstream_busy", BUSY_DETAILS[why], {
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

/** Seconds to suggest after `deadline_exceeded`: the fetch goes on, and is usually stored by then. */
export const DEADLINE_RETRY_AFTER_SECONDS = 5;

/** The caller's deadline passed while its transcript was being fetched; the fetch goes on and is stored. */
export function deadlineExceededError(): HttpError {
  return new HttpError(
    504,
    "deadline_exceeded",
    "The transcript was still being fetched from YouTube when the request's deadline passed; the fetch goes on and is stored, so a retry shortly may find it.",
    { headers: { "Retry-After": String(DEADLINE_RETRY_AFTER_SECONDS) } },
  );
}

/** The server is stopping and abandoned the fetch. */
export function shuttingDownError(): HttpError {
  return new HttpError(503, "shutting_down", "The server is shutting down; try again shortly.", {
    headers: { "Retry-After": "5" },
  });
}
