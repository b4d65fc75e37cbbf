/**
 * The crawl and the fetch of one run, side by side (run-pipeline.ts runs
 * them between taking the lock and the build).
 */
import { setMaxListeners } from "node:events";
import { crawlChannels, type CrawlOptions, type CrawlResult } from "../crawl/crawl-channels.js";
import { fetchTranscripts, type CrawlFeed, type FetchOptions, type FetchResult } from "../fetch/fetch-transcripts.js";
import type { PipelineState } from "../state/open-state.js";
import { formatDuration, type Progress } from "./report-progress.js";
import { blockedThrough, describeExits } from "../youtube/index.js";
/**
 * The crawl and the fetch side by side: the fetch takes videos in discovery
 * order as soon as the crawl has written them, so it is not idle while the
 * channels are listed. If either fails, the other is stopped and the error
 * is the run's.
 */
export async function crawlAndFetch(
  state: PipelineState,
  crawlOptions: Omit<CrawlOptions, "signal" | "onChannel" | "onVideos">,
  fetchOptions: Omit<FetchOptions, "state" | "signal" | "crawl" | "onStart" | "onOutcome">,
  signal: AbortSignal,
  progress: Progress,
): Promise<{ crawl: CrawlResult; fetched: FetchResult }> {
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
  const crawlStarted = performance.now();
  const crawling = crawlChannels({
    ...crawlOptions,
    signal: both,
    onChannel: (done) => {
      channelsDone = done;
      show();
    },
    onVideos: (fresh) => {
      known = Math.min(known + fresh, fetchOptions.limit ?? Infinity);
      feed.wrote();
    },
  }).then(
    (crawl) => {
      feed.finish();
      fetchOptions.log(
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

/** The crawl's side of `CrawlFeed`: wakes the fetch when it writes videos and when it ends. */
export class CrawlProgress implements CrawlFeed {
  #finished = false;
  #waiting: { promise: Promise<void>; wake: () => void } | undefined;

  get finished(): boolean {
    return this.#finished;
  }

  next(): Promise<void> {
    if (this.#finished) return Promise.resolve();
    if (!this.#waiting) {
      let wake!: () => void;
      const promise = new Promise<void>((resolve) => (wake = resolve));
      this.#waiting = { promise, wake };
    }
    return this.#waiting.promise;
  }

  wrote(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.wake();
  }

  finish(): void {
    this.#finished = true;
    this.wrote();
  }
}

