/**
 * First pass of a build: records arrive in any order (and the same video may
 * come more than once, e.g. a crawled record and a live-fetched one), so they
 * are staged in a scratch database keyed by video id. The later record wins
 * for metadata; transcripts merge by (language, generated), later wins.
 */
import Database from "better-sqlite3";
import { VideoRecord } from "../artifact/contract/index.js";
import { prepareTrack } from "../artifact/segments/index.js";
import { checkpoint } from "../command/interrupt.js";
import { SCRATCH_PRAGMAS, setScratchPragmas } from "./scratch.js";

const STAGING_DDL = `
CREATE TABLE stage_videos (
  video_id TEXT PRIMARY KEY,
  channel_id TEXT NOT NULL,
  channel_title TEXT NOT NULL,
  channel_handle TEXT,
  title TEXT NOT NULL,
  view_count INTEGER NOT NULL,
  published_at TEXT NOT NULL,
  thumbnail TEXT NOT NULL,
  length_seconds REAL NOT NULL,
  description TEXT,
  chapters TEXT,
  keywords TEXT,
  category TEXT,
  seq INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE stage_transcripts (
  video_id TEXT NOT NULL,
  language_code TEXT NOT NULL,
  is_generated INTEGER NOT NULL,
  language TEXT NOT NULL,
  word_count INTEGER NOT NULL,
  duration REAL NOT NULL,
  script TEXT NOT NULL,
  timings BLOB NOT NULL,
  PRIMARY KEY (video_id, language_code, is_generated)
);
`;

export interface StagingStats {
  records: number;
  invalid: number;
}

export type RecordSource = Iterable<unknown> | AsyncIterable<unknown>;

/**
 * Writes every valid record into a new staging database at `path`. Invalid records are counted and skipped.
 * After each batch the event loop runs (a synchronous source would otherwise hold it) and `signal` is checked.
 */
export async function stageRecords(
  path: string,
  records: RecordSource,
  onInvalid?: (error: Error, index: number) => void,
  signal?: AbortSignal,
  /** Records read so far, after each batch. */
  onProgress: (read: number) => void = () => {},
): Promise<StagingStats> {
  const db = new Database(path);
  try {
    // Scratch data: a crash restarts the build, so durability buys nothing here.
    setScratchPragmas(db, SCRATCH_PRAGMAS);
    db.exec(STAGING_DDL);
    const putVideo = db.prepare(`INSERT OR REPLACE INTO stage_videos VALUES
      (@videoId, @channelId, @channelTitle, @channelHandle, @title, @viewCount, @publishedAt,
       @thumbnail, @lengthSeconds, @description, @chapters, @keywords, @category, @seq)`);
    const putTranscript = db.prepare(`INSERT OR REPLACE INTO stage_transcripts VALUES
      (?, ?, ?, ?, ?, ?, ?, ?)`);
    const stats: StagingStats = { records: 0, invalid: 0 };
    const insert = db.transaction((batch: VideoRecord[], firstSeq: number) => {
      batch.forEach((record, i) => {
        putVideo.run({
          ...record,
          channelHandle: record.channelHandle ?? null,
          publishedAt: new Date(record.publishedAt).toISOString(),
          description: record.description ?? null,
          chapters: record.chapters ? JSON.stringify(record.chapters) : null,
          keywords: record.keywords ? JSON.stringify(record.keywords) : null,
          category: record.category ?? null,
          seq: firstSeq + i,
        });
        for (const transcript of record.transcripts) {
          const stored = prepareTrack(transcript);
          if (!stored) continue;
          putTranscript.run(
            record.videoId,
            transcript.languageCode,
            transcript.isGenerated ? 1 : 0,
            transcript.language,
            stored.wordCount,
            stored.duration,
            stored.script,
            stored.timings,
          );
        }
      });
    });
    let batch: VideoRecord[] = [];
    let index = 0;
    for await (const raw of records) {
      const parsed = VideoRecord.safeParse(raw);
      if (parsed.success) batch.push(parsed.data);
      else {
        stats.invalid++;
        onInvalid?.(parsed.error, index);
      }
      index++;
      if (batch.length >= 500) {
        insert(batch, stats.records);
        stats.records += batch.length;
        batch = [];
        onProgress(index);
        await checkpoint(signal);
      }
    }
    insert(batch, stats.records);
    stats.records += batch.length;
    return stats;
  } finally {
    db.close();
  }
}
