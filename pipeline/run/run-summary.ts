/**
 * What a run says it did: the summary printed on stdout, kept in the state's
 * runs table and written to DATA_DIR/pipeline/last-run.json, and how its
 * ending (done, stopped, refused, failed) becomes its outcome and exit code.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import type { ExitView } from "../youtube/index.js";
import type { PublishedBuild } from "../build/build-and-publish.js";
import type { ChannelFailure, CrawlResult } from "../crawl/crawl-channels.js";
import type { FetchCounts } from "../fetch/fetch-transcripts.js";
import type { DataDirLayout } from "../artifact/layout/index.js";
import { EXIT } from "../command/exit-codes.js";
import { PublishRefused } from "../publish/publish-guard.js";

export interface RunSummary {
  outcome: "ok" | "partial" | "failed" | "interrupted" | "refused" | "dry-run";
  exitCode: number;
  dryRun: boolean;
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  channels: { listed: number; crawled: number; skipped: number; failed: ChannelFailure[] };
  videos: { seen: number; new: number };
  /** The fetch's counts, with how many wanted a transcript at the start of the fetch stage and the rate fetched. */
  transcripts: FetchCounts & { wanted: number; perSecond: number };
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

/** The summary of a run that has just started: nothing done yet, exit 0 unless something says otherwise. */
export function newSummary(started: Date, dryRun: boolean): RunSummary {
  return {
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
}

/** The crawl's counts, into the summary. */
export function recordCrawl(summary: RunSummary, crawl: CrawlResult): void {
  summary.channels = { listed: summary.channels.listed, crawled: crawl.channelsCrawled, skipped: crawl.channelsSkipped, failed: crawl.channelFailures };
  summary.videos = { seen: crawl.videosSeen, new: crawl.videosNew };
}

/** The outcome of a run that ran to its end: stopped, a dry run, or partial when a fetch or a channel failed. */
export function settleOutcome(summary: RunSummary, ended: { stopped: boolean }): void {
  const failures = Object.keys(summary.transcripts.failed).length > 0 || summary.channels.failed.length > 0;
  if (ended.stopped) Object.assign(summary, { outcome: "interrupted", exitCode: EXIT.interrupted });
  else if (summary.dryRun) Object.assign(summary, { outcome: "dry-run", exitCode: failures ? EXIT.partial : EXIT.ok });
  else if (failures) Object.assign(summary, { outcome: "partial", exitCode: EXIT.partial });
}

/** The outcome of a run that threw `error`: stopped during the build, publish refused, or failed (said on `log`). */
export function recordFailure(summary: RunSummary, error: unknown, ended: { stopped: boolean; log: (message: string) => void }): void {
  const { log } = ended;
  if (error instanceof Error && error.name === "BuildInterrupted" && ended.stopped) {
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
}

/** Written to a temporary file and renamed, so a reader never sees half of it. */
export async function writeSummary(layout: DataDirLayout, summary: RunSummary): Promise<void> {
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
