/**
 * The crawl and the fetch of one run, side by side (run-pipeline.ts runs
 * them between taking the lock and the build).
 */
import { setMaxListeners } from "node:events";
import type { CrawlResult } from "../crawl/crawl-channels.js";
import { fetchTranscripts, type FetchOptions, type FetchResult } from "../fetch/fetch-transcripts.js";
import type { PipelineState } from "../state/open-state.js";
import type { Progress } from "./report-progress.js";
import { blockedThrough, describeExits } from "../youtube/index.js";
import { CrawlProgress, startFeedingCrawl, type CrawlStageOptions } from "./crawl-feed.js";

export type { CrawlStageOptions } from "./crawl-feed.js";

/** The fetch's options a run gives; the state, the signal, the feed and the callbacks are the stage's own. */
export type FetchStageOptions = Omit<FetchOptions, "state" | "signal" | "crawl" | "onStart" | "onOutcome">;

export interface CrawlAndFetchOptions {
  state: PipelineState;
  crawl: CrawlStageOptions;
  fetch: FetchStageOptions;
  /** Stops both gracefully. */
  signal: AbortSignal;
  progress: Progress;
}

/**
 * The crawl and the fetch side by side: the fetch takes videos in discovery
 * order as soon as the crawl has written them, so it is not idle while the
 * channels are listed. If either fails, the other is stopped and the error
 * is the run's.
 */
export async function crawlAndFetch({ state, crawl: crawlOptions, fetch: fetchOptions, signal, progress }: CrawlAndFetchOptions): Promise<{ crawl: CrawlResult; fetched: FetchResult }> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  // Each crawl or fetch call in flight listens on it until it ends (at most one per queue slot):
  // past Node's default of 10 that is the configured concurrency, not a leak.
  setMaxListeners(crawlOptions.concurrency + fetchOptions.concurrency, both);
  const feed = new CrawlProgress();
  const counts = { ok: 0, permanent: 0, failed: 0, requeued: 0 };
  let channelsDone = 0;
  let known = 0;
  const exits = fetchOptions.client.exits;
  const show = (): void => {
    const snapshot = exits.snapshot();
    progress.update({
      done: counts.ok + counts.permanent + counts.failed,
      total: known,
      detail: { ...(feed.finished ? {} : { channels: channelsDone }), ...counts, blocked: blockedThrough(snapshot) },
      note: describeExits(snapshot),
    });
  };
  let ticker: NodeJS.Timeout | undefined;
  const crawling = startFeedingCrawl({
    crawl: crawlOptions,
    feed,
    signal: both,
    stop,
    onChannel: (done) => {
      channelsDone = done;
      show();
    },
    onVideos: (fresh) => {
      known = Math.min(known + fresh, fetchOptions.limit ?? Infinity);
    },
  });
  const fetching = fetchTranscripts({
    ...fetchOptions,
    state,
    signal: both,
    crawl: feed,
    onStart: (total) => {
      known = total;
      progress.stage("fetch", total, "transcripts");
      // Redrawn while nothing finishes too, so a wait for resting exits is said as it happens.
      ticker = setInterval(show, 1000);
      ticker.unref();
    },
    onOutcome: (outcome) => {
      if (outcome.kind === "fetched") counts.ok++;
      else counts[outcome.kind]++;
      show();
    },
  }).catch((error: unknown) => {
    stop.abort();
    throw error;
  });
  try {
    const [crawl, fetched] = await Promise.all([crawling, fetching]);
    return { crawl, fetched };
  } finally {
    // Both have settled or been stopped before the stage's last line.
    await Promise.allSettled([crawling, fetching]);
    clearInterval(ticker);
    progress.end();
  }
}
