/**
 * The transcript source behind a miss: fetch from YouTube, store durably in
 * the live store, answer with the stored view read back from the catalog
 * (so a live answer and the next, cached one are built the same way).
 *
 * Per (video, language, kind of track) one upstream fetch at a time (single-flight, with
 * the language compared as `pipeline/artifact/contract/language.ts` says); all
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
 *
 * The parts: this file is the caller's side (negative cache, single-flight,
 * deadlines); fetch-slots.ts the pool; fetch-in-slot.ts the claim, the fetch
 * and the store; fetch-context.ts what they share.
 */
import { languageKey } from "../../pipeline/artifact/contract/index.js";
import type { YouTubeClient, YouTubeError } from "../../pipeline/youtube/index.js";
import { isDeadlineExceeded } from "../http/deadline.js";
import type { Logger } from "../log.js";
import type { LiveFetchEvent, TranscriptFetchOptions, TranscriptSource, TranscriptSourceResult } from "./transcript-source.js";
import { localFetchCoordination, type FetchCoordination } from "./fetch-coordination.js";
import { newStats, type FetchContext, type LiveCatalog, type LiveFetcherStats, type SharedLiveStoreLink, type Wanted } from "./fetch-context.js";
import { fetchInSlot } from "./fetch-in-slot.js";
import { BULK_PRIORITY, FetchSlots, SINGLE_PRIORITY } from "./fetch-slots.js";
import { kindLanguage } from "./negative-cache.js";
import { SingleFlight } from "./single-flight.js";
import { BUSY_RETRY_AFTER_SECONDS, deadlineExceededError, upstreamBusyError, upstreamHttpError } from "./upstream-problem.js";

export type { LiveCatalog, LiveFetcherStats } from "./fetch-context.js";

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
  shared?: SharedLiveStoreLink;
  /** Retry-After of a 503 `upstream_busy`, in seconds. Default 5. */
  busyRetryAfterSeconds?: number;
  /** Milliseconds since the epoch (negative-cache expiry). Default Date.now. */
  clock?: () => number;
  log?: Logger;
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
  checkOptions(options);
  const shutdown = new AbortController();
  const listeners = new Set<(event: LiveFetchEvent) => void>();
  const context: FetchContext = {
    client: options.client,
    catalogs: options.catalogs,
    shared: options.shared,
    coordination:
      options.coordination ??
      localFetchCoordination({
        ttlMs: options.negativeCacheMs,
        maxEntries: options.negativeCacheSize,
        ...(options.clock ? { now: options.clock } : {}),
      }),
    stats: newStats(),
    emit: (event) => {
      for (const listener of listeners) listener(event);
    },
    closed: shutdown.signal,
    busyRetryAfter: options.busyRetryAfterSeconds ?? BUSY_RETRY_AFTER_SECONDS,
    log: options.log,
  };
  const slots = new FetchSlots({ context, concurrency: options.concurrency, maxQueue: options.maxQueue });
  const flights = new SingleFlight<TranscriptSourceResult>();
  return {
    stats: context.stats,
    get load() {
      return slots.load;
    },
    fetch: (videoId, lang, fetchOptions) => fetchForCaller({ context, slots, flights, videoId, lang, options: fetchOptions }),
    observe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      // Waiting tasks still run, but see the abort at once and settle their callers.
      shutdown.abort(new Error("live fetcher closed"));
      await slots.onIdle();
    },
  };
}

function checkOptions(options: LiveFetcherOptions): void {
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
    throw new TypeError('Expected the "concurrency" option to be a positive integer');
  }
  if (!Number.isInteger(options.maxQueue) || options.maxQueue < 0) {
    throw new TypeError('Expected the "maxQueue" option to be a non-negative integer');
  }
}

interface CallerFetch {
  context: FetchContext;
  slots: FetchSlots;
  flights: SingleFlight<TranscriptSourceResult>;
  videoId: string;
  lang: string;
  options: TranscriptFetchOptions;
}

/**
 * One caller's fetch: answered from the negative cache, or joined to the
 * flight of the same (video, language, kind of track), or admitted as a new
 * flight; a passed deadline is told apart by whether the fetch had started.
 */
async function fetchForCaller({ context, slots, flights, videoId, lang, options }: CallerFetch): Promise<TranscriptSourceResult> {
  const { signal, bulk = false, track = "any" } = options;
  const { stats, emit } = context;
  const remembered = rememberedFailure(context, { videoId, lang, track });
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
      return slots.admit(key, priority, () => fetchInSlot(context, { videoId, lang, track }, key));
    },
    signal,
  );
  const slot = slots.slotOf(key);
  if (!leader && !signal.aborted) {
    stats.joined++;
    emit({ outcome: "joined" });
    if (slot !== undefined) slots.bringForward(slot, priority);
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
    throw upstreamBusyError("deadline", context.busyRetryAfter);
  }
}

/**
 * A remembered failure for the video and language, or for the kind of track
 * in it; at once (not a promise) when the cache is this process's memory, so
 * a miss joins or queues its fetch in the same tick.
 */
function rememberedFailure(context: FetchContext, { videoId, lang, track }: Wanted): YouTubeError | undefined | Promise<YouTubeError | undefined> {
  const negative = context.coordination.negative;
  const forLanguage = negative.get(videoId, lang);
  if (track === "any") return forLanguage;
  const forKind = () => negative.get(videoId, kindLanguage(lang, track));
  return forLanguage instanceof Promise ? forLanguage.then((failure) => failure ?? forKind()) : (forLanguage ?? forKind());
}
