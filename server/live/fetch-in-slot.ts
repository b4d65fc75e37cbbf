/**
 * The fetch that runs in a slot of the live fetcher. It first claims its
 * (video, language) through `coordination`: the process that gets the claim
 * fetches from YouTube, commits the record to the shared live store (when
 * there is one), stores it in the catalog's live store and reads it back;
 * the others wait for its outcome and read the record back themselves. A
 * waiter that cannot read the record back (a replica with its own live
 * store) claims again and fetches it itself once the first fetch is over.
 */
import { isYouTubeError, YouTubeError, type FetchTranscriptResult } from "../../pipeline/youtube/index.js";
import { prepareTrack } from "../../pipeline/artifact/segments/index.js";
import type { TranscriptRecord } from "../../pipeline/artifact/contract/index.js";
import type { TranscriptSourceResult } from "./transcript-source.js";
import { shareYouTubeError, youTubeErrorFrom, type Claim } from "./fetch-coordination.js";
import type { FetchContext, Wanted } from "./fetch-context.js";
import { kindLanguage } from "./negative-cache.js";
import { shuttingDownError, upstreamHttpError } from "./upstream-problem.js";

/** Times a waiter claims again after an outcome `stored` it cannot read back (one per other replica, in practice). */
const UNREADABLE_RECLAIMS = 8;

/** This process's fetch, or another's that holds the claim (then its outcome, read back here). */
export async function fetchInSlot(context: FetchContext, wanted: Wanted, key: string): Promise<TranscriptSourceResult> {
  const { videoId, lang, track } = wanted;
  let unreadable = 0;
  for (;;) {
    if (context.closed.aborted) throw shuttingDownError();
    const claim = await untilClosed(context.closed, context.coordination.claims.claim(key));
    if (claim.role === "leader") return lead(context, wanted, claim);
    const outcome = await untilClosed(context.closed, claim.outcome);
    if (outcome.kind === "failed") throw upstreamHttpError(youTubeErrorFrom(outcome.error));
    if (outcome.kind === "abandoned") continue;
    if (outcome.seq !== undefined && context.shared) await untilClosed(context.closed, context.shared.mirroredThrough(outcome.seq));
    const catalog = context.catalogs.current;
    catalog.refreshLive?.();
    const lookup = catalog.getTranscript(videoId, lang, track);
    if (lookup.kind === "found") {
      context.stats.joinedElsewhere++;
      return { stored: lookup.stored, method: outcome.method, usedProxy: outcome.usedProxy };
    }
    // Stored by a replica whose live store this process cannot read (no shared store): claim
    // again and fetch here, once the other fetch is over. Bounded, in case the store is broken.
    if (++unreadable > UNREADABLE_RECLAIMS) {
      throw new Error(`another process stored ${videoId} (${lang}) but it cannot be read back (${lookup.kind})`);
    }
    context.log?.debug("live fetch stored elsewhere, not readable here; claiming again", { videoId, lang });
  }
}

/** Fetches and stores under the claim, and settles it with how that ended. */
async function lead(context: FetchContext, wanted: Wanted, claim: Extract<Claim, { role: "leader" }>): Promise<TranscriptSourceResult> {
  context.log?.debug("live fetch claimed", { ...wanted });
  try {
    const stored = await storedElsewhere(context, wanted);
    if (stored) {
      claim.settle({ kind: "stored", method: stored.method, usedProxy: false });
      return stored;
    }
    const { result, seq } = await fetchUpstream(context, wanted);
    claim.settle({ kind: "stored", method: result.method, usedProxy: result.usedProxy, ...(seq === undefined ? {} : { seq }) });
    return result;
  } catch (error) {
    const youTube = error instanceof UpstreamFailure ? error.youTube : undefined;
    claim.settle(youTube ? { kind: "failed", error: shareYouTubeError(youTube) } : { kind: "abandoned" });
    throw error instanceof UpstreamFailure ? error.http : error;
  }
}

/** With a shared store: the record another replica committed before this miss was asked (not yet mirrored), if any. */
async function storedElsewhere(context: FetchContext, { videoId, lang, track }: Wanted): Promise<TranscriptSourceResult | undefined> {
  if (!context.shared || !(await untilClosed(context.closed, context.shared.catchUp()))) return undefined;
  const lookup = context.catalogs.current.getTranscript(videoId, lang, track);
  return lookup.kind === "found" ? { stored: lookup.stored, method: "storage", usedProxy: false, cached: true } : undefined;
}

/** YouTube's record, stored; a failure is remembered (negative cache) and thrown as an UpstreamFailure. */
async function fetchUpstream(context: FetchContext, wanted: Wanted): Promise<{ result: TranscriptSourceResult; seq: number | undefined }> {
  if (context.closed.aborted) throw shuttingDownError();
  context.stats.upstreamFetches++;
  const fetched = await fetchFromYouTube(context, wanted);
  const chosen = fetched.record.transcripts[0];
  if (chosen === undefined || prepareTrack(chosen) === undefined) {
    // Nothing would be served; store nothing rather than a video without its transcript.
    context.emit({ outcome: "upstream_error", kind: "empty_transcript" });
    throw new UpstreamFailure(new YouTubeError("empty_transcript", "The chosen track has no text", { usedProxy: fetched.usedProxy }));
  }
  return storeFetched(context, wanted, fetched, chosen);
}

async function fetchFromYouTube(context: FetchContext, { videoId, lang, track }: Wanted): Promise<FetchTranscriptResult> {
  try {
    // Metadata costs nothing extra (the watch page is fetched anyway) and
    // makes the stored record complete whichever caller started the fetch.
    return await context.client.fetchTranscript(videoId, { languages: [lang], track, includeMetadata: true, signal: context.closed });
  } catch (error) {
    if (isYouTubeError(error)) {
      // Only the missing kind is remembered per kind; the video's other outcomes hold whatever kind is asked for.
      const remembered = await context.coordination.negative
        .remember(videoId, error.code === "track_not_available" && track !== "any" ? kindLanguage(lang, track) : lang, error)
        .catch(() => false);
      context.log?.info("live fetch failed", { videoId, lang, track, code: error.code, usedProxy: error.usedProxy ?? false, remembered });
      context.emit({ outcome: "upstream_error", kind: error.code });
      throw new UpstreamFailure(error);
    }
    if (context.closed.aborted) throw shuttingDownError();
    throw error;
  }
}

/** The shared store first, then this catalog's live store, read back as the answer. */
async function storeFetched(
  context: FetchContext,
  { videoId, lang, track }: Wanted,
  fetched: FetchTranscriptResult,
  chosen: TranscriptRecord,
): Promise<{ result: TranscriptSourceResult; seq: number | undefined }> {
  // Shared store first: nothing is answered as stored that another replica (or the next build) could miss.
  const fetchedAt = new Date();
  let seq: number | undefined;
  let queued = false;
  if (context.shared) {
    try {
      seq = await context.shared.commit(fetched.record, fetchedAt);
    } catch (error) {
      // PostgreSQL unreachable: stored here and queued for it (durable in live.db), unless the queue is full.
      if (!context.shared.queueRoom()) throw error;
      queued = true;
    }
  }
  // Store and read back in one synchronous step: no hot switch can fall between them.
  const catalog = context.catalogs.current;
  catalog.storeLive(fetched.record, seq !== undefined ? { seq, fetchedAt } : queued ? { pending: true, fetchedAt } : {});
  context.stats.stored++;
  context.emit({ outcome: "stored" });
  const lookup = catalog.getTranscript(videoId, lang, track);
  if (lookup.kind !== "found") throw new Error(`stored ${videoId} (${lang}, ${track}) but cannot read it back (${lookup.kind})`);
  context.log?.info("live fetch stored", { videoId, lang: chosen.languageCode, isGenerated: chosen.isGenerated, usedProxy: fetched.usedProxy, ...(queued ? { queued } : {}) });
  return { result: { stored: lookup.stored, method: fetched.method, usedProxy: fetched.usedProxy }, seq };
}

/** Waits for `promise` unless the fetcher closes first. */
function untilClosed<T>(closed: AbortSignal, promise: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (closed.aborted) return reject(shuttingDownError());
    const onClose = (): void => reject(shuttingDownError());
    closed.addEventListener("abort", onClose, { once: true });
    promise.then(
      (value) => {
        closed.removeEventListener("abort", onClose);
        resolve(value);
      },
      (error: unknown) => {
        closed.removeEventListener("abort", onClose);
        reject(error);
      },
    );
  });
}

/** A YouTube answer that is not a transcript, with the problem it is answered with. */
class UpstreamFailure extends Error {
  readonly http: Error;
  constructor(readonly youTube: YouTubeError) {
    super(youTube.message);
    this.http = upstreamHttpError(youTube);
  }
}
