/**
 * What the parts of the live fetcher share: the catalog it stores into, the
 * shared live store it commits to first, the claims and negative cache of
 * the processes serving one service, its counters and event listeners, and
 * the signal that closes it. live-fetcher.ts makes one per fetcher;
 * fetch-slots.ts admits fetches with it, fetch-in-slot.ts runs them.
 */
import type { TrackKind, VideoRecord } from "../../pipeline/artifact/contract/index.js";
import type { YouTubeClient } from "../../pipeline/youtube/index.js";
import type { TranscriptLookup } from "../data/catalog.js";
import type { Logger } from "../log.js";
import type { FetchCoordination } from "./fetch-coordination.js";
import type { LiveFetchEvent } from "./transcript-source.js";

/** What the fetcher needs of the served catalog: read back, and store into the live store. */
export interface LiveCatalog {
  getTranscript(videoId: string, languageCode: string, track?: TrackKind): TranscriptLookup;
  storeLive(record: VideoRecord, stored?: { seq?: number; fetchedAt?: Date; pending?: boolean }): void;
  /** Brings the live store's memory up to what other processes committed (before reading their record back). */
  refreshLive?(): void;
}

/** The shared live store (DATABASE_URL), as the fetcher uses it. */
export interface SharedLiveStoreLink {
  commit(record: VideoRecord, fetchedAt: Date): Promise<number>;
  /** A record that cannot be committed now may be stored here and queued for the shared store. */
  queueRoom(): boolean;
  mirroredThrough(seq: number): Promise<boolean>;
  /** Mirrors every row committed so far (false when PostgreSQL cannot say). */
  catchUp(): Promise<boolean>;
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

/** One fetch asked for: the video, the language as asked, the kind of track. */
export interface Wanted {
  videoId: string;
  lang: string;
  track: TrackKind;
}

export interface FetchContext {
  client: Pick<YouTubeClient, "fetchTranscript">;
  /** The catalog being served now; read at store time, so a hot switch is followed. */
  catalogs: { readonly current: LiveCatalog };
  shared: SharedLiveStoreLink | undefined;
  coordination: FetchCoordination;
  stats: LiveFetcherStats;
  /** Tells each listener of `observe` (for /metrics). */
  emit(event: LiveFetchEvent): void;
  /** Aborted when the fetcher closes: fetches in progress end with 503 `shutting_down`. */
  closed: AbortSignal;
  /** Retry-After of a 503 `upstream_busy`, in seconds. */
  busyRetryAfter: number;
  log: Logger | undefined;
}

export function newStats(): LiveFetcherStats {
  return { upstreamFetches: 0, joined: 0, joinedElsewhere: 0, negativeHits: 0, refusedBusy: 0, stored: 0, withdrawn: 0, deadlineQueued: 0, deadlineRunning: 0 };
}
