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
import type { CrawlResult } from "../crawl/crawl-channels.js";
import type { FetchResult } from "../fetch/fetch-transcripts.js";
import type { PipelineState } from "../state/open-state.js";
import type { Progress } from "./report-progress.js";
import type { FetchQueue } from "../fetch/queue/fetch-queue.js";
import { startFetchWorker, type FetchWorker, type WorkerCounts } from "../fetch/queue/fetch-worker.js";
import { foldFetchResults } from "../fetch/queue/fold-fetch-results.js";
import { CrawlProgress, startFeedingCrawl, type CrawlStageOptions } from "./crawl-feed.js";

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

export interface CrawlAndQueueOptions {
  state: PipelineState;
  crawl: CrawlStageOptions;
  fetch: QueueFetchOptions;
  /** Stops the crawl, the queueing and the wait; the jobs left are the next run's. */
  signal: AbortSignal;
  progress: Progress;
}

/** Candidates read from the state per page. */
const PAGE = 500;

export async function crawlAndQueue({ state, crawl: crawlOptions, fetch, signal, progress }: CrawlAndQueueOptions): Promise<{ crawl: CrawlResult; fetched: FetchResult }> {
  const { queue, log } = fetch;
  const earlier = await foldFetchResults({ state, db: queue.pool });
  if (earlier.rows > 0) log(`folded ${earlier.rows} outcomes fetch workers stored since the last run (${earlier.fetched} transcripts)`);

  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  setMaxListeners(crawlOptions.concurrency + fetch.concurrency + 2, both);
  const feed = new CrawlProgress();
  const board = new QueueBoard(progress, feed, fetch.client.exits);
  progress.stage("fetch", 0, "transcripts");
  // Redrawn while nothing finishes too, so a wait for resting exits is said as it happens.
  const ticker = setInterval(() => board.show(), 1000);
  ticker.unref();
  const crawling = startFeedingCrawl({ crawl: crawlOptions, feed, signal: both, stop, onChannel: (done) => board.channelDone(done) });
  const worker = startFetchWorker({ queue, client: fetch.client, concurrency: fetch.concurrency, log, onOutcome: () => board.show() });
  board.here = worker.counts;
  const enqueuing = enqueueWanted({ state, fetch, feed, signal: both, onQueued: (queued) => board.queuedNow(queued) }).catch((error: unknown) => {
    stop.abort();
    throw error;
  });

  let crawl: CrawlResult;
  let candidates: number;
  try {
    let enqueued: Enqueued;
    [crawl, enqueued] = await Promise.all([crawling, enqueuing]);
    candidates = enqueued.queued + state.countCandidatesAfter(enqueued.cursor, fetch.retryPermanentBefore);
    if (!both.aborted) await waitUntilDrained({ queue, signal: both, board, log });
  } finally {
    await Promise.allSettled([crawling, enqueuing]);
    // Stopped: the fetches in flight are abandoned and their jobs given back for the next run.
    await worker.stop({ release: both.aborted });
    clearInterval(ticker);
    progress.end();
  }
  return { crawl, fetched: await foldEverything({ state, queue, worker, candidates, log }) };
}

/** The stage's progress line: channels crawled (until the crawl ends), jobs done of those queued, this host's outcomes. */
class QueueBoard {
  here: WorkerCounts | undefined;
  #channelsDone = 0;
  #queued = 0;
  #unfinished = 0;

  constructor(
    readonly progress: Progress,
    readonly feed: CrawlProgress,
    readonly exits: YouTubeClient["exits"],
  ) {}

  channelDone(done: number): void {
    this.#channelsDone = done;
    this.show();
  }

  queuedNow(queued: number): void {
    this.#queued = queued;
    this.show();
  }

  unfinishedNow(left: number): void {
    this.#unfinished = left;
    this.show();
  }

  get queued(): number {
    return this.#queued;
  }

  show(): void {
    const here = this.here;
    const snapshot = this.exits.snapshot();
    this.progress.update({
      done: Math.max(0, this.#queued - this.#unfinished),
      total: this.#queued,
      detail: {
        ...(this.feed.finished ? {} : { channels: this.#channelsDone }),
        ...(here ? { here: here.fetched, permanent: here.permanent, requeued: here.requeued, failed: here.failed } : {}),
        blocked: blockedThrough(snapshot),
      },
      note: describeExits(snapshot),
    });
  }
}

interface Enqueued {
  queued: number;
  /** The state's id of the last video queued. */
  cursor: number;
}

/** Puts every video the state wants on the queue, a page at a time as the crawl writes them, up to the run's limit. */
async function enqueueWanted(options: {
  state: PipelineState;
  fetch: QueueFetchOptions;
  feed: CrawlProgress;
  signal: AbortSignal;
  onQueued: (queued: number) => void;
}): Promise<Enqueued> {
  const { state, fetch, feed, signal } = options;
  const limit = fetch.limit ?? Infinity;
  let queued = 0;
  let cursor = 0;
  while (queued < limit && !signal.aborted) {
    const page = state.candidates(cursor, fetch.retryPermanentBefore, PAGE).slice(0, limit - queued);
    if (page.length === 0) {
      // Caught up with the crawl: wait for its next page (its last write comes before `finished`).
      if (feed.finished) break;
      await feed.next();
      continue;
    }
    await fetch.queue.enqueue(page, { languages: fetch.languages, anyLanguage: fetch.anyLanguage });
    queued += page.length;
    cursor = page.at(-1)!.id;
    options.onQueued(queued);
  }
  return { queued, cursor };
}

/** Waits until every job queued is done, by this host or another; a stop ends the wait (the jobs left are the next run's). */
async function waitUntilDrained(options: { queue: FetchQueue; signal: AbortSignal; board: QueueBoard; log: (message: string) => void }): Promise<void> {
  const { queue, signal, board } = options;
  options.log(`queued ${board.queued} fetch jobs; waiting until the queue is drained`);
  await queue.waitUntilDrained({ signal, onPoll: (left) => board.unfinishedNow(left) }).catch((error: unknown) => {
    if (!signal.aborted) throw error;
  });
}

/** This host's counts said, then every outcome stored so far folded into the state, whichever host stored it. */
async function foldEverything(options: {
  state: PipelineState;
  queue: FetchQueue;
  worker: FetchWorker;
  candidates: number;
  log: (message: string) => void;
}): Promise<FetchResult> {
  const counts = options.worker.counts;
  options.log(
    `this host: ${counts.fetched} fetched, ${counts.permanent} permanent, ${counts.requeued} requeued, ${counts.failed} failed, ` +
      `${counts.resumed} resumed, ${counts.released} given back`,
  );
  // An interrupted run keeps what is done too.
  const folded = await foldFetchResults({ state: options.state, db: options.queue.pool });
  return { candidates: options.candidates, attempted: folded.rows, fetched: folded.fetched, permanent: folded.permanent, failed: folded.failed, requeued: counts.requeued };
}
