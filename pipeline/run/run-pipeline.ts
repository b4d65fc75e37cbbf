/**
 * One scheduled run: lock, crawl, fetch, build and publish, summary. Returns
 * the exit code and the summary instead of exiting, so tests can call it
 * in-process and the CLI stays a thin shell around it.
 */
import type { EmbedderSettings } from "../embeddings/create-embedder.js";
import { existsSync } from "node:fs";
import { createYouTubeClient, ExitPool, type ExitPolicy, type ExitStateStore, type YouTubeClient } from "../youtube/index.js";
import { takeRunLocks, type RunLocks } from "../state/run-locks.js";
import { buildAndPublish, sharedRecordsPending, unchangedPublishedSet } from "../build/build-and-publish.js";
import type { VideoRecord } from "../artifact/contract/index.js";
import { crawlAndFetch, type CrawlStageOptions, type FetchStageOptions } from "./crawl-and-fetch.js";
import { crawlChannels } from "../crawl/crawl-channels.js";
import { dataDirLayout, type DataDirLayout } from "../artifact/layout/index.js";
import { fetchTranscripts, type FetchResult } from "../fetch/fetch-transcripts.js";
import { PipelineState } from "../state/open-state.js";
import { readChannelList, type ChannelListEntry } from "../crawl/read-channel-list.js";
import { settleImport } from "../import/import-and-publish.js";
import { RecordWriter } from "../state/record-writer.js";
import type { Progress } from "./report-progress.js";
import { crawlAndQueue } from "./crawl-and-queue.js";
import { FetchQueue } from "../fetch/queue/fetch-queue.js";
import { ROWS } from "../../settings/rows.js";
import { newSummary, recordCrawl, recordFailure, settleOutcome, writeSummary, type RunSummary } from "./run-summary.js";

export type { RunSummary } from "./run-summary.js";

export interface RunOptions {
  /** DATA_DIR: state in `<dataDir>/pipeline/`, artifacts in `<dataDir>/builds/` and `current`. */
  dataDir: string;
  /**
   * DATABASE_URL: one run at a time across every machine sharing it (shared-lock.ts), and the fetches go
   * through the shared fetch queue, worked by this run and any `worker` (fetch/queue/). Default: this DATA_DIR's lock only, fetched here.
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
  /** The embedder settings: the built set gets vectors when one is configured (pipeline/vectors/). Default: none. */
  embedding?: EmbedderSettings;
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

/** What every step of one run reads: its options, clock, stop signal, progress, log and summary. */
interface Run {
  options: RunOptions;
  now: () => Date;
  started: Date;
  signal: AbortSignal;
  dryRun: boolean;
  progress: Progress;
  log: (message: string) => void;
  layout: DataDirLayout;
  summary: RunSummary;
}

/** What a run holds while it runs, each recorded as it is taken and let go at the end. */
interface Held {
  locks?: RunLocks;
  state?: PipelineState;
  runId?: number;
  writer?: RecordWriter;
  /** A client this run made (not one passed in), closed at the end. */
  ownClient?: YouTubeClient;
}

export async function runPipeline(options: RunOptions): Promise<RunSummary> {
  const now = options.now ?? (() => new Date());
  const started = now();
  const dryRun = options.dryRun ?? false;
  const progress = options.progress;
  const run: Run = {
    options,
    now,
    started,
    signal: options.signal ?? new AbortController().signal,
    dryRun,
    progress,
    log: (message) => progress.log(message),
    layout: dataDirLayout(options.dataDir),
    summary: newSummary(started, dryRun),
  };
  const { summary, signal } = run;

  // Usage problems (a bad list) surface before anything is locked or written.
  const channels = await readChannelList(options.channelsFile);
  summary.channels.listed = channels.length;

  const held: Held = {};
  try {
    await openRun(run, held);
    held.ownClient = options.client ? undefined : ownClient(options);
    const stages = stageOptions(run, { client: options.client ?? held.ownClient!, state: held.state, writer: held.writer, channels });
    if (dryRun) await countWithoutWriting(run, held.state, stages);
    else if (held.state) await crawlAndFetchStage(run, held.state, stages);
    if (!signal.aborted && !dryRun && held.state && (options.build ?? true)) await buildStage(run, held.state);
    settleOutcome(summary, { stopped: signal.aborted });
  } catch (error) {
    progress.end();
    if (error instanceof Error && error.name === "LockHeldError") throw error;
    recordFailure(summary, error, { stopped: signal.aborted, log: run.log });
  } finally {
    await closeRun(run, held);
  }
  return summary;
}

/** Takes the locks and opens the state (a dry run: read-only, if there is one), recording each in `held` as it is taken. */
async function openRun(run: Run, held: Held): Promise<void> {
  const { options, layout, log } = run;
  if (run.dryRun) {
    held.state = existsSync(layout.state) ? PipelineState.open(layout.state, { readonly: true }) : undefined;
    return;
  }
  // Throws LockHeldError: the CLI exits 3.
  held.locks = await takeRunLocks({ lockPath: layout.lock, databaseUrl: options.databaseUrl });
  const { tookOver } = held.locks;
  if (tookOver) {
    run.summary.tookOverLockOf = tookOver.pid;
    log(`took over the lock of run ${tookOver.pid}, which is no longer alive`);
  }
  held.state = PipelineState.open(layout.state);
  // What a killed `build --input` left staged is folded or dropped before this run reads the state.
  await settleImport(held.state, options.dataDir, log);
  held.runId = held.state.startRun(run.started);
  held.writer = new RecordWriter(layout.state);
}

/** The YouTube client of a run that was given none: an exit per proxy (or the direct route), under the run's exit policy. */
function ownClient(options: RunOptions): YouTubeClient {
  return createYouTubeClient({
    ...(options.origin ? { origin: options.origin } : {}),
    exitPool: new ExitPool({
      proxyUrls: options.proxyUrls ?? [],
      ...(options.exitPolicy ? { policy: options.exitPolicy } : {}),
      ...(options.exitStore ? { store: options.exitStore } : {}),
    }),
    timeoutMs: options.timeoutMs ?? 15_000,
    ...(options.maxBlockedRetries !== undefined ? { maxBlockedRetries: options.maxBlockedRetries } : {}),
  });
}

interface Stages {
  crawl: CrawlStageOptions;
  fetch: FetchStageOptions;
}

/** The crawl's and the fetch's options, from the run's options and their defaults. */
function stageOptions(
  run: Run,
  { client, state, writer, channels }: { client: YouTubeClient; state: PipelineState | undefined; writer: RecordWriter | undefined; channels: ChannelListEntry[] },
): Stages {
  const { options, now, log } = run;
  const concurrency = options.concurrency ?? 8;
  const retryPermanentAfterMs = options.retryPermanentAfterMs ?? 30 * 86_400_000;
  const noWriter = (): Promise<never> => Promise.reject(new Error("no record writer in a dry run"));
  return {
    crawl: {
      client,
      state,
      writes: writer,
      channels,
      concurrency: Math.min(concurrency, 4),
      recrawlAfterMs: options.recrawlAfterMs ?? 30 * 60_000,
      now,
      log,
    },
    fetch: {
      client,
      saveRecord: (record: VideoRecord, at: Date) => (writer ? writer.save(record, at) : noWriter()),
      saveFailure: (videoId, failure, at) => (writer ? writer.saveFailure(videoId, failure, at) : noWriter()),
      dryRun: run.dryRun,
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
    },
  };
}

/** A dry run: the crawl, then a count of what the state already wants; nothing is written, so nothing is fetched. */
async function countWithoutWriting(run: Run, state: PipelineState | undefined, stages: Stages): Promise<void> {
  const { progress, signal, summary } = run;
  progress.stage("crawl", stages.crawl.channels.length, "channels");
  const crawl = await crawlChannels({ ...stages.crawl, signal, onChannel: (done, _total, seen) => progress.update({ done, detail: { videos: seen } }) });
  progress.end();
  recordCrawl(summary, crawl);
  // The videos it just found are not among the state's candidates: everything new would be fetched too.
  const counted = state
    ? await fetchTranscripts({ ...stages.fetch, state, signal, onStart: (total) => progress.stage("would fetch", total, "transcripts") })
    : undefined;
  progress.end();
  summary.transcripts.wanted = (counted?.candidates ?? 0) + crawl.videosNew;
}

/** The crawl and the fetch side by side: here, or through the shared fetch queue with DATABASE_URL. */
async function crawlAndFetchStage(run: Run, state: PipelineState, stages: Stages): Promise<void> {
  const { options, signal, progress, summary, log } = run;
  const fetchStarted = performance.now();
  const { crawl, fetched } =
    options.databaseUrl === undefined
      ? await crawlAndFetch({ state, crawl: stages.crawl, fetch: stages.fetch, signal, progress })
      : await withFetchQueue(options.databaseUrl, options.fetchQueue, stages.fetch.concurrency, log, (queue) => {
          const { client, concurrency, limit, languages, anyLanguage, retryPermanentBefore } = stages.fetch;
          const fetch = { queue, client, concurrency, limit, languages, anyLanguage, retryPermanentBefore, log };
          return crawlAndQueue({ state, crawl: stages.crawl, fetch, signal, progress });
        });
  summary.exits = stages.fetch.client.exits.snapshot().exits;
  const seconds = (performance.now() - fetchStarted) / 1000;
  recordCrawl(summary, crawl);
  summary.transcripts = transcriptCounts(fetched, seconds);
}

function transcriptCounts(fetched: FetchResult, seconds: number): RunSummary["transcripts"] {
  return {
    wanted: fetched.candidates,
    attempted: fetched.attempted,
    fetched: fetched.fetched,
    permanent: fetched.permanent,
    failed: fetched.failed,
    requeued: fetched.requeued,
    perSecond: seconds > 0 ? Math.round((fetched.fetched / seconds) * 10) / 10 : 0,
  };
}

/** Build and publish, unless nothing is new since the published set (and no --force). */
async function buildStage(run: Run, state: PipelineState): Promise<void> {
  const { options, summary, log, signal } = run;
  const pending = options.databaseUrl !== undefined && (await sharedRecordsPending(options.databaseUrl, options.dataDir));
  const unchanged = options.force || pending ? undefined : unchangedPublishedSet(options.dataDir, state);
  if (unchanged !== undefined) {
    summary.unchangedSince = unchanged;
    log(`nothing new since the published set ${unchanged} (no new or changed transcripts, no live-fetched records): build and publish skipped; --force rebuilds`);
    return;
  }
  log("building the artifact set");
  const built = await buildAndPublish({
    dataDir: options.dataDir,
    state,
    log,
    force: options.force ?? false,
    signal,
    ...(options.embedding ? { embedding: options.embedding } : {}),
    ...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
  });
  if (!built) log("no fetched transcripts yet: nothing to build");
  else {
    summary.build = built;
    log(`published ${built.dir}: ${JSON.stringify(built.counts)}, liveSeq ${built.liveSeq}`);
  }
}

/** The summary's end, recorded in the state and last-run.json; then everything the run held is let go, whatever failed. */
async function closeRun(run: Run, held: Held): Promise<void> {
  const { summary, layout, log } = run;
  const finished = run.now();
  summary.finishedAt = finished.toISOString();
  summary.durationSeconds = Math.round((finished.getTime() - run.started.getTime()) / 100) / 10;
  try {
    await held.ownClient?.close();
    await held.writer?.close();
    if (!run.dryRun && held.state && held.runId !== undefined) {
      held.state.finishRun(held.runId, summary.exitCode, summary, finished);
      // The summary is also in the state's runs table: a summary file that cannot be written (a full disk) is said once, not thrown.
      try {
        await writeSummary(layout, summary);
      } catch (error) {
        log(`could not write ${layout.lastRun}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    held.state?.close();
    await held.locks?.release();
  }
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
