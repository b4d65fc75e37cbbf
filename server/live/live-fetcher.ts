/**
 * The transcript source behind a miss: fetch from YouTube, store durably in
 * the live store, answer with the stored view read back from the catalog
 * (so a live answer and the next, cached one are built the same way).
 *
 * Per (video, language, kind of track) one upstream fetch at a time (single-flight, with
 * the language compared as `pipeline/artifact/language.ts` says); all
 * fetches share a p-queue of `concurrency` slots and a bounded wait queue,
 * beyond which callers get 503 `upstream_busy` at once instead of waiting
 * without end. A single request's fetch waits ahead of a bulk request's, so
 * a bulk never queues single requests behind it. A caller waits until its
 * signal aborts (client gone, or its deadline: 503 `upstream_busy` while
 * still queued, 504 `deadline_exceeded` once running); a queued fetch whose
 * callers all left is withdrawn and takes no slot, a running one goes on and
 * is stored. "No transcript" outcomes are remembered (negative cache).
 *
 * Where several processes serve one service (WORKERS, replicas), the fetch in
 * a slot first claims its (video, language) through `coordination`: one
 * process fetches, the others wait for its outcome and read the record back
 * from the shared live store; the negative cache is shared the same way. A
 * waiter that cannot read the record back (a replica with its own live store)
 * claims again and fetches it itself once the first fetch is over.
 */
import PQueue from "p-queue";
import { languageKey } from "../../pipeline/artifact/language.js";
import type { TrackKind } from "../../pipeline/artifact/track-kind.js";
import { isYouTubeError, YouTubeError, type YouTubeClient } from "../../pipeline/youtube/index.js";
import { prepareTrack } from "../../pipeline/artifact/segments.js";
import type { VideoRecord } from "../../pipeline/artifact/contract.js";
import type { TranscriptLookup } from "../data/catalog.js";
import { isDeadlineExceeded } from "../http/deadline.js";
import type { Logger } from "../log.js";
import type { LiveFetchEvent, TranscriptFetchOptions, TranscriptSource, TranscriptSourceResult } from "./transcript-source.js";
import { localFetchCoordination, shareYouTubeError, youTubeErrorFrom, type Claim, type FetchCoordination } from "./fetch-coordination.js";
import { kindLanguage } from "./negative-cache.js";
import { SingleFlight, type Run } from "./single-flight.js";
import {
  BUSY_RETRY_AFTER_SECONDS,
  deadlineExceededError,
  shuttingDownError,
  upstreamBusyError,
  upstreamHttpError,
} from "./upstream-problem.js";

/** What the fetcher needs of the served catalog: read back, and store into the live store. */
export interface LiveCatalog {
  getTranscript(videoId: string, languageCode: string, track?: TrackKind): TranscriptLookup;
  storeLive(record: VideoRecord, stored?: { seq?: number; fetchedAt?: Date; pending?: boolean }): void;
  /** Brings the live store's memory up to what other processes committed (before reading their record back). */
  refreshLive?(): void;
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
  /** Claims and negative cache shared with other processes; default: this process's own (negativeCacheMs, negativeCacheSize). */
  coordination?: FetchCoordination;
  /**
   * The shared live store (DATABASE_URL): a fetched record is committed there
   * before it is stored here and answered; a waiter reads a record another
   * replica stored once the mirror has it.
   */
  shared?: {
    commit(record: VideoRecord, fetchedAt: Date): Promise<number>;
    /** A record that cannot be committed now may be stored here and queued for the shared store. */
    queueRoom(): boolean;
    mirroredThrough(seq: number): Promise<boolean>;
    /** Mirrors every row committed so far (false when PostgreSQL cannot say). */
    catchUp(): Promise<boolean>;
  };
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
  /** Fetches answered by another process's fetch of the same (video, language). */
  joinedElsewhere: number;
  /** Requests answered from the negative cache. */
  negativeHits: number;
  /** Requests refused because the wait queue was full. */
  refusedBusy: number;
  /** Records written to the live store. */
  stored: number;
  /** Queued fetches withdrawn before they started because every caller had left. */
  withdrawn: number;
  /** Callers whose deadline passed while their fetch waited for a slot (503 `upstream_busy`). */
  deadlineQueued: number;
  /** Callers whose deadline passed while their fetch ran (504 `deadline_exceeded`). */
  deadlineRunning: number;
}

/** Queue priorities: a single request's fetch takes the next free slot before a bulk request's. */
const SINGLE_PRIORITY = 1;
const BULK_PRIORITY = 0;

/** Times a waiter claims again after an outcome `stored` it cannot read back (one per other replica, in practice). */
const UNREADABLE_RECLAIMS = 8;

/** A fetch in the pool: its queue id and priority, and whether it has left the queue for a slot. */
interface Slot {
  readonly id: string;
  priority: number;
  started: boolean;
}

export interface LiveFetcher extends TranscriptSource {
  readonly stats: LiveFetcherStats;
  /** Fetches running and waiting. */
  readonly load: { running: number; waiting: number };
  /** Abandons fetches in progress (their callers get 503 `shutting_down`) and refuses new ones. */
  close(): Promise<void>;
  /** Calls `listener` with each event counted in `stats` (for /metrics); returns the remover. */
  observe(listener: (event: LiveFetchEvent) => void): () => void;
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
  const coordination =
    options.coordination ??
    localFetchCoordination({
      ttlMs: options.negativeCacheMs,
      maxEntries: options.negativeCacheSize,
      ...(options.clock ? { now: options.clock } : {}),
    });
  const negative = coordination.negative;
  const shutdown = new AbortController();
  const busyRetryAfter = options.busyRetryAfterSeconds ?? BUSY_RETRY_AFTER_SECONDS;
  const stats: LiveFetcherStats = {
    upstreamFetches: 0,
    joined: 0,
    joinedElsewhere: 0,
    negativeHits: 0,
    refusedBusy: 0,
    stored: 0,
    withdrawn: 0,
    deadlineQueued: 0,
    deadlineRunning: 0,
  };
  /** The pool entry of each flight, by flight key, until the flight settles. */
  const slots = new Map<string, Slot>();
  let nextSlotId = 0;
  const listeners = new Set<(event: LiveFetchEvent) => void>();
  const emit = (event: LiveFetchEvent): void => {
    for (const listener of listeners) listener(event);
  };

  /**
   * A remembered failure for the video and language, or for the kind of track
   * in it; at once (not a promise) when the cache is this process's memory, so
   * a miss joins or queues its fetch in the same tick.
   */
  const rememberedFailure = (videoId: string, lang: string, track: TrackKind): YouTubeError | undefined | Promise<YouTubeError | undefined> => {
    const forLanguage = negative.get(videoId, lang);
    if (track === "any") return forLanguage;
    const forKind = () => negative.get(videoId, kindLanguage(lang, track));
    return forLanguage instanceof Promise ? forLanguage.then((failure) => failure ?? forKind()) : (forLanguage ?? forKind());
  };

  /** Waits for `promise` unless the fetcher closes first. */
  const untilClosed = <T>(promise: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (shutdown.signal.aborted) return reject(shuttingDownError());
      const onClose = (): void => reject(shuttingDownError());
      shutdown.signal.addEventListener("abort", onClose, { once: true });
      promise.then(
        (value) => {
          shutdown.signal.removeEventListener("abort", onClose);
          resolve(value);
        },
        (error: unknown) => {
          shutdown.signal.removeEventListener("abort", onClose);
          reject(error);
        },
      );
    });

  /** The fetch in a slot: this process's, or another's that holds the claim (then its outcome, read back here). */
  const fetchAndStore = async (videoId: string, lang: string, track: TrackKind, key: string): Promise<TranscriptSourceResult> => {
    let unreadable = 0;
    for (;;) {
      if (shutdown.signal.aborted) throw shuttingDownError();
      const claim = await untilClosed(coordination.claims.claim(key));
      if (claim.role === "leader") return lead(videoId, lang, track, claim);
      const outcome = await untilClosed(claim.outcome);
      if (outcome.kind === "failed") throw upstreamHttpError(youTubeErrorFrom(outcome.error));
      if (outcome.kind === "abandoned") continue;
      if (outcome.seq !== undefined && options.shared) await untilClosed(options.shared.mirroredThrough(outcome.seq));
      const catalog = catalogs.current;
      catalog.refreshLive?.();
      const lookup = catalog.getTranscript(videoId, lang, track);
      if (lookup.kind === "found") {
        stats.joinedElsewhere++;
        return { stored: lookup.stored, method: outcome.method, usedProxy: outcome.usedProxy };
      }
      // Stored by a replica whose live store this process cannot read (no shared store): claim
      // again and fetch here, once the other fetch is over. Bounded, in case the store is broken.
      if (++unreadable > UNREADABLE_RECLAIMS) {
        throw new Error(`another process stored ${videoId} (${lang}) but it cannot be read back (${lookup.kind})`);
      }
      log?.debug("live fetch stored elsewhere, not readable here; claiming again", { videoId, lang });
    }
  };

  /** Fetches and stores under the claim, and settles it with how that ended. */
  const lead = async (videoId: string, lang: string, track: TrackKind, claim: Extract<Claim, { role: "leader" }>): Promise<TranscriptSourceResult> => {
    log?.debug("live fetch claimed", { videoId, lang, track });
    try {
      const stored = await storedElsewhere(videoId, lang, track);
      if (stored) {
        claim.settle({ kind: "stored", method: stored.method, usedProxy: false });
        return stored;
      }
      const { result, seq } = await fetchUpstream(videoId, lang, track);
      claim.settle({ kind: "stored", method: result.method, usedProxy: result.usedProxy, ...(seq === undefined ? {} : { seq }) });
      return result;
    } catch (error) {
      const youTube = error instanceof UpstreamFailure ? error.youTube : undefined;
      claim.settle(youTube ? { kind: "failed", error: shareYouTubeError(youTube) } : { kind: "abandoned" });
      throw error instanceof UpstreamFailure ? error.http : error;
    }
  };

  /** With a shared store: the record another replica committed before this miss was asked (not yet mirrored), if any. */
  const storedElsewhere = async (videoId: string, lang: string, track: TrackKind): Promise<TranscriptSourceResult | undefined> => {
    if (!options.shared || !(await untilClosed(options.shared.catchUp()))) return undefined;
    const lookup = catalogs.current.getTranscript(videoId, lang, track);
    return lookup.kind === "found" ? { stored: lookup.stored, method: "storage", usedProxy: false, cached: true } : undefined;
  };

  const fetchUpstream = async (videoId: string, lang: string, track: TrackKind): Promise<{ result: TranscriptSourceResult; seq: number | undefined }> => {
    if (shutdown.signal.aborted) throw shuttingDownError();
    stats.upstreamFetches++;
    let fetched;
    try {
      // Metadata costs nothing extra (the watch page is fetched anyway) and
      // makes the stored record complete whichever caller started the fetch.
      fetched = await client.fetchTranscript(videoId, { languages: [lang], track, includeMetadata: true, signal: shutdown.signal });
    } catch (error) {
      if (isYouTubeError(error)) {
        // Only the missing kind is remembered per kind; the video's other outcomes hold whatever kind is asked for.
        const remembered = await negative
          .remember(videoId, error.code === "track_not_available" && track !== "any" ? kindLanguage(lang, track) : lang, error)
          .catch(() => false);
        log?.info("live fetch failed", { videoId, lang, track, code: error.code, usedProxy: error.usedProxy ?? false, remembered });
        emit({ outcome: "upstream_error", kind: error.code });
        throw new UpstreamFailure(error);
      }
      if (shutdown.signal.aborted) throw shuttingDownError();
      throw error;
    }
    const chosen = fetched.record.transcripts[0];
    if (chosen === undefined || prepareTrack(chosen) === undefined) {
      // Nothing would be served; store nothing rather than a video without its transcript.
      emit({ outcome: "upstream_error", kind: "empty_transcript" });
      throw new UpstreamFailure(new YouTubeError("empty_transcript", "The chosen track has no text", { usedProxy: fetched.usedProxy }));
    }
    // Shared store first: nothing is answered as stored that another replica (or the next build) could miss.
    const fetchedAt = new Date();
    let seq: number | undefined;
    let queued = false;
    if (options.shared) {
      try {
        seq = await options.shared.commit(fetched.record, fetchedAt);
      } catch (error) {
        // PostgreSQL unreachable: stored here and queued for it (durable in live.db), unless the queue is full.
        if (!options.shared.queueRoom()) throw error;
        queued = true;
      }
    }
    // Store and read back in one synchronous step: no hot switch can fall between them.
    const catalog = catalogs.current;
    catalog.storeLive(fetched.record, seq !== undefined ? { seq, fetchedAt } : queued ? { pending: true, fetchedAt } : {});
    stats.stored++;
    emit({ outcome: "stored" });
    const lookup = catalog.getTranscript(videoId, lang, track);
    if (lookup.kind !== "found") throw new Error(`stored ${videoId} (${lang}, ${track}) but cannot read it back (${lookup.kind})`);
    log?.info("live fetch stored", { videoId, lang: chosen.languageCode, isGenerated: chosen.isGenerated, usedProxy: fetched.usedProxy, ...(queued ? { queued } : {}) });
    return { result: { stored: lookup.stored, method: fetched.method, usedProxy: fetched.usedProxy }, seq };
  };

  const admit = (key: string, videoId: string, lang: string, track: TrackKind, priority: number): Run<TranscriptSourceResult> => {
    if (shutdown.signal.aborted) throw shuttingDownError();
    const slotsFree = queue.pending < queue.concurrency;
    if (!slotsFree && queue.size >= options.maxQueue) {
      stats.refusedBusy++;
      emit({ outcome: "busy" });
      log?.warn("live fetch refused: queue full", { running: queue.pending, waiting: queue.size });
      throw upstreamBusyError("queue-full", busyRetryAfter);
    }
    const slot: Slot = { id: `live-${++nextSlotId}`, priority, started: false };
    // Aborted only while queued: p-queue would also release the slot of a running task on abort.
    const withdraw = new AbortController();
    const promise = queue.add(
      () => {
        slot.started = true;
        return fetchAndStore(videoId, lang, track, key);
      },
      { id: slot.id, priority, signal: withdraw.signal },
    );
    slots.set(key, slot);
    const forget = (): void => {
      if (slots.get(key) === slot) slots.delete(key);
    };
    promise.then(forget, forget);
    return {
      promise,
      cancel() {
        if (slot.started) return false;
        withdraw.abort(new Error("every caller of this fetch stopped waiting"));
        stats.withdrawn++;
        emit({ outcome: "withdrawn" });
        forget();
        return true;
      },
    };
  };

  return {
    stats,
    get load() {
      return { running: queue.pending, waiting: queue.size };
    },
    async fetch(videoId: string, lang: string, { signal, bulk = false, track = "any" }: TranscriptFetchOptions): Promise<TranscriptSourceResult> {
      const remembered = rememberedFailure(videoId, lang, track);
      const failure = remembered instanceof Promise ? await remembered : remembered;
      if (failure !== undefined) {
        stats.negativeHits++;
        emit({ outcome: "negative_cache" });
        throw upstreamHttpError(failure);
      }
      // One flight per language however it is spelled (`DE` and `de` share one fetch), and per kind of track asked for.
      const key = `${videoId}\u0000${languageKey(lang)}${track === "any" ? "" : `\u0000${track}`}`;
      const priority = bulk ? BULK_PRIORITY : SINGLE_PRIORITY;
      let leader = false;
      const result = flights.run(
        key,
        () => {
          leader = true;
          return admit(key, videoId, lang, track, priority);
        },
        signal,
      );
      const slot = slots.get(key);
      if (!leader && !signal.aborted) {
        stats.joined++;
        emit({ outcome: "joined" });
        // A single request joining a bulk's queued fetch brings it forward, so it waits as its own would.
        if (slot !== undefined && !slot.started && slot.priority < priority) {
          queue.setPriority(slot.id, priority);
          slot.priority = priority;
        }
      }
      try {
        return await result;
      } catch (error) {
        if (!isDeadlineExceeded(error)) throw error;
        if (slot?.started === true) {
          stats.deadlineRunning++;
          emit({ outcome: "deadline" });
          throw deadlineExceededError();
        }
        stats.deadlineQueued++;
        emit({ outcome: "deadline" });
        throw upstreamBusyError("deadline", busyRetryAfter);
      }
    },
    observe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      // Waiting tasks still run, but see the abort at once and settle their callers.
      shutdown.abort(new Error("live fetcher closed"));
      await queue.onIdle();
    },
  };
}

/** A YouTube answer that is not a transcript, with the problem it is answered with. */
class UpstreamFailure extends Error {
  readonly http: Error;
  constructor(readonly youTube: YouTubeError) {
    super(youTube.message);
    this.http = upstreamHttpError(youTube);
  }
}
