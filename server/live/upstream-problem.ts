/**
 * How every outcome of a live fetch that is not a transcript is told to the
 * API's caller: one table from the YouTube client's error codes to status,
 * problem code, Retry-After and detail, and the server's own outcomes
 * (busy, deadline, shutdown). Both transcript routes answer from here, so an
 * outcome gets the same answer from a single request and from a bulk item.
 * The detail is fixed per code, never the upstream message (it can name
 * proxy hosts or carry YouTube's free text).
 */
import type { YouTubeError, YouTubeErrorCode } from "../../pipeline/youtube/index.js";
import { HttpError } from "../problem/http-error.js";
import type { DocumentedProblem } from "../problem/documented-problem.js";

export interface UpstreamProblem {
  status: number;
  /** The problem code; the client's code unless it clashes with one of the API's own. */
  code: string;
  /** Suggested `Retry-After` for outcomes that a later attempt may fix. */
  retryAfterSeconds?: number;
  detail: string;
}

const LANGUAGE_NOT_AVAILABLE_DETAIL = "The video has no transcript in the requested language; availableLanguages lists those it has.";
const TRACK_NOT_AVAILABLE_DETAIL =
  "The video has a transcript in the requested language, but not of the requested track (manual or auto-generated); track=any answers the one it has.";

const UPSTREAM_PROBLEMS: Record<YouTubeErrorCode, Omit<UpstreamProblem, "code"> & { code?: string }> = {
  invalid_video_id: { status: 400, detail: "The video id is not 11 characters of A-Z, a-z, 0-9, _ or -." },
  invalid_channel: { status: 400, detail: "The channel reference is not valid." },
  video_unavailable: { status: 404, detail: "YouTube reports the video as unavailable (removed, private, or never existed)." },
  transcripts_disabled: { status: 404, detail: "The video has no transcripts: captions are disabled for it." },
  language_not_available: { status: 404, detail: LANGUAGE_NOT_AVAILABLE_DETAIL },
  track_not_available: { status: 404, detail: TRACK_NOT_AVAILABLE_DETAIL },
  unplayable: { status: 404, detail: "YouTube refuses to play the video, so it has no transcript to fetch." },
  channel_not_found: { status: 404, detail: "No such channel on YouTube." },
  // 403, not 451: the video exists and is legal to serve, YouTube just will
  // not hand it to an anonymous client. 451 claims a legal reason, which
  // would be false; 404 would hide that a signed-in user could watch it.
  age_restricted: { status: 403, detail: "The video is age restricted; YouTube serves its transcript to signed-in users only." },
  // YouTube refused or misbehaved: the failure is upstream, not the caller's.
  request_blocked: { status: 502, retryAfterSeconds: 60, detail: "YouTube asked for a bot check on every attempt; try again later." },
  ip_blocked: { status: 502, retryAfterSeconds: 300, detail: "YouTube blocked the addresses this service fetches from; try again later." },
  // Renamed: `rate_limited` is the API's own 429 for its callers.
  rate_limited: {
    status: 502,
    code: "upstream_rate_limited",
    retryAfterSeconds: 60,
    detail: "YouTube rate-limited the fetch on every attempt; try again later.",
  },
  po_token_required: { status: 502, detail: "YouTube requires a proof-of-origin token for this transcript; it cannot be fetched now." },
  consent_failed: { status: 502, detail: "YouTube's consent page could not be passed." },
  upstream_unparsable: { status: 502, detail: "YouTube's answer could not be understood." },
  upstream_status: { status: 502, retryAfterSeconds: 30, detail: "YouTube answered with a server error." },
  upstream_too_large: { status: 502, detail: "YouTube's answer was larger than accepted." },
  empty_transcript: { status: 502, retryAfterSeconds: 30, detail: "YouTube returned an empty transcript." },
  connection_failed: { status: 502, retryAfterSeconds: 30, detail: "The connection to YouTube failed." },
  upstream_timeout: { status: 504, retryAfterSeconds: 30, detail: "YouTube did not answer in time." },
};

/** Client codes of the channel crawl: a transcript fetch never meets them. */
const CHANNEL_ONLY: ReadonlySet<YouTubeErrorCode> = new Set(["invalid_channel", "channel_not_found"]);

/**
 * Every problem a live fetch can answer with, for the OpenAPI document: the
 * table above and the server's own outcomes (busy, deadline, shutdown), so a
 * row added here is documented on every route that fetches live.
 */
export function liveFetchProblems(): DocumentedProblem[] {
  const fromTable = (Object.keys(UPSTREAM_PROBLEMS) as YouTubeErrorCode[])
    .filter((code) => !CHANNEL_ONLY.has(code))
    .map((clientCode): DocumentedProblem => {
      const { status, code, retryAfterSeconds, detail } = upstreamProblem(clientCode);
      return { status, code, description: `Live fetch: ${detail}`, ...(retryAfterSeconds === undefined ? {} : { retryAfter: true }) };
    });
  return [
    ...fromTable,
    { status: 503, code: "upstream_busy", description: `Live fetch: ${BUSY_DETAILS["queue-full"]} Or: ${BUSY_DETAILS.deadline}`, retryAfter: true },
    { status: 504, code: "deadline_exceeded", description: `Live fetch: ${DEADLINE_DETAIL}`, retryAfter: true },
    { status: 503, code: "shutting_down", description: `Live fetch: ${SHUTTING_DOWN_DETAIL}`, retryAfter: true },
  ];
}

/** The answer to a failed live fetch with this client error code. */
export function upstreamProblem(code: YouTubeErrorCode): UpstreamProblem {
  const row = UPSTREAM_PROBLEMS[code];
  return { ...row, code: row.code ?? code };
}

export function upstreamHttpError(error: YouTubeError): HttpError {
  const { status, code, retryAfterSeconds, detail } = upstreamProblem(error.code);
  // YouTube's own Retry-After (on a 429) wins when it asks for a longer pause than the table.
  const retryAfter = Math.max(retryAfterSeconds ?? 0, error.retryAfterSeconds ?? 0);
  const extensions: Record<string, unknown> = {};
  if (error.code === "language_not_available") {
    extensions.availableLanguages = [...new Set((error.availableLanguages ?? []).map((l) => l.languageCode))];
  } else if (error.code === "transcripts_disabled") {
    extensions.availableLanguages = [];
  }
  return new HttpError(status, code, detail, {
    ...(retryAfter > 0 ? { headers: { "Retry-After": String(retryAfter) } } : {}),
    extensions,
    cause: error,
  });
}

/** Storage (or YouTube) has the video, but not in the requested language. */
export function languageNotAvailableError(availableLanguages: readonly string[]): HttpError {
  return new HttpError(404, "language_not_available", LANGUAGE_NOT_AVAILABLE_DETAIL, {
    extensions: { availableLanguages: [...new Set(availableLanguages)] },
  });
}

/** Storage (or YouTube) has the video in the requested language, but not the kind of track asked for. */
export function trackNotAvailableError(): HttpError {
  return new HttpError(404, "track_not_available", TRACK_NOT_AVAILABLE_DETAIL);
}

const BUSY_DETAILS = {
  "queue-full": "Too many transcripts are being fetched from YouTube right now; try again shortly.",
  deadline: "No upstream fetch slot came free before the request's deadline; nothing was fetched. Try again shortly.",
} as const;

/** Default Retry-After of a 503 `upstream_busy`, in seconds. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/** The wait queue of upstream fetches is full, or the caller's deadline passed while its fetch still waited for a slot. */
export function upstreamBusyError(why: keyof typeof BUSY_DETAILS, retryAfterSeconds = BUSY_RETRY_AFTER_SECONDS): HttpError {
  return new HttpError(503, "upstream_busy", BUSY_DETAILS[why], {
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

/** Seconds to suggest after `deadline_exceeded`: the fetch goes on, and is usually stored by then. */
export const DEADLINE_RETRY_AFTER_SECONDS = 5;

const DEADLINE_DETAIL =
  "The transcript was still being fetched from YouTube when the request's deadline passed; the fetch goes on and is stored, so a retry shortly may find it.";

/** The caller's deadline passed while its transcript was being fetched; the fetch goes on and is stored. */
export function deadlineExceededError(): HttpError {
  return new HttpError(504, "deadline_exceeded", DEADLINE_DETAIL, { headers: { "Retry-After": String(DEADLINE_RETRY_AFTER_SECONDS) } });
}

const SHUTTING_DOWN_DETAIL = "The server is shutting down; try again shortly.";

/** The server is stopping and abandoned the fetch. */
export function shuttingDownError(): HttpError {
  return new HttpError(503, "shutting_down", SHUTTING_DOWN_DETAIL, {
    headers: { "Retry-After": "5" },
  });
}
