/**
 * Every outcome of a YouTube call that is not a transcript, as one error
 * class with a stable `code`. Callers branch on `code` and `kind`, never on
 * the message, which is for people.
 */

/**
 * - `permanent`: asking again gives the same answer (the video is gone, has no captions…).
 * - `blocked`: YouTube refused this IP; another IP (the next proxy) may succeed.
 * - `transient`: the upstream misbehaved (timeout, 5xx, garbage); a later retry may succeed.
 */
export type YouTubeErrorKind = "permanent" | "blocked" | "transient";

export const YOUTUBE_ERROR_KINDS = {
  invalid_video_id: "permanent",
  video_unavailable: "permanent",
  transcripts_disabled: "permanent",
  language_not_available: "permanent",
  track_not_available: "permanent",
  age_restricted: "permanent",
  unplayable: "permanent",
  channel_not_found: "permanent",
  invalid_channel: "permanent",
  po_token_required: "permanent",
  request_blocked: "blocked",
  ip_blocked: "blocked",
  rate_limited: "blocked",
  consent_failed: "transient",
  empty_transcript: "transient",
  upstream_timeout: "transient",
  upstream_status: "transient",
  upstream_unparsable: "transient",
  upstream_too_large: "transient",
  connection_failed: "transient",
} as const satisfies Record<string, YouTubeErrorKind>;

export type YouTubeErrorCode = keyof typeof YOUTUBE_ERROR_KINDS;

export interface AvailableLanguage {
  languageCode: string;
  language: string;
  isGenerated: boolean;
}

export interface YouTubeErrorDetails {
  /** HTTP status of the upstream response, for `upstream_status` and `rate_limited`. */
  status?: number;
  /** Seconds from an upstream `Retry-After` header. */
  retryAfterSeconds?: number;
  /** YouTube's playability reason, for `unplayable`. */
  reason?: string;
  /** YouTube's sub-reasons (errorScreen runs), for `unplayable`. */
  subreasons?: string[];
  /** The tracks the video does have, for `language_not_available` and `track_not_available`. */
  availableLanguages?: AvailableLanguage[];
  /** Whether the failing call went through a proxy. */
  usedProxy?: boolean;
  /** The kind, where this answer differs from its code's usual one (an empty caption body is YouTube refusing the address). */
  kind?: YouTubeErrorKind;
  cause?: unknown;
}

export class YouTubeError extends Error {
  readonly code: YouTubeErrorCode;
  readonly kind: YouTubeErrorKind;
  readonly status?: number;
  readonly retryAfterSeconds?: number;
  readonly reason?: string;
  readonly subreasons?: string[];
  readonly availableLanguages?: AvailableLanguage[];
  readonly usedProxy?: boolean;

  constructor(code: YouTubeErrorCode, message: string, details: YouTubeErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "YouTubeError";
    this.code = code;
    this.kind = details.kind ?? YOUTUBE_ERROR_KINDS[code];
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.reason !== undefined) this.reason = details.reason;
    if (details.subreasons !== undefined) this.subreasons = details.subreasons;
    if (details.availableLanguages !== undefined) this.availableLanguages = details.availableLanguages;
    if (details.usedProxy !== undefined) this.usedProxy = details.usedProxy;
  }

  /** Whether asking again (possibly through another proxy) can succeed. */
  get retryable(): boolean {
    return this.kind !== "permanent";
  }
}

export function isYouTubeError(error: unknown, code?: YouTubeErrorCode): error is YouTubeError {
  return error instanceof YouTubeError && (code === undefined || error.code === code);
}
