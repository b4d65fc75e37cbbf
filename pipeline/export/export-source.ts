/**
 * What an export holds: the videos of an artifact set, with the live store's
 * records the set does not hold yet folded in by the rule the next build
 * applies (live-records.ts `mergeRecords`: the newer record's metadata, tracks
 * from both, the newer winning per language and kind), and the tracks cleaned
 * as a build cleans them (segments.ts `prepareTrack`). Every database is only
 * read, so the server goes on serving and writing its live store meanwhile.
 *
 * The set's rows stream from SQLite (one connection walks the videos, one the
 * tracks, joined as they go); only the ids of the set's videos that a live
 * record changes are held in memory.
 */
import Database from "better-sqlite3";
import { ARTIFACT_FILES, type Manifest, type VideoRecord } from "../artifact/contract/index.js";
import { type LiveRecord, type LiveStoreSnapshot, mergeRecords, openLiveSnapshot } from "../artifact/live-store/index.js";
import { decodeSegments, prepareTrack } from "../artifact/segments/index.js";
import { join } from "node:path";
import { primaryTrackOrder, type ExportTrack, type ExportVideo } from "./dataset-schema.js";

interface SetVideoRow {
  rank: number;
  videoId: string;
  channelId: string;
  channelTitle: string;
  channelHandle: string | null;
  title: string;
  viewCount: number;
  publishedAt: string;
  thumbnail: string;
  lengthSeconds: number;
  description: string | null;
  chapters: string | null;
  keywords: string | null;
  category: string | null;
}

interface SetTrackRow {
  video: number;
  languageCode: string;
  language: string;
  isGenerated: number;
  wordCount: number;
  duration: number;
  script: string;
  timings: Buffer;
}

export interface ExportSource {
  /** Videos to export: the set's, and the live store's new ones. */
  total: number;
  /** Live records the set does not hold (folded in). */
  liveRecords: number;
  liveSeq: number;
  liveStoreId: string | undefined;
  videos(): Generator<ExportVideo>;
  close(): void;
}

/** Opens the set in `setDir` (its manifest already read) and DATA_DIR's live store for an export. */
export function openExportSource(setDir: string, manifest: Manifest, dataDir: string): ExportSource {
  const path = join(setDir, ARTIFACT_FILES.database);
  const videosDb = new Database(path, { readonly: true, fileMustExist: true });
  const tracksDb = new Database(path, { readonly: true, fileMustExist: true });
  let live: LiveStoreSnapshot | undefined;
  try {
    live = openLiveSnapshot(dataDir);
    // Records of the set's own store up to its watermark are in the set already; any other store's are not.
    const covered = (record: LiveRecord) => live!.storeId !== undefined && live!.storeId === manifest.liveStoreId && record.seq <= manifest.liveSeq;
    const inSet = videosDb.prepare("SELECT 1 FROM videos WHERE video_id = ?").pluck();
    /** Set videos a live record changes, by id: the live record's sequence number. */
    const changed = new Map<string, number>();
    let added = 0;
    let liveRecords = 0;
    if (live) {
      for (const record of live.records(live.maxSeq)) {
        if (covered(record)) continue;
        liveRecords++;
        if (inSet.get(record.record.videoId) !== undefined) changed.set(record.record.videoId, record.seq);
        else added++;
      }
    }
    const setVideos = videosDb.prepare("SELECT count(*) FROM videos").pluck().get() as number;
    const snapshot = live;
    return {
      total: setVideos + added,
      liveRecords,
      liveSeq: live?.maxSeq ?? 0,
      liveStoreId: live?.storeId,
      *videos() {
        const liveOf = new Map<string, VideoRecord>();
        if (snapshot && changed.size > 0) {
          // The changed videos' live records, looked up as the walk reaches them (the live store is small next to the set).
          for (const record of snapshot.records(snapshot.maxSeq)) {
            if (changed.get(record.record.videoId) === record.seq) liveOf.set(record.record.videoId, record.record);
          }
        }
        const tracks = tracksDb
          .prepare(
            `SELECT video, language_code AS languageCode, language, is_generated AS isGenerated, word_count AS wordCount,
                    duration, script, timings FROM transcripts ORDER BY video, id`,
          )
          .iterate() as IterableIterator<SetTrackRow>;
        let nextTrack = tracks.next();
        const rows = videosDb
          .prepare(
            `SELECT v.id AS rank, v.video_id AS videoId, c.channel_id AS channelId, c.title AS channelTitle, c.handle AS channelHandle,
                    v.title, v.view_count AS viewCount, v.published_at AS publishedAt, v.thumbnail, v.length_seconds AS lengthSeconds,
                    v.description, v.chapters, v.keywords, v.category
             FROM videos v JOIN channels c ON c.id = v.channel ORDER BY v.id`,
          )
          .iterate() as IterableIterator<SetVideoRow>;
        try {
          for (const row of rows) {
            const own: ExportTrack[] = [];
            while (!nextTrack.done && nextTrack.value.video <= row.rank) {
              if (nextTrack.value.video === row.rank) own.push(storedTrack(nextTrack.value));
              nextTrack = tracks.next();
            }
            const video = setVideo(row, own);
            const newer = liveOf.get(row.videoId);
            yield newer ? prepared(mergeRecords(asRecord(video), newer)) : video;
          }
        } finally {
          tracks.return?.();
        }
        if (!snapshot || added === 0) return;
        for (const record of snapshot.records(snapshot.maxSeq)) {
          if (!covered(record) && !changed.has(record.record.videoId) && inSet.get(record.record.videoId) === undefined) yield prepared(record.record);
        }
      },
      close() {
        live?.close();
        videosDb.close();
        tracksDb.close();
      },
    };
  } catch (error) {
    live?.close();
    videosDb.close();
    tracksDb.close();
    throw error;
  }
}

function storedTrack(row: SetTrackRow): ExportTrack {
  return {
    languageCode: row.languageCode,
    language: row.language,
    isGenerated: row.isGenerated === 1,
    wordCount: row.wordCount,
    duration: row.duration,
    text: row.script,
    segments: decodeSegments(row.script, row.timings).map((s) => ({ start: Number(s.offset), duration: Number(s.duration), text: s.text })),
  };
}

function setVideo(row: SetVideoRow, tracks: ExportTrack[]): ExportVideo {
  return {
    videoId: row.videoId,
    channelId: row.channelId,
    channelTitle: row.channelTitle,
    channelHandle: row.channelHandle,
    title: row.title,
    publishedAt: row.publishedAt,
    viewCount: row.viewCount,
    lengthSeconds: row.lengthSeconds,
    thumbnail: row.thumbnail,
    description: row.description,
    category: row.category,
    keywords: row.keywords === null ? null : (JSON.parse(row.keywords) as string[]),
    chapters: row.chapters === null ? null : (JSON.parse(row.chapters) as ExportVideo["chapters"]),
    tracks: tracks.sort(primaryTrackOrder),
  };
}

/** The VideoRecord an exported video stands for (what an import reads back). */
export function asRecord(video: ExportVideo): VideoRecord {
  return {
    videoId: video.videoId,
    channelId: video.channelId,
    channelTitle: video.channelTitle,
    ...(video.channelHandle !== null ? { channelHandle: video.channelHandle } : {}),
    title: video.title,
    viewCount: video.viewCount,
    publishedAt: video.publishedAt,
    thumbnail: video.thumbnail,
    lengthSeconds: video.lengthSeconds,
    ...(video.description !== null ? { description: video.description } : {}),
    ...(video.chapters !== null ? { chapters: video.chapters } : {}),
    ...(video.keywords !== null ? { keywords: video.keywords } : {}),
    ...(video.category !== null ? { category: video.category } : {}),
    transcripts: video.tracks.map((t) => ({ language: t.language, languageCode: t.languageCode, isGenerated: t.isGenerated, segments: t.segments })),
  };
}

/** A record as a build would store it: dates in UTC, tracks cleaned, tracks with no text left out. */
function prepared(record: VideoRecord): ExportVideo {
  const tracks: ExportTrack[] = [];
  for (const track of record.transcripts) {
    const stored = prepareTrack(track);
    if (!stored) continue;
    tracks.push({
      languageCode: track.languageCode,
      language: track.language,
      isGenerated: track.isGenerated,
      wordCount: stored.wordCount,
      duration: stored.duration,
      text: stored.script,
      segments: decodeSegments(stored.script, stored.timings).map((s) => ({ start: Number(s.offset), duration: Number(s.duration), text: s.text })),
    });
  }
  return {
    videoId: record.videoId,
    channelId: record.channelId,
    channelTitle: record.channelTitle,
    channelHandle: record.channelHandle ?? null,
    title: record.title,
    publishedAt: new Date(record.publishedAt).toISOString(),
    viewCount: record.viewCount,
    lengthSeconds: record.lengthSeconds,
    thumbnail: record.thumbnail,
    description: record.description ?? null,
    category: record.category ?? null,
    keywords: record.keywords ?? null,
    chapters: record.chapters ?? null,
    tracks: tracks.sort(primaryTrackOrder),
  };
}
