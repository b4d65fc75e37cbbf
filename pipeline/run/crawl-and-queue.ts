/**
 * The crawl and the fetch of a run with DATABASE_URL (run-pipeline.ts runs
 * it instead of crawl-and-fetch.ts): what workers stored since the last run
 * is folded into the state first, then the crawl runs while every video the
 * state wants is put on the shared queue (one job each, as the crawl writes
 * them) and this host works jobs beside any `worker` on other hosts. Once
 * the crawl is done and everything is queued, the run waits until the queue
 * is drained, stops its own worker and folds every stored outcome into the
 * state, so the build sees each transcript, whichever host fetched it.
 */
import { setMaxListeners } from "node:events";
import { blockedThrough, describeExits, type YouTubeClient } from "../youtube/index.js";
import { CrawlProgress } from "./crawl-and-fetch.js";
import { crawlChannels, type CrawlOptions, type CrawlResult } from "../crawl/crawl-channels.js";
import type { FetchResult } from "../fetch/fetch-transcripts.js";
import type { PipelineState } from "../state/open-state.js";
import { formatDuration, type Progress } from "./report-progress.js";
import type { FetchQueue } from "../fetch-queue/fetch-queue.js";
import { startFetchWorker, type WorkerCounts } from "../fetch-queue/fetch-worker.js";
import { foldFetchResults } from "../fetch-queue/fold-fetch-results.js";

export interface QueueFetchOptions {
  queue: FetchQueue;
  client: YouTubeClient;
  /** Jobs this host works at once. */
  concurrency: number;
  /** At most this many videos queued this run (undefined: all). */
  limit: number | undefined;
  languages: string[];
  anyLanguage: boolean;
  /** Permanent failures recorded before this instant are queued again. */
  retryPermanentBefore: Date;
  log: (message: string) => void;
}

/** Candidates read from the state per page. */
const PAGE = 500;

export async function crawlAndQueue(
  state: PipelineState,
  crawlOptions: Omit<CrawlOptions, "signal" | "onChannel" | "onVideos">,
  options: QueueFetchOptions,
  signal: AbortSignal,
  progress: Progress,
): Promise<{ crawl: CrawlResult; fetched: FetchResult }> {
  const { queue, log } = options;
  const earlier = await foldFetchResults({ state, db: queue.pool });
  if (earlier.rows > 0) log(`folded ${earlier.rows} outcomes fetch workers stored since the last run (${earlier.fetched} transcripts)`);

  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  setMaxListeners(crawlOptions.concurrency + options.concurrency + 2, both);
  const feed = new CrawlProgress();
  let channelsDone = 0;
  let queued = 0;
  let unfinished = 0;
  let here: WorkerCounts | undefined;
  const exits = options.client.exits;
  const show = (): void => {
    const snapshot = exits.snapshot();
    progress.update({
      done: Math.max(0, queued - unfinished),
      total: queued,
      detail: {
        ...(feed.finished ? {} : { channels: channelsDone }),
        ...(here ? { here: here.fetched, permanent: here.permanent, requeued: here.requeued, failed: here.failed } : {}),
        blocked: blockedThrough(snapshot),
      },
      note: describeExits(snapshot),
    });
  };
  progress.stage("fetch", 0, "transcripts");
  // Redrawn while nothing finishes too, so a wait for resting exits is said as it happens.
  const ticker = setInterval(show, 1000);
  ticker.unref();

  const crawlStarted = performance.now();
  const crawling = crawlChannels({
    ...crawlOptions,
    signal: both,
    onChannel: (done) => {
      channelsDone = done;
      show();
    },
    onVideos: () => feed.wrote(),
  }).then(
    (crawl) => {
      feed.finish();
      log(
        `crawl: ${crawl.channelsCrawled} channels crawled, ${crawl.channelsSkipped} skipped, ${crawl.channelFailures.length} failed; ` +
          `${crawl.videosSeen} videos seen, ${crawl.videosNew} new; ${formatDuration((performance.now() - crawlStarted) / 1000)}`,
      );
      return crawl;
    },
    (error: unknown) => {
      feed.finish();
      stop.abort();
      throw error;
    },
  );

  const worker = startFetchWorker({ queue, client: options.client, concurrency: options.concurrency, log, onOutcome: show });
  here = worker.counts;
  const limit = options.limit ?? Infinity;
  let cursor = 0;
  const enqueuing = (async () => {
    while (queued < limit && !both.aborted) {
      const page = state.candidates(cursor, options.retryPermanentBefore, PAGE).slice(0, limit - queued);
      if (page.length === 0) {
        // Caught up with the crawl: wait for its next page (its last write comes before `finished`).
        if (feed.finished) break;
        await feed.next();
        continue;
      }
      await queue.enqueue(page, { languages: options.languages, anyLanguage: options.anyLanguage });
      queued += page.length;
      cursor = page.at(-1)!.id;
      show();
    }
  })().catch((error: unknown) => {
    stop.abort();
    throw error;
  });

  let crawl: CrawlResult;
  let candidates: number;
  try {
    [crawl] = await Promise.all([crawling, enqueuing]);
    candidates = queued + state.countCandidatesAfter(cursor, options.retryPermanentBefore);
    if (!both.aborted) {
      log(`queued ${queued} fetch jobs; waiting until the queue is drained`);
      await queue
        .waitUntilDrained({
          signal: both,
          onPoll: (left) => {
            unfinished = left;
            show();
          },
        })
        .catch((error: unknown) => {
          // A stop ends the wait; the jobs left are the next run's.
          if (!both.aborted) throw error;
        });
    }
  } finally {
    await Promise.allSettled([crawling, enqueuing]);
    // Stopped: the fetches in flight are abandoned and their jobs given back for the next run.
    await worker.stop({ release: both.aborted });
    clearInterval(ticker);
    progress.end();
  }
  const counts = worker.counts;
  log(
    `this host: ${counts.fetched} fetched, ${counts.permanent} permanent, ${counts.requeued} requeued, ${counts.failed} failed, ` +
      `${counts.resumed} resumed, ${counts.released} given back`,
  );
  // Every outcome stored so far, whichever host stored it; an interrupted run keeps what is done too.
  const folded = await foldFetchResults({ state, db: queue.pool });
  return {
    crawl,
    fetched: { candidates, attempted: folded.rows, fetched: folded.fetched, permanent: folded.permanent, failed: folded.failed, requeued: counts.requeued },
  };
}
