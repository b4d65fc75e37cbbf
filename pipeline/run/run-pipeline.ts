/**
 * One scheduled run: lock, crawl, fetch, build and publish, summary. Returns
 * the exit code and the summary instead of exiting, so tests can call it
 * in-process and the CLI stays a thin shell around it.
 */
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createYouTubeClient, ExitPool, type ExitPolicy, type ExitStateStore, type ExitView, type YouTubeClient } from "../youtube/index.js";
import { acquireLock, type RunLock } from "../state/acquire-lock.js";
import { acquireSharedLock, type SharedLock } from "../state/shared-lock.js";
import { buildAndPublish, sharedRecordsPending, unchangedPublishedSet, type PublishedBuild } from "../build/build-and-publish.js";
import type { VideoRecord } from "../artifact/contract.js";
import { crawlAndFetch } from "./crawl-and-fetch.js";
import { crawlChannels, type ChannelFailure } from "../crawl/crawl-channels.js";
import { dataDirLayout, type DataDirLayout } from "../artifact/layout.js";
import { EXIT } from "../command/exit-codes.js";
import { fetchTranscripts, type FetchResult } from "../fetch/fetch-transcripts.js";
import { PipelineState } from "../state/open-state.js";
import { PublishRefused } from "../publish/publish-guard.js";
import { readChannelList } from "../crawl/read-channel-list.js";
import { settleImport } from "../import/import-and-publish.js";
import { RecordWriter } from "../state/record-writer.js";
import { formatDuration, type Progress } from "./report-progress.js";
import { crawlAndQueue } from "./crawl-and-queue.js";
import { FetchQueue } from "../fetch-queue/fetch-queue.js";
import { ROWS } from "../../settings/rows.js";


export interface RunOptions {
  /** DATA_DIR: state in `<dataDir>/pipeline/`, artifacts in `<dataDir>/builds/` and `current`. */
  dataDir: string;
  /**
   * DATABASE_URL: one run at a time across every machine sharing it (shared-lock.ts), and the fetches go
   * through the shared fetch queue, worked by this run and any `worker` (fetch-queue/). Default: this DATA_DIR's lock only, fetched here.
   */
  databaseUrl?: string;
  /** With `databaseUrl`: the jobs' lease, retries and first retry delay. Default: the FETCH_* settings' defaults. */
  fetchQueue?: { leaseSeconds: number; retryLimit: number; retryDelaySeconds: number };
  channelsFile: string;
  /** Crawl and count, write nothing, fetch and build nothing. Default false. */
  dryRun?: boolean;
  /** Fetch at most this many transcripts. Default: all. */
  limit?: number;
  /** Transcript fetches (and channel crawls) at once. Default 8. */
  concurrency?: number;
  /** At most `count` fetches started per `intervalMs`. Default: no cap. */
  rate?: { count: number; intervalMs: number };
  /** Build and publish at the end. Default true. */
  build?: boolean;
  /** Build and publish even when nothing is new, and publish even a set that drops most of what is served (publish-guard.ts). Default false. */
  force?: boolean;
  /** YouTube (or the stand-in). Default https://www.youtube.com. */
  origin?: string;
  /** Proxies, each an exit of its own. Default none (the direct route is the one exit). */
  proxyUrls?: string[];
  /** Pacing, cool-down and liveness of each exit (YOUTUBE_EXIT_*). Default: the library's (unpaced, cool-down from 1 s). */
  exitPolicy?: Partial<ExitPolicy>;
  /** Where the exits' state is kept: the host's or the fleet's, shared with the server (pipeline/command/exit-state.ts). Default: this run's memory. */
  exitStore?: ExitStateStore;
  /** Retries of a call YouTube blocked, each through the next proxy (the client's own). Default 2. */
  maxBlockedRetries?: number;
  /** Per upstream call, ms. Default 15000. */
  timeoutMs?: number;
  /** Preferred transcript languages. Default ["en"]. */
  languages?: string[];
  /** Take a video's own track when it has none of `languages`. Default true. */
  anyLanguage?: boolean;
  /** In-run retries of a transient failure. Default 2. */
  retries?: number;
  /** Times a fetch YouTube blocked goes back within the run before it is left (pending) for the next. Default 10. */
  blockedRounds?: number;
  /** First retry delay, ms. Default 1000. */
  retryBaseMs?: number;
  /** Permanent failures are tried again once older than this, ms. Default 30 days. */
  retryPermanentAfterMs?: number;
  /** Skip channels crawled completely less than this long ago, ms. Default 30 minutes (0: always crawl). */
  recrawlAfterMs?: number;
  progress: Progress;
  /** Aborting stops the run gracefully (exit 130). */
  signal?: AbortSignal;
  /** Injected for tests. */
  client?: YouTubeClient;
  now?: () => Date;
}

export interface RunSummary {
  outcome: "ok" | "partial" | "failed" | "interrupted" | "refused" | "dry-run";
  exitCode: number;
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  channels: { listed: number; crawled: number; skipped: number; failed: ChannelFailure[] };
  videos: { seen: number; new: number };
  transcripts: {
    /** Wanting a transcript at the start of the fetch stage. */
    wanted: number;
    attempted: number;
    fetched: number;
    /** Recorded with reason and time; not retried before the configured age. */
    permanent: Record<string, number>;
    /** Failed after retries; the next run tries again. */
    failed: Record<string, number>;
    /** Fetches YouTube blocked that went back and were fetched again (or left for the next run). */
    requeued: number;
    perSecond: number;
  };
  /** Each exit at the end of the fetch: requests sent, blocked and failed, and whether it is cooling or out. */
  exits: ExitView[];
  build: (Omit<PublishedBuild, "seconds"> & { seconds: number }) | null;
  /** Nothing new since this published set (its build id): build and publish were skipped. */
  unchangedSince?: string;
  /** Why a failed run failed. */
  error?: string;
  /** A dead run's lock that was taken over. */
  tookOverLockOf?: number;
}

export async function runPipeline(options: RunOptions): Promise<RunSummary> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const signal = options.signal ?? new AbortController().signal;
  const dryRun = options.dryRun ?? false;
  const progress = options.progress;
  const log = (message: string): void => progress.log(message);
  const layout = dataDirLayout(options.dataDir);
  const summary: RunSummary = {
    outcome: "ok",
    exitCode: EXIT.ok,
    dryRun,
    startedAt: started.toISOString(),
    finishedAt: "",
    durationSeconds: 0,
    channels: { listed: 0, crawled: 0, skipped: 0, failed: [] },
    videos: { seen: 0, new: 0 },
    transcripts: { wanted: 0, attempted: 0, fetched: 0, permanent: {}, failed: {}, requeued: 0, perSecond: 0 },
    exits: [],
    build: null,
  };

  // Usage problems (a bad list) surface before anything is locked or written.
  const channels = await readChannelList(options.channelsFile);
  summary.channels.listed = channels.length;

  let lock: RunLock | undefined;
  let sharedLock: SharedLock | undefined;
  let state: PipelineState | undefined;
  let runId: number | undefined;
  let writer: RecordWriter | undefined;
  /** A client this run made (not one passed in), closed at the end. */
  let ownClient: YouTubeClient | undefined;
  try {
    const statePath = layout.state;
    if (dryRun) {
      state = existsSync(statePath) ? PipelineState.open(statePath, { readonly: true }) : undefined;
    } else {
      // Both throw LockHeldError: the CLI exits 3.
      if (options.databaseUrl !== undefined) sharedLock = await acquireSharedLock(options.databaseUrl);
      lock = acquireLock(layout.lock);
      if (lock.tookOver) {
        summary.tookOverLockOf = lock.tookOver.pid;
        log(`took over the lock of run ${lock.tookOver.pid}, which is no longer alive`);
      }
      state = PipelineState.open(statePath);
      // What a killed `build --input` left staged is folded or dropped before this run reads the state.
      await settleImport(state, options.dataDir, log);
      runId = state.startRun(started);
      writer = new RecordWriter(statePath);
    }
    ownClient = options.client
      ? undefined
      : createYouTubeClient({
          ...(options.origin ? { origin: options.origin } : {}),
          exitPool: new ExitPool({
            proxyUrls: options.proxyUrls ?? [],
            ...(options.exitPolicy ? { policy: options.exitPolicy } : {}),
            ...(options.exitStore ? { store: options.exitStore } : {}),
          }),
          timeoutMs: options.timeoutMs ?? 15_000,
          ...(options.maxBlockedRetries !== undefined ? { maxBlockedRetries: options.maxBlockedRetries } : {}),
        });
    const client = options.client ?? ownClient!;
    const concurrency = options.concurrency ?? 8;

    const crawlOptions = {
      client,
      state,
      writes: writer,
      channels,
      concurrency: Math.min(concurrency, 4),
      recrawlAfterMs: options.recrawlAfterMs ?? 30 * 60_000,
      now,
      log,
    };
    const retryPermanentAfterMs = options.retryPermanentAfterMs ?? 30 * 86_400_000;
    const fetchOptions = {
      client,
      saveRecord: (record: VideoRecord, at: Date) => (writer ? writer.save(record, at) : Promise.reject(new Error("no record writer in a dry run"))),
      saveFailure: (videoId: string, failure: { permanent: boolean; code: string; message: string }, at: Date) =>
        writer ? writer.saveFailure(videoId, failure, at) : Promise.reject(new Error("no record writer in a dry run")),
      dryRun,
      limit: options.limit,
      concurrency,
      rate: options.rate,
      languages: options.languages ?? ["en"],
      anyLanguage: options.anyLanguage ?? true,
      retries: options.retries ?? 2,
      ...(options.blockedRounds === undefined ? {} : { blockedRounds: options.blockedRounds }),
      retryBaseMs: options.retryBaseMs ?? 1000,
      retryMaxMs: 30_000,
      retryPermanentBefore: new Date(now().getTime() - retryPermanentAfterMs),
      now,
      log,
    };

    if (dryRun) {
      // Nothing is written, so the fetch stage can only count what the state already wants, after the crawl.
      progress.stage("crawl", channels.length, "channels");
      const crawl = await crawlChannels({ ...crawlOptions, signal, onChannel: (done, _total, seen) => progress.update({ done, detail: { videos: seen } }) });
      progress.end();
      summary.channels = { listed: channels.length, crawled: crawl.channelsCrawled, skipped: crawl.channelsSkipped, failed: crawl.channelFailures };
      summary.videos = { seen: crawl.videosSeen, new: crawl.videosNew };
      // The videos it just found are not among the state's candidates: everything new would be fetched too.
      const counted = state
        ? await fetchTranscripts({ ...fetchOptions, state, signal, onStart: (total) => progress.stage("would fetch", total, "transcripts") })
        : undefined;
      progress.end();
      summary.transcripts.wanted = (counted?.candidates ?? 0) + crawl.videosNew;
    } else if (state) {
      const fetchStarted = performance.now();
      const { crawl, fetched } =
        options.databaseUrl === undefined
          ? await crawlAndFetch(state, crawlOptions, fetchOptions, signal, progress)
          : await withFetchQueue(options.databaseUrl, options.fetchQueue, concurrency, log, (queue) => {
              const { limit, languages, anyLanguage, retryPermanentBefore } = fetchOptions;
              const queueOptions = { queue, client, concurrency, limit, languages, anyLanguage, retryPermanentBefore, log };
              return crawlAndQueue(state!, crawlOptions, queueOptions, signal, progress);
            });
      summary.exits = client.exits.snapshot().exits;
      const seconds = (performance.now() - fetchStarted) / 1000;
      summary.channels = { listed: channels.length, crawled: crawl.channelsCrawled, skipped: crawl.channelsSkipped, failed: crawl.channelFailures };
      summary.videos = { seen: crawl.videosSeen, new: crawl.videosNew };
      summary.transcripts = {
        wanted: fetched.candidates,
        attempted: fetched.attempted,
        fetched: fetched.fetched,
        permanent: fetched.permanent,
        failed: fetched.failed,
        requeued: fetched.requeued,
        perSecond: seconds > 0 ? Math.round((fetched.fetched / seconds) * 10) / 10 : 0,
      };
    }

    if (!signal.aborted && !dryRun && state && (options.build ?? true)) {
      const pending = options.databaseUrl !== undefined && (await sharedRecordsPending(options.databaseUrl, options.dataDir));
      const unchanged = options.force || pending ? undefined : unchangedPublishedSet(options.dataDir, state);
      if (unchanged !== undefined) {
        summary.unchangedSince = unchanged;
        log(`nothing new since the published set ${unchanged} (no new or changed transcripts, no live-fetched records): build and publish skipped; --force rebuilds`);
      } else {
        log("building the artifact set");
        const built = await buildAndPublish({
          dataDir: options.dataDir,
          state,
          log,
          force: options.force ?? false,
          signal,
          ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
        });
        if (!built) log("no fetched transcripts yet: nothing to build");
        else {
          summary.build = built;
          log(`published ${built.dir}: ${JSON.stringify(built.counts)}, liveSeq ${built.liveSeq}`);
        }
      }
    }

    const failures = Object.keys(summary.transcripts.failed).length > 0 || summary.channels.failed.length > 0;
    if (signal.aborted) Object.assign(summary, { outcome: "interrupted", exitCode: EXIT.interrupted });
    else if (dryRun) Object.assign(summary, { outcome: "dry-run", exitCode: failures ? EXIT.partial : EXIT.ok });
    else if (failures) Object.assign(summary, { outcome: "partial", exitCode: EXIT.partial });
  } catch (error) {
    progress.end();
    if (error instanceof Error && error.name === "LockHeldError") throw error;
    if (error instanceof Error && error.name === "BuildInterrupted" && signal.aborted) {
      // Stopped during the build: nothing was published; what was fetched is kept.
      Object.assign(summary, { outcome: "interrupted", exitCode: EXIT.interrupted });
      log(error.message);
    } else if (error instanceof PublishRefused) {
      Object.assign(summary, { outcome: "refused", exitCode: EXIT.refused, error: error.message });
      log(error.message);
    } else {
      Object.assign(summary, { outcome: "failed", exitCode: EXIT.failed, error: error instanceof Error ? error.message : String(error) });
      if (!(error instanceof Error) || error.name !== "YouTubeError") log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
  } finally {
    const finished = now();
    summary.finishedAt = finished.toISOString();
    summary.durationSeconds = Math.round((finished.getTime() - started.getTime()) / 100) / 10;
    try {
      await ownClient?.close();
      await writer?.close();
      if (!dryRun && state && runId !== undefined) {
        state.finishRun(runId, summary.exitCode, summary, finished);
        // The summary is also in the state's runs table: a summary file that cannot be written (a full disk) is said once, not thrown.
        try {
          await writeSummary(layout, summary);
        } catch (error) {
          log(`could not write ${layout.lastRun}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    } finally {
      state?.close();
      lock?.release();
      await sharedLock?.release();
    }
  }
  return summary;
}

/** Runs `work` on the shared fetch queue, closed after it. */
async function withFetchQueue<T>(
  url: string,
  settings: RunOptions["fetchQueue"],
  concurrency: number,
  log: (message: string) => void,
  work: (queue: FetchQueue) => Promise<T>,
): Promise<T> {
  const queue = await FetchQueue.open({
    url,
    leaseSeconds: settings?.leaseSeconds ?? Number(ROWS.fetchLeaseSeconds.default),
    retryLimit: settings?.retryLimit ?? Number(ROWS.fetchRetryLimit.default),
    retryDelaySeconds: settings?.retryDelaySeconds ?? Number(ROWS.fetchRetryDelaySeconds.default),
    connections: Math.min(concurrency, 16) + 2,
    log,
  });
  try {
    return await work(queue);
  } finally {
    await queue.close();
  }
}

/** Written to a temporary file and renamed, so a reader never sees half of it. */
async function writeSummary(layout: DataDirLayout, summary: RunSummary): Promise<void> {
  await mkdir(layout.pipeline, { recursive: true });
  const path = layout.lastRun;
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(summary, null, 2)}\n`);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
