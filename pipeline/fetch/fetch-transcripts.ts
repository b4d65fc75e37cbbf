/**
 * The fetch stage: a transcript for every video that has none yet (and for
 * permanent failures old enough to try again), through the shared YouTube
 * client, `concurrency` at a time and at most `rate` started per interval.
 * Transient failures are retried with backoff; a fetch YouTube blocked goes
 * back to be fetched again through the exits (which wait out their
 * cool-downs) without using up those retries, and is never recorded as
 * permanent. Whatever the outcome, it is
 * written to the state as soon as it is known (the writer thread commits it,
 * with whatever else has arrived, before the video counts as done), so a
 * killed run repeats none of the finished work.
 *
 * It can run beside the crawl (`crawl`): videos are taken in discovery order
 * as the crawl writes them, and the stage ends when it has run out of
 * candidates and the crawl has finished.
 */
import PQueue from "p-queue";
import { backoffDelay } from "../youtube/blocked-retry.js";
import { realSleep, type Sleep } from "../youtube/exits/exit-clock.js";
import { isYouTubeError, YouTubeError, type YouTubeClient } from "../youtube/index.js";
import type { VideoRecord } from "../artifact/contract/index.js";
import type { FetchCandidate, PipelineState } from "../state/open-state.js";

export interface FetchOptions {
  client: YouTubeClient;
  state: PipelineState;
  /** Commits a fetched record durably; resolves once it is on disk. */
  saveRecord: (record: VideoRecord, now: Date) => Promise<void>;
  /** Records a failed fetch (permanent: `failed`; transient: still `pending`). */
  saveFailure: (videoId: string, failure: { permanent: boolean; code: string; message: string }, now: Date) => Promise<void>;
  /** Only count what would be fetched. */
  dryRun: boolean;
  /** At most this many videos this run (undefined: all). */
  limit: number | undefined;
  concurrency: number;
  /** At most `rate.count` fetches started per `rate.intervalMs` (one fetch is 3 YouTube requests). */
  rate: { count: number; intervalMs: number } | undefined;
  /** Language codes in order of preference. */
  languages: string[];
  /** When the video has none of `languages`, take its first track instead of recording `language_not_available`. */
  anyLanguage: boolean;
  /** Retries of a transient failure within this run. */
  retries: number;
  /** Times a fetch YouTube blocked (after the client's own blocked retries) goes back within this run before it is left for the next run. Default 10. */
  blockedRounds?: number;
  /** First retry delay in ms, doubled each time, up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Permanent failures recorded before this instant are tried again. */
  retryPermanentBefore: Date;
  signal: AbortSignal;
  now: () => Date;
  sleep?: Sleep;
  /** The crawl running beside this stage; without it, the candidates are those in the state at the start. */
  crawl?: CrawlFeed;
  /** `total`: candidates known so far (it grows while a crawl runs beside the stage). */
  onStart?: (total: number) => void;
  onOutcome?: (outcome: FetchOutcome) => void;
  log: (message: string) => void;
}

export type FetchOutcome =
  | { videoId: string; kind: "fetched" }
  /** Blocked: it goes back and is fetched again (not an end). */
  | { videoId: string; kind: "requeued"; code: string }
  | { videoId: string; kind: "permanent" | "failed"; code: string };

/** How a crawl running beside the fetch says that it wrote more videos, or finished. */
export interface CrawlFeed {
  readonly finished: boolean;
  /** Resolves at the crawl's next write of videos, or when it finishes. */
  next(): Promise<void>;
}

/** What the fetch did to the videos it tried; a run's summary reports these as they are. */
export interface FetchCounts {
  attempted: number;
  fetched: number;
  /** Recorded, not retried before the configured age: code → count. */
  permanent: Record<string, number>;
  /** Failed after all retries; the next run tries again: code → count. */
  failed: Record<string, number>;
  /** Fetches YouTube blocked that went back to be fetched again. */
  requeued: number;
}

export interface FetchResult extends FetchCounts {
  /** Videos that wanted a transcript during the stage, fetched or not (e.g. past --limit). */
  candidates: number;
}

const PAGE = 500;
const DEFAULT_BLOCKED_ROUNDS = 10;

export async function fetchTranscripts(options: FetchOptions): Promise<FetchResult> {
  const { state } = options;
  const retryBefore = options.retryPermanentBefore;
  const result: FetchResult = { candidates: state.countCandidates(retryBefore), attempted: 0, fetched: 0, permanent: {}, failed: {}, requeued: 0 };
  const limit = options.limit ?? Infinity;
  options.onStart?.(Math.min(result.candidates, limit));
  if (options.dryRun) return result;

  const queue = new PQueue({
    concurrency: options.concurrency,
    ...(options.rate ? { intervalCap: options.rate.count, interval: options.rate.intervalMs } : {}),
  });
  let fatal: unknown;
  let cursor = 0;
  let scheduled = 0;
  outer: while (scheduled < limit && !options.signal.aborted && fatal === undefined) {
    const page = state.candidates(cursor, retryBefore, PAGE);
    if (page.length === 0) {
      // Caught up with the crawl: wait for its next page, then look again (its last write comes before `finished`).
      if (!options.crawl || options.crawl.finished) break;
      await options.crawl.next();
      continue;
    }
    for (const candidate of page) {
      cursor = candidate.id;
      if (scheduled >= limit || options.signal.aborted || fatal !== undefined) break outer;
      // Back-pressure: hold only a few waiting tasks, so memory does not grow with the backlog.
      await queue.onSizeLessThan(options.concurrency * 2);
      scheduled++;
      void queue.add(async () => {
        if (options.signal.aborted || fatal !== undefined) return;
        result.attempted++;
        try {
          options.onOutcome?.(await fetchOne(candidate, options, result));
        } catch (error) {
          if (!options.signal.aborted) fatal ??= error;
        }
      });
    }
  }
  await queue.onIdle();
  if (fatal !== undefined) throw fatal;
  // Those reached, and those left behind the cursor (past --limit, or an interruption).
  result.candidates = scheduled + state.countCandidatesAfter(cursor, retryBefore);
  return result;
}

async function fetchOne(candidate: FetchCandidate, options: FetchOptions, result: FetchResult): Promise<FetchOutcome> {
  const { videoId } = candidate;
  const sleep = options.sleep ?? realSleep;
  let languages = options.languages;
  let blockedRounds = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      const { record } = await options.client.fetchTranscript(videoId, { languages, signal: options.signal });
      await options.saveRecord(record, options.now());
      result.fetched++;
      return { videoId, kind: "fetched" };
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (!isYouTubeError(error)) throw error; // a bug, not YouTube: never retried
      const fallback = fallbackLanguage(error, languages, options.anyLanguage);
      if (fallback) {
        languages = [fallback];
        attempt--;
        continue;
      }
      if (error.kind === "blocked" && blockedRounds < (options.blockedRounds ?? DEFAULT_BLOCKED_ROUNDS)) {
        // Not the video's fault: the exits rest (the next call waits in the pool until one may send), then it goes again.
        blockedRounds++;
        attempt--;
        result.requeued++;
        options.onOutcome?.({ videoId, kind: "requeued", code: error.code });
        continue;
      }
      if (error.kind !== "permanent" && attempt < options.retries) {
        const delay = backoffDelay(attempt, { backoffBaseMs: options.retryBaseMs, backoffMaxMs: options.retryMaxMs, random: Math.random });
        await sleep(Math.max(delay, (error.retryAfterSeconds ?? 0) * 1000), options.signal);
        continue;
      }
      const permanent = error.kind === "permanent";
      await options.saveFailure(videoId, { permanent, code: error.code, message: error.message }, options.now());
      const bucket = permanent ? result.permanent : result.failed;
      bucket[error.code] = (bucket[error.code] ?? 0) + 1;
      return { videoId, kind: permanent ? "permanent" : "failed", code: error.code };
    }
  }
}

/** The video's best other track when it has none in the wanted languages (manual before generated). */
export function fallbackLanguage(error: YouTubeError, tried: string[], anyLanguage: boolean): string | undefined {
  if (!anyLanguage || error.code !== "language_not_available") return undefined;
  const available = error.availableLanguages ?? [];
  const best = available.find((l) => !l.isGenerated) ?? available[0];
  if (!best || tried.includes(best.languageCode)) return undefined;
  return best.languageCode;
}
