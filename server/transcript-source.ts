/**
 * Where transcripts that are not in storage come from (the live fetcher).
 * Routes call it only for videos the catalog does not know. Its failures are
 * typed: anything carrying a numeric `status` and a string `code` is passed on
 * to the client as that problem; anything else is a bug (500).
 */
import type { StoredTranscript } from "./data/catalog.js";
import { HttpError } from "./http/http-error.js";

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

interface TypedSourceError {
  status: number;
  code: string;
  message: string;
}

function isTypedSourceError(error: unknown): error is TypedSourceError {
  if (typeof error !== "object" || error === null) return false;
  const { status, code } = error as Partial<TypedSourceError>;
  return Number.isInteger(status) && typeof code === "string" && /^[a-z][a-z0-9_]*$/.test(code);
}

/** The HttpError a source failure becomes; undefined for errors that are not typed (bugs). */
export function sourceHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (!isTypedSourceError(error)) return undefined;
  const status = error.status >= 400 && error.status <= 599 ? error.status : 502;
  return new HttpError(status, error.code, error.message, { cause: error });
}
