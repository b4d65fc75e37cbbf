/**
 * How the server answers its own callers when YouTube failed: one table, so
 * every route maps the same outcome to the same status.
 */
import type { YouTubeErrorCode } from "./errors.js";

export interface YouTubeErrorHttp {
  status: number;
  /** Suggested `Retry-After` for outcomes that a later attempt may fix. */
  retryAfterSeconds?: number;
}

const TABLE: Record<YouTubeErrorCode, YouTubeErrorHttp> = {
  invalid_video_id: { status: 400 },
  invalid_channel: { status: 400 },
  video_unavailable: { status: 404 },
  transcripts_disabled: { status: 404 },
  language_not_available: { status: 404 },
  unplayable: { status: 404 },
  channel_not_found: { status: 404 },
  // 403, not 451: the video exists and is legal to serve, YouTube just will
  // not hand it to an anonymous client. 451 claims a legal reason, which
  // would be false; 404 would hide that a signed-in user could watch it. The
  // distinct `age_restricted` code in the body tells callers the rest.
  age_restricted: { status: 403 },
  // YouTube refused or misbehaved: the failure is upstream, not the caller's.
  request_blocked: { status: 502, retryAfterSeconds: 60 },
  ip_blocked: { status: 502, retryAfterSeconds: 300 },
  rate_limited: { status: 502, retryAfterSeconds: 60 },
  po_token_required: { status: 502 },
  consent_failed: { status: 502 },
  upstream_unparsable: { status: 502 },
  upstream_status: { status: 502, retryAfterSeconds: 30 },
  upstream_too_large: { status: 502 },
  empty_transcript: { status: 502, retryAfterSeconds: 30 },
  connection_failed: { status: 502, retryAfterSeconds: 30 },
  upstream_timeout: { status: 504, retryAfterSeconds: 30 },
};

export function youtubeErrorStatus(code: YouTubeErrorCode): YouTubeErrorHttp {
  return TABLE[code];
}
