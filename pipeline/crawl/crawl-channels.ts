/**
 * The crawl stage: every channel of the list resolved to its id, its whole
 * Videos tab read through the continuations, and each page written to the
 * state in one transaction (new videos added, known ones get their view
 * counts refreshed). The channel feed gives exact dates for the newest 15
 * uploads; the others get a date from their relative age, marked approximate
 * until the fetch reads the watch page. A playlist of the list is crawled
 * the same way, its videos each under its uploader's channel; the state's
 * `channels` table keeps it under its playlist id, for its crawl time.
 */
import PQueue from "p-queue";
import { isYouTubeError, type FeedEntry, type YouTubeClient } from "../youtube/index.js";
import { approximatePublishedAt } from "./approximate-date.js";
import type { CrawledVideo, PipelineState } from "../state/open-state.js";
import type { CrawlWrites } from "../state/record-writer.js";
import type { ChannelListEntry } from "./read-channel-list.js";

export interface CrawlOptions {
  client: YouTubeClient;
  /** Read: when channels were crawled; in a dry run, which videos are known. */
  state: PipelineState | undefined;
  /** Where the crawl's pages go; undefined for a dry run (then nothing is written and "new" is judged against `state`). */
  writes: CrawlWrites | undefined;
  channels: readonly ChannelListEntry[];
  /** Channels crawled at once. */
  concurrency: number;
  /** Channels whose last complete crawl is younger than this are skipped, in ms (0: crawl all). */
  recrawlAfterMs: number;
  signal: AbortSignal;
  now: () => Date;
  onChannel?: (done: number, total: number, videosSeen: number) => void;
  /** After each page of videos is written to the state (`fresh` of them new). */
  onVideos?: (fresh: number) => void;
  log: (message: string) => void;
}

export interface ChannelFailure {
  input: string;
  code: string;
  message: string;
}

export interface CrawlResult {
  channelsListed: number;
  channelsCrawled: number;
  channelsSkipped: number;
  channelFailures: ChannelFailure[];
  videosSeen: number;
  videosNew: number;
}

const PAGE = 30;

export async function crawlChannels(options: CrawlOptions): Promise<CrawlResult> {
  const result: CrawlResult = {
    channelsListed: options.channels.length,
    channelsCrawled: 0,
    channelsSkipped: 0,
    channelFailures: [],
    videosSeen: 0,
    videosNew: 0,
  };
  const queue = new PQueue({ concurrency: options.concurrency });
  let done = 0;
  /** Not YouTube's doing (a bug, the state database): stops the crawl and is thrown at the end. */
  let fatal: unknown;
  for (const entry of options.channels) {
    void queue.add(async () => {
      if (options.signal.aborted || fatal !== undefined) return;
      try {
        const crawled = await crawlOne(entry, options, result);
        if (crawled) result.channelsCrawled++;
        else result.channelsSkipped++;
      } catch (error) {
        if (options.signal.aborted) return;
        if (!isYouTubeError(error)) {
          fatal ??= error;
          return;
        }
        result.channelFailures.push({ input: entry.input, code: error.code, message: error.message });
        options.log(`channel ${entry.input} (line ${entry.line}): ${error.code}: ${error.message}`);
        // Noting the failure in the state can fail too (the writer thread); that is fatal, like any other write.
        const listed = entry.channelId ?? entry.playlistId;
        if (listed) await options.writes?.saveChannelFailed(listed, error.code).catch((writeError: unknown) => (fatal ??= writeError));
      } finally {
        options.onChannel?.(++done, options.channels.length, result.videosSeen);
      }
    });
  }
  await queue.onIdle();
  if (fatal !== undefined) throw fatal;
  return result;
}

async function crawlOne(entry: ChannelListEntry, options: CrawlOptions, result: CrawlResult): Promise<boolean> {
  if (entry.playlistId !== undefined) return crawlPlaylist(entry, entry.playlistId, options, result);
  const { client, signal } = options;
  let channelId = entry.channelId;
  let title: string | undefined;
  let handle: string | undefined;
  if (!channelId) {
    const resolved = await client.resolveChannel(entry.input, { signal });
    ({ channelId, title, handle } = resolved);
  }
  if (crawledRecently(channelId, options)) return false;

  let feed = new Map<string, FeedEntry>();
  try {
    feed = new Map((await client.channelFeed(channelId, { signal })).map((e) => [e.videoId, e]));
  } catch (error) {
    // The feed only sharpens dates of recent uploads; without it they stay approximate.
    if (!isYouTubeError(error)) throw error;
    options.log(`channel ${channelId}: feed unavailable (${error.code}); dates of recent uploads stay approximate`);
  }

  const stream = client.listChannelVideos(channelId, { signal });
  const nowMs = options.now().getTime();
  async function* videos(): AsyncIterable<CrawledVideo> {
    for await (const item of stream) {
      const exact = feed.get(item.videoId);
      const publishedAt = exact?.publishedAt ?? approximatePublishedAt(item.publishedText, nowMs);
      yield {
        videoId: item.videoId,
        channelId: channelId!,
        title: item.title,
        viewCount: exact?.viewCount ?? item.viewCount,
        publishedAt,
        approximate: exact === undefined,
      };
    }
  }
  const saveChannel = async (): Promise<void> => {
    const metadata = stream.metadata;
    handle ??= /\/(@[^/?#]+)/.exec(metadata?.vanityChannelUrl ?? "")?.[1];
    title ??= metadata?.title;
    await options.writes?.saveChannel({ channelId: channelId!, input: entry.input, ...(title ? { title } : {}), ...(handle ? { handle } : {}) }, options.now());
  };
  const count = await writeInPages(videos(), saveChannel, options, result);
  await options.writes?.saveChannelCrawled(channelId, count, options.now());
  return true;
}

/** Whether the channel or playlist had a complete crawl younger than `recrawlAfterMs` (then it is skipped). */
function crawledRecently(id: string, options: CrawlOptions): boolean {
  if (options.recrawlAfterMs <= 0) return false;
  const last = options.state?.channelCrawledAt(id);
  if (!last) return false;
  return options.now().getTime() - Date.parse(last) < options.recrawlAfterMs;
}

/**
 * Writes a crawl's videos a page at a time and returns how many there were.
 * The source's row is saved once, at the first page (or at the end when it
 * has none), so what it reads from the stream (title, handle) is known by then.
 */
async function writeInPages(videos: AsyncIterable<CrawledVideo>, saveSource: () => Promise<void>, options: CrawlOptions, result: CrawlResult): Promise<number> {
  let batch: CrawledVideo[] = [];
  let count = 0;
  let sourceSaved = false;
  const flush = async (): Promise<void> => {
    if (!sourceSaved) {
      await saveSource();
      sourceSaved = true;
    }
    if (batch.length === 0) return;
    const page = batch;
    batch = [];
    await writePage(page, options, result);
  };
  for await (const video of videos) {
    batch.push(video);
    count++;
    if (batch.length >= PAGE) await flush();
  }
  await flush();
  return count;
}

/** A crawled page of videos written to the state (counted as new against it in a dry run). */
async function writePage(page: CrawledVideo[], options: CrawlOptions, result: CrawlResult): Promise<void> {
  result.videosSeen += page.length;
  if (options.writes === undefined) {
    result.videosNew += page.filter((v) => !options.state?.isKnownVideo(v.videoId)).length;
  } else {
    const fresh = await options.writes.saveVideos(page, options.now());
    result.videosNew += fresh;
    options.onVideos?.(fresh);
  }
}

/** A playlist's videos, each under its uploader's channel; dates approximate until the fetch reads the watch page (playlists have no feed here). */
async function crawlPlaylist(entry: ChannelListEntry, playlistId: string, options: CrawlOptions, result: CrawlResult): Promise<boolean> {
  const { client, signal, writes } = options;
  if (crawledRecently(playlistId, options)) return false;
  const stream = client.listPlaylistVideos(playlistId, { signal });
  const nowMs = options.now().getTime();
  async function* videos(): AsyncIterable<CrawledVideo> {
    for await (const item of stream) {
      const publishedAt = approximatePublishedAt(item.publishedText, nowMs);
      yield { videoId: item.videoId, channelId: item.channelId, title: item.title, viewCount: item.viewCount, publishedAt, approximate: true };
    }
  }
  const savePlaylist = async (): Promise<void> => {
    await writes?.saveChannel({ channelId: playlistId, input: entry.input, ...(stream.title ? { title: stream.title } : {}) }, options.now());
  };
  const count = await writeInPages(videos(), savePlaylist, options, result);
  if (stream.unavailable > 0) options.log(`playlist ${playlistId}: ${stream.unavailable} private or deleted videos skipped`);
  await writes?.saveChannelCrawled(playlistId, count, options.now());
  return true;
}
