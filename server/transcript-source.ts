/**
 * Where transcripts that are not in storage come from (the live fetcher).
 * `resolveTranscript` calls it for what storage lacks. Every outcome that is
 * not a transcript is an `HttpError` (server/live/upstream-problem.ts builds
 * them); anything else it throws is the caller's signal reason (the client
 * left) or a bug (500).
 */
import type { StoredTranscript } from "./data/catalog.js";

export interface TranscriptSourceResult {
  stored: StoredTranscript;
  /** Retrieval method, reported as `debug.method`. */
  method: string;
  usedProxy: boolean;
}

export interface TranscriptFetchOptions {
  includeMetadata: boolean;
  /** Ends this caller's wait: the client went away or the request's deadline passed (`untilDeadline`). */
  signal: AbortSignal;
  /** A bulk request's miss: it waits behind single requests' misses for a slot. Default false. */
  bulk?: boolean;
}

export interface TranscriptSource {
  fetch(videoId: string, lang: string, options: TranscriptFetchOptions): Promise<TranscriptSourceResult>;
}
