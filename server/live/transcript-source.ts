/**
 * Where transcripts that are not in storage come from (the live fetcher).
 * `resolveTranscript` calls it for what storage lacks. Every outcome that is
 * not a transcript is an `HttpError` (server/live/upstream-problem.ts builds
 * them); anything else it throws is the caller's signal reason (the client
 * left) or a bug (500).
 */
import type { TrackKind } from "../../pipeline/artifact/contract/index.js";
import type { StoredTranscript } from "../data/catalog.js";

export interface TranscriptSourceResult {
  stored: StoredTranscript;
  /** Retrieval method, reported as `debug.method`. */
  method: string;
  usedProxy: boolean;
  /** Found stored after all (another replica stored it moments ago): answered `cached: true`. */
  cached?: boolean;
}

export interface TranscriptFetchOptions {
  includeMetadata: boolean;
  /** The kind of track to fetch (default `any`: manual, else auto-generated); the answer is of that kind or a 404 `track_not_available`. */
  track?: TrackKind;
  /** Ends this caller's wait: the client went away or the request's deadline passed (`untilDeadline`). */
  signal: AbortSignal;
  /** A bulk request's miss: it waits behind single requests' misses for a slot. Default false. */
  bulk?: boolean;
}

export interface TranscriptSource {
  fetch(videoId: string, lang: string, options: TranscriptFetchOptions): Promise<TranscriptSourceResult>;
  /** Reports each fetch's outcome (for /metrics); returns the remover. Optional: a source without it is not counted. */
  observe?(listener: (event: LiveFetchEvent) => void): () => void;
}

/** A live-fetch event, as the live fetcher reports it (server/live/live-fetcher.ts), counted by /metrics. */
export interface LiveFetchEvent {
  /**
   * `stored`: fetched and stored; `upstream_error`: YouTube answered no transcript or failed (`kind` says how);
   * `negative_cache`: answered from the remembered "no transcript"; `joined`: waited on a fetch already under way;
   * `busy`: refused, queue full; `deadline`: the request's deadline passed first; `withdrawn`: left the queue unfetched.
   */
  outcome: "stored" | "upstream_error" | "negative_cache" | "joined" | "busy" | "deadline" | "withdrawn";
  /** For `upstream_error`: the YouTubeError code (`video_unavailable`, `request_blocked`, `upstream_timeout` …). */
  kind?: string;
}
