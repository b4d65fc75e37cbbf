/**
 * The one way a request gets a transcript: from storage (the artifact set,
 * then the live store, through the catalog), else fetched live from the
 * transcript source, which stores it. Every outcome that is not a
 * transcript is an `HttpError`, so a single request and a bulk item for the
 * same id get the same code. The single route calls `resolveTranscript`;
 * the bulk route runs its two steps apart (every stored lookup first, then
 * its misses a few at a time) through the same `lookupStored` and `fetchLive`.
 */
import { isOfKind, type TrackKind } from "../../pipeline/artifact/contract/index.js";
import type { Catalog, StoredTranscript } from "../data/catalog.js";
import { untilDeadline } from "../http/deadline.js";
import { HttpError } from "../problem/http-error.js";
import { languageNotAvailableError, trackNotAvailableError } from "./upstream-problem.js";
import type { TranscriptFetchOptions, TranscriptSource, TranscriptSourceResult } from "./transcript-source.js";

export interface ResolvedTranscript {
  stored: StoredTranscript;
  /** true when served from storage, false when fetched during this request. */
  cached: boolean;
  /** `storage`, or the live fetch's method. */
  method: string;
  usedProxy: boolean;
}

/**
 * Whether what storage lacks is fetched live: `on`; `off` when there is no
 * transcript source (LIVE_FETCH=off); `not-requested` when the caller said
 * not to (a bulk request's `fetchMissing: false`).
 */
export type LiveFetch = "on" | "off" | "not-requested";

/**
 * Storage's answer: a transcript, the problem to answer, or a miss to fetch
 * live; `languageStored` when the language is stored, as the other kind of track than the one asked for.
 */
export type StoredAnswer =
  | { kind: "found"; transcript: ResolvedTranscript }
  | { kind: "problem"; error: HttpError }
  | { kind: "miss"; languageStored: boolean };

export function lookupStored(
  catalog: Pick<Catalog, "getTranscript">,
  videoId: string,
  lang: string,
  live: LiveFetch,
  track: TrackKind = "any",
): StoredAnswer {
  const lookup = catalog.getTranscript(videoId, lang, track);
  if (lookup.kind === "found") {
    return { kind: "found", transcript: { stored: lookup.stored, cached: true, method: "storage", usedProxy: false } };
  }
  // Unknown, stored in other languages or as the other kind of track only, or stored without a transcript: YouTube may have it now.
  if (live === "on") return { kind: "miss", languageStored: lookup.kind === "other-track" };
  switch (lookup.kind) {
    case "other-track":
      return { kind: "problem", error: trackNotAvailableError() };
    case "other-languages":
      return { kind: "problem", error: languageNotAvailableError(lookup.languages) };
    case "no-transcript":
      return { kind: "problem", error: new HttpError(404, "transcript_not_found", "The video is stored but has no transcript.") };
    case "unknown":
      return {
        kind: "problem",
        error:
          live === "off"
            ? new HttpError(404, "video_not_found", "No video with this id is stored.")
            : new HttpError(404, "not_fetched", "Not stored, and fetchMissing is false."),
      };
  }
}

/**
 * Fetches (and so stores) a miss. Throws an `HttpError` for every outcome
 * that is not a transcript. A kind of track asked for in a language not
 * stored at all is fetched after the track a request without `track` would
 * fetch (when that one is not of the kind), so storage never holds a
 * language's auto-generated track without the manual one YouTube has, and a
 * later request without `track` still answers the manual one.
 */
export async function fetchLive(
  source: TranscriptSource,
  videoId: string,
  lang: string,
  options: TranscriptFetchOptions & { languageStored: boolean },
): Promise<ResolvedTranscript> {
  const { languageStored, track = "any", ...rest } = options;
  if (track !== "any" && !languageStored) {
    const first = await source.fetch(videoId, lang, { ...rest, track: "any" });
    if (isOfKind(first.stored.transcript.isGenerated, track)) return resolvedFrom(first);
  }
  return resolvedFrom(await source.fetch(videoId, lang, { ...rest, track }));
}

function resolvedFrom({ stored, method, usedProxy, cached = false }: TranscriptSourceResult): ResolvedTranscript {
  return { stored, cached, method, usedProxy };
}

export interface ResolveOptions {
  includeMetadata: boolean;
  /** The kind of track (default `any`); a live fetch fetches that kind. */
  track?: TrackKind;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** The request's deadline (`performance.now()` time); a live fetch is waited for until then. */
  deadline: number;
}

/** Storage, else a live fetch waited for until the request's deadline. */
export async function resolveTranscript(
  catalog: Pick<Catalog, "getTranscript">,
  source: TranscriptSource | undefined,
  videoId: string,
  lang: string,
  { includeMetadata, track = "any", signal, deadline }: ResolveOptions,
): Promise<ResolvedTranscript> {
  const answer = lookupStored(catalog, videoId, lang, source === undefined ? "off" : "on", track);
  if (answer.kind === "found") return answer.transcript;
  if (answer.kind === "problem") throw answer.error;
  const wait = untilDeadline(signal, deadline);
  try {
    // A miss comes back only when there is a source.
    return await fetchLive(source as TranscriptSource, videoId, lang, { includeMetadata, track, languageStored: answer.languageStored, signal: wait.signal });
  } finally {
    wait.clear();
  }
}
