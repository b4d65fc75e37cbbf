/**
 * One scheduled run: lock, crawl, fetch, build and publish, summary. Returns
 * the exit code and the summary instead of exiting, so tests can call it
 * in-process and the CLI stays a thin shell around it.
 */
import { existsSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createYouTubeClient, type YouTubeClient } from "../youtube/index.js";
import { acquireLock, type RunLock } from "./acquire-lock.js";
import { buildAndPublish, type PublishedBuild } from "./build-and-publish.js";
import { crawlChannels, type ChannelFailure } from "./crawl-channels.js";
import { EXIT } from "./exit-codes.js";
import { fetchTranscripts } from "./fetch-transcripts.js";
import { PipelineState } from "./open-state.js";
import { readChannelList } from "./read-channel-list.js";
import { RecordWriter } from "./record-writer.js";
import type { Progress } from "./report-progress.js";

export const PIPELINE_DIR = "pipeline";
export const STATE_FILE = "state.db";
export const LOCK_FILE = "run.lock";
export const SUMMARY_FILE = "last-run.json";

export interface RunOptions {
  /** DATA_DIR: state in `<dataDir>/pipeline/`, artifacts in `<dataDir>/builds/` and `current`. */
  dataDir: string;
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
  /** YouTube (or the stand-in). Default https://www.youtube.com. */
  origin?: string;
  /** Proxies, one per request, round-robin. Default none. */
  proxyUrls?: string[];
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
  outcome: "ok" | "partial" | "failed" | "interrupted" | "dry-run";
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
    perSecond: number;
  };
  build: (Omit<PublishedBuild, "seconds"> & { seconds: number }) | null;
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
  const pipelineDir = join(options.dataDir, PIPELINE_DIR);
  const summary: RunSummary = {
    outcome: "ok",
    exitCode: EXIT.ok,
    dryRun,
    startedAt: started.toISOString(),
    finishedAt: "",
    durationSeconds: 0,
    channels: { listed: 0, crawled: 0, skipped: 0, failed: [] },
    videos: { seen: 0, new: 0 },
    transcripts: { wanted: 0, attempted: 0, fetched: 0, permanent: {}, failed: {}, perSecond: 0 },
    build: null,
  };

  // Usage problems (a bad list) surface before anything is locked or written.
  const channels = await readChannelList(options.channelsFile);
  summary.channels.listed = channels.length;

  let lock: RunLock | undefined;
  let state: PipelineState | undefined;
  let runId: number | undefined;
  let writer: RecordWriter | undefined;
  /** A client this run made (not one passed in), closed at the end. */
  let ownClient: YouTubeClient | undefined;
  try {
    const statePath = join(pipelineDir, STATE_FILE);
    if (dryRun) {
      state = existsSync(statePath) ? PipelineState.open(statePath, { readonly: true }) : undefined;
    } else {
      lock = acquireLock(join(pipelineDir, LOCK_FILE)); // throws LockHeldError: the CLI exits 3
      if (lock.tookOver) {
        summary.tookOverLockOf = lock.tookOver.pid;
        log(`took over the lock of run ${lock.tookOver.pid}, which is no longer alive`);
      }
      state = PipelineState.open(statePath);
      runId = state.startRun(started);
      writer = new RecordWriter(statePath);
    }
    ownClient = options.client
      ? undefined
      : createYouTubeClient({
          ...(options.origin ? { origin: options.origin } : {}),
          proxyUrls: options.proxyUrls ?? [],
          timeoutMs: options.timeoutMs ?? 15_000,
          ...(options.maxBlockedRetries !== undefined ? { maxBlockedRetries: options.maxBlockedRetries } : {}),
        });
    const client = options.client ?? ownClient!;
    const concurrency = options.concurrency ?? 8;

    progress.stage("crawl", channels.length, "channels");
    const crawl = await crawlChannels({
      client,
      state,
      readonly: dryRun,
      channels,
      concurrency: Math.min(concurrency, 4),
      recrawlAfterMs: options.recrawlAfterMs ?? 30 * 60_000,
      signal,
      now,
      log,
      onChannel: (done, _total, seen) => progress.update({ done, detail: { videos: seen } }),
    });
    progress.end();
    summary.channels = { listed: channels.length, crawled: crawl.channelsCrawled, skipped: crawl.channelsSkipped, failed: crawl.channelFailures };
    summary.videos = { seen: crawl.videosSeen, new: crawl.videosNew };

    if (!signal.aborted && state) {
      const counts = { ok: 0, permanent: 0, failed: 0 };
      const fetchStarted = performance.now();
      const retryPermanentAfterMs = options.retryPermanentAfterMs ?? 30 * 86_400_000;
      const fetched = await fetchTranscripts({
        client,
        state,
        saveRecord: (record, at) => (writer ? writer.save(record, at) : Promise.reject(new Error("no record writer in a dry run"))),
        dryRun,
        limit: options.limit,
        concurrency,
        rate: options.rate,
        languages: options.languages ?? ["en"],
        anyLanguage: options.anyLanguage ?? true,
        retries: options.retries ?? 2,
        retryBaseMs: options.retryBaseMs ?? 1000,
        retryMaxMs: 30_000,
        retryPermanentBefore: new Date(now().getTime() - retryPermanentAfterMs),
        signal,
        now,
        log,
        onStart: (total) => progress.stage(dryRun ? "would fetch" : "fetch", total, "transcripts"),
        onOutcome: (outcome) => {
          if (outcome.kind === "fetched") counts.ok++;
          else counts[outcome.kind]++;
          progress.update({ done: counts.ok + counts.permanent + counts.failed, detail: counts });
        },
      });
      progress.end();
      const seconds = (performance.now() - fetchStarted) / 1000;
      summary.transcripts = {
        // A dry run wrote nothing, so the videos it just found are not among the state's candidates.
        wanted: fetched.candidates + (dryRun ? crawl.videosNew : 0),
        attempted: fetched.attempted,
        fetched: fetched.fetched,
        permanent: fetched.permanent,
        failed: fetched.failed,
        perSecond: seconds > 0 ? Math.round((fetched.fetched / seconds) * 10) / 10 : 0,
      };
    } else if (dryRun) {
      // No state yet: everything seen would be fetched.
      summary.transcripts.wanted = crawl.videosNew;
    }

    if (!signal.aborted && !dryRun && state && (options.build ?? true)) {
      if (state.recordCount() === 0) {
        log("no fetched transcripts yet: nothing to build");
      } else {
        log("building the artifact set");
        summary.build = await buildAndPublish({ dataDir: options.dataDir, state, log });
        log(`published ${summary.build.dir}: ${JSON.stringify(summary.build.counts)}, liveSeq ${summary.build.liveSeq}`);
      }
    }

    const failures = Object.keys(summary.transcripts.failed).length > 0 || summary.channels.failed.length > 0;
    if (signal.aborted) Object.assign(summary, { outcome: "interrupted", exitCode: EXIT.interrupted });
    else if (dryRun) Object.assign(summary, { outcome: "dry-run", exitCode: failures ? EXIT.partial : EXIT.ok });
    else if (failures) Object.assign(summary, { outcome: "partial", exitCode: EXIT.partial });
  } catch (error) {
    progress.end();
    if (error instanceof Error && error.name === "LockHeldError") throw error;
    Object.assign(summary, { outcome: "failed", exitCode: EXIT.failed, error: error instanceof Error ? error.message : String(error) });
    if (!(error instanceof Error) || error.name !== "YouTubeError") log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  } finally {
    const finished = now();
    summary.finishedAt = finished.toISOString();
    summary.durationSeconds = Math.round((finished.getTime() - started.getTime()) / 100) / 10;
    try {
      await ownClient?.close();
      await writer?.close();
      if (!dryRun && state && runId !== undefined) {
        state.finishRun(runId, summary.exitCode, summary, finished);
        await writeSummary(pipelineDir, summary);
      }
    } finally {
      state?.close();
      lock?.release();
    }
  }
  return summary;
}

/** Written to a temporary file and renamed, so a reader never sees half of it. */
async function writeSummary(dir: string, summary: RunSummary): Promise<void> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, SUMMARY_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(summary, null, 2)}\n`);
  await rename(temporary, path);
}
