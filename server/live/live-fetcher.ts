/**
 * The transcript source behind a miss: fetch from YouTube, store durably in
 * the live store, answer with the stored view read back from the catalog
 * (so a live answer and the next, cached one are built the same way).
 *
 * Per (video, language) one upstream fetch at a time (single-flight); all
 * fetches share a p-queue of `concurrency` slots and a bounded wait queue,
 * beyond which callers get 503 `upstream_busy` at once instead of waiting
 * without end. "No transcript" outcomes are remembered (negative cache).
 */
import PQueue from "p-queue";
import { isYouTubeError, YouTubeError, type YouTubeClient } from "../../pipeline/youtube/index.js";
import { prepareTrack } from "../../pipeline/segments.js";
import type { VideoRecord } from "../../pipeline/contract.js";
import type { TranscriptLookup } from "../data/catalog.js";
import type { Logger } from "../log.js";
import type { TranscriptFetchOptions, TranscriptSource, TranscriptSourceResult } from "../transcript-source.js";
import { NegativeCache } from "./negative-cache.js";
import { SingleFlight } from "./single-flight.js";
import { shuttingDownError, upstreamBusyError, upstreamHttpError } from "./upstream-problem.js";

/** What the fetcher needs of the served catalog: read back, and store into the live store. */
export interface LiveCatalog {
  getTranscript(videoId: string, languageCode: string): TranscriptLookup;
  storeLive(record: VideoRecord): void;
}

export interface LiveFetcherOptions {
  client: Pick<YouTubeClient, "fetchTranscript">;
  /** The catalog being served now; read at store time, so a hot switch is followed. */
  catalogs: { readonly current: LiveCatalog };
  /** Upstream fetches running at once, over all requests. */
  concurrency: number;
  /** Fetches that may wait for a slot; one more is refused with 503 `upstream_busy`. */
  maxQueue: number;
  /** How long "no transcript" outcomes are remembered, in ms; 0 disables. */
  negativeCacheMs: number;
  /** Most remembered outcomes. */
  negativeCacheSize: number;
  /** Retry-After of a 503 `upstream_busy`, in seconds. Default 5. */
  busyRetryAfterSeconds?: number;
  /** Milliseconds since the epoch (negative-cache expiry). Default Date.now. */
  clock?: () => number;
  log?: Logger;
}

export interface LiveFetcherStats {
  /** Fetches that went upstream (single-flight leaders). */
  upstreamFetches: number;
  /** Requests that joined a fetch already in flight. */
  joined: number;
  /** Requests answered from the negative cache. */
  negativeHits: number;
  /** Requests refused because the wait queue was full. */
  refusedBusy: number;
  /** Records written to the live store. */
  stored: number;
}

export interface LiveFetcher extends TranscriptSource {
  readonly stats: LiveFetcherStats;
  /** Fetches running and waiting. */
  readonly load: { running: number; waiting: number };
  /** Abandons fetches in progress (their callers get 503 `shutting_down`) and refuses new ones. */
  close(): Promise<void>;
}

export function createLiveFetcher(options: LiveFetcherOptions): LiveFetcher {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new TypeError('Expected the "concurrency" option to be a positive integer');
  }
  if (!Number.isInteger(options.maxQueue) || options.maxQueue < 0) {
    throw new TypeError('Expected the "maxQueue" option to be a non-negative integer');
  }
  const { client, catalogs, log } = options;
  const queue = new PQueue({ concurrency: options.concurrency });
  const flights = new SingleFlight<TranscriptSourceResult>();
  const negative = new NegativeCache({
    ttlMs: options.negativeCacheMs,
    maxEntries: options.negativeCacheSize,
    ...(options.clock ? { now: options.clock } : {}),
  });
  const shutdown = new AbortController();
  const busyRetryAfter = options.busyRetryAfterSeconds ?? 5;
  const stats: LiveFetcherStats = { upstreamFetches: 0, joined: 0, negativeHits: 0, refusedBusy: 0, stored: 0 };

  const fetchAndStore = async (videoId: string, lang: string): Promise<TranscriptSourceResult> => {
    if (shutdown.signal.aborted) throw shuttingDownError();
    stats.upstreamFetches++;
    let fetched;
    try {
      // Metadata costs nothing extra (the watch page is fetched anyway) and
      // makes the stored record complete whichever caller started the fetch.
      fetched = await client.fetchTranscript(videoId, { languages: [lang], includeMetadata: true, signal: shutdown.signal });
    } catch (error) {
      if (isYouTubeError(error)) {
        const remembered = negative.remember(videoId, lang, error);
        log?.info("live fetch failed", { videoId, lang, code: error.code, usedProxy: error.usedProxy ?? false, remembered });
        throw upstreamHttpError(error);
      }
      if (shutdown.signal.aborted) throw shuttingDownError();
      throw error;
    }
    const track = fetched.record.transcripts[0];
    if (track === undefined || prepareTrack(track) === undefined) {
      // Nothing would be served; store nothing rather than a video without its transcript.
      throw upstreamHttpError(new YouTubeError("empty_transcript", "The chosen track has no text", { usedProxy: fetched.usedProxy }));
    }
    // Store and read back in one synchronous step: no hot switch can fall between them.
    const catalog = catalogs.current;
    catalog.storeLive(fetched.record);
    stats.stored++;
    const lookup = catalog.getTranscript(videoId, lang);
    if (lookup.kind !== "found") throw new Error(`stored ${videoId} (${lang}) but cannot read it back (${lookup.kind})`);
    log?.info("live fetch stored", { videoId, lang: track.languageCode, isGenerated: track.isGenerated, usedProxy: fetched.usedProxy });
    return { stored: lookup.stored, method: fetched.method, usedProxy: fetched.usedProxy };
  };

  const admit = (videoId: string, lang: string): Promise<TranscriptSourceResult> => {
    if (shutdown.signal.aborted) throw shuttingDownError();
    const slotsFree = queue.pending < queue.concurrency;
    if (!slotsFree && queue.size >= options.maxQueue) {
      stats.refusedBusy++;
      log?.warn("live fetch refused: queue full", { running: queue.pending, waiting: queue.size });
      throw upstreamBusyError(busyRetryAfter);
    }
    return queue.add(() => fetchAndStore(videoId, lang));
  };

  return {
    stats,
    get load() {
      return { running: queue.pending, waiting: queue.size };
    },
    async fetch(videoId: string, lang: string, { signal }: TranscriptFetchOptions): Promise<TranscriptSourceResult> {
      const remembered = negative.get(videoId, lang);
      if (remembered !== undefined) {
        stats.negativeHits++;
        throw upstreamHttpError(remembered);
      }
      let leader = false;
      const result = flights.run(
        `${videoId}\u0000${lang}`,
        () => {
          leader = true;
          return admit(videoId, lang);
        },
        signal,
      );
      if (!leader) stats.joined++;
      return result;
    },
    async close() {
      // Waiting tasks still run, but see the abort at once and settle their callers.
      shutdown.abort(new Error("live fetcher closed"));
      await queue.onIdle();
    },
  };
}
