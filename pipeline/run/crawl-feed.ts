/**
 * The crawl as the fetch of a run sees it: started beside the fetch, waking
 * it each time it writes videos (`CrawlFeed`), saying its counts when it
 * ends, and stopping the other side when it fails.
 */
import { crawlChannels, type CrawlOptions, type CrawlResult } from "../crawl/crawl-channels.js";
import type { CrawlFeed } from "../fetch/fetch-transcripts.js";
import { formatDuration } from "./report-progress.js";

/** The crawl's options a run gives; the feed, the signal and the callbacks are the stage's own. */
export type CrawlStageOptions = Omit<CrawlOptions, "signal" | "onChannel" | "onVideos">;

export interface FeedingCrawlOptions {
  crawl: CrawlStageOptions;
  feed: CrawlProgress;
  /** Stops the crawl (and, through `stop`, the other side of the stage). */
  signal: AbortSignal;
  /** Aborted when the crawl fails, so the fetch stops too. */
  stop: AbortController;
  onChannel: (done: number) => void;
  /** After each page of videos is written (`fresh` of them new), before the feed wakes the fetch. */
  onVideos?: (fresh: number) => void;
}

/** Starts the crawl; its counts are logged when it ends, and a failure finishes the feed and aborts `stop`. */
export function startFeedingCrawl({ crawl: options, feed, signal, stop, onChannel, onVideos }: FeedingCrawlOptions): Promise<CrawlResult> {
  const crawlStarted = performance.now();
  return crawlChannels({
    ...options,
    signal,
    onChannel: (done) => onChannel(done),
    onVideos: (fresh) => {
      onVideos?.(fresh);
      feed.wrote();
    },
  }).then(
    (crawl) => {
      feed.finish();
      options.log(
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
