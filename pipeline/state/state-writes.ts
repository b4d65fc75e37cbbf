/**
 * The writes to the pipeline's state (open-state.ts): their statements and
 * the rows they take, shared by PipelineState and the writer thread
 * (record-writer-worker.ts), which must write exactly the same.
 */
import { promisify } from "node:util";
import { deflateRaw } from "node:zlib";
import type { VideoRecord } from "../artifact/contract/index.js";

export interface CrawledVideo {
  videoId: string;
  channelId: string;
  title: string;
  viewCount: number | undefined;
  publishedAt: string | undefined;
  /** Whether `publishedAt` was derived from a relative age. */
  approximate: boolean;
}

export const PUT_RECORD_SQL = "INSERT OR REPLACE INTO records (video_id, record, fetched_at) VALUES (@videoId, @blob, @now)";
export const MARK_FETCHED_SQL = `UPDATE videos SET status = 'fetched', attempts = attempts + 1, last_error = NULL, last_error_message = NULL,
    last_attempt_at = @now, fetched_at = @now, published_at = @publishedAt, published_approx = 0,
    view_count = @viewCount, title = @title
  WHERE video_id = @videoId`;

/** A crawled video: inserted when new; a known one gets views and title refreshed, and an exact date never gives way to an approximate one. */
export const KNOWN_VIDEO_SQL = "SELECT 1 FROM videos WHERE video_id = ?";
export const UPSERT_VIDEO_SQL = `INSERT INTO videos (video_id, channel_id, title, view_count, published_at, published_approx, first_seen_at, last_seen_at)
  VALUES (@videoId, @channelId, @title, @viewCount, @publishedAt, @approx, @now, @now)
  ON CONFLICT (video_id) DO UPDATE SET
    title = excluded.title,
    view_count = coalesce(excluded.view_count, view_count),
    published_at = CASE WHEN published_approx = 1 OR published_at IS NULL
                        THEN coalesce(excluded.published_at, published_at) ELSE published_at END,
    published_approx = CASE WHEN published_approx = 1 OR published_at IS NULL
                            THEN excluded.published_approx ELSE published_approx END,
    last_seen_at = excluded.last_seen_at`;
/** A failed fetch: `failed` (permanent) or still `pending` (transient). */
export const MARK_FAILED_SQL = `UPDATE videos SET status = @status, attempts = attempts + 1, last_error = @code, last_error_message = @message,
    last_attempt_at = @now
  WHERE video_id = @videoId`;

/** The parameters of UPSERT_VIDEO_SQL for each video of a crawled page. */
export function videoRows(videos: readonly CrawledVideo[], now: Date) {
  const stamp = now.toISOString();
  return videos.map((video) => ({
    videoId: video.videoId,
    channelId: video.channelId,
    title: video.title,
    viewCount: video.viewCount ?? null,
    publishedAt: video.publishedAt ?? null,
    approx: video.approximate ? 1 : 0,
    now: stamp,
  }));
}

/** The parameters of MARK_FAILED_SQL. */
export function failureRow(videoId: string, failure: { permanent: boolean; code: string; message: string }, now: Date) {
  return {
    videoId,
    status: failure.permanent ? "failed" : "pending",
    code: failure.code,
    message: failure.message.slice(0, 500),
    now: now.toISOString(),
  };
}

/** A channel of the list: added, or its input, title and handle refreshed. */
export const UPSERT_CHANNEL_SQL = `INSERT INTO channels (channel_id, input, title, handle, first_seen_at) VALUES (@channelId, @input, @title, @handle, @now)
  ON CONFLICT (channel_id) DO UPDATE SET input = excluded.input,
    title = coalesce(excluded.title, title), handle = coalesce(excluded.handle, handle)`;
export const CHANNEL_CRAWLED_SQL = "UPDATE channels SET crawled_at = @now, video_count = @videoCount, last_error = NULL WHERE channel_id = @channelId";
export const CHANNEL_FAILED_SQL = "UPDATE channels SET last_error = @code WHERE channel_id = @channelId";

const deflateRawAsync = promisify(deflateRaw);

/**
 * The parameters of PUT_RECORD_SQL and MARK_FETCHED_SQL. The record is
 * compressed on libuv's thread pool: on the event loop, compression is a
 * large share of the fetch stage's time, which every fetch in flight waits.
 */
export async function recordRow(record: VideoRecord, now: Date) {
  return {
    videoId: record.videoId,
    blob: await deflateRawAsync(JSON.stringify(record), { level: 1 }),
    now: now.toISOString(),
    publishedAt: record.publishedAt,
    viewCount: record.viewCount,
    title: record.title,
  };
}

