/**
 * The exported dataset's contract: its two tables and their columns (one
 * list, from which the DuckDB tables of the Parquet writer, the dataset
 * card's schema table and the readers all come), file names and the export
 * manifest. An export is a folder:
 *
 *   README.md                       the dataset card
 *   manifest.json                   every file's table, rows, bytes and SHA-256; written last
 *   transcripts/transcripts-00000.parquet (or .jsonl.gz) …
 *   videos/videos-00000.parquet (or .jsonl.gz) …
 *
 * Rows of both tables come in one order: the set's videos most viewed first,
 * then the live store's new ones; a video's transcript rows follow that order
 * too (its primary track first), so an import joins the tables as it streams.
 */
import { z } from "zod";

export const EXPORT_FORMATS = ["parquet", "jsonl"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const TABLES = ["transcripts", "videos"] as const;
export type TableName = (typeof TABLES)[number];

export const EXPORT_MANIFEST = "manifest.json";
export const DATASET_CARD = "README.md";
/** `format` of the export manifest: what tells an export folder from anything else. */
export const EXPORT_KIND = "transcript-dataset-export";
/**
 * 2: the transcripts table has no `text` column; a track's text is its
 * segments' texts joined by single spaces (TRANSCRIPT_TEXT_SQL), and storing
 * it twice made a Parquet export nearly twice as large (zstd compresses each
 * column apart). `build --input` reads both versions.
 */
export const EXPORT_VERSION = 2;
export const READABLE_EXPORT_VERSIONS = [1, 2] as const;

/** DuckDB expression of a `transcripts` row's full text, as the docs and the dataset card show it. */
export const TRANSCRIPT_TEXT_SQL = "array_to_string(list_transform(segments, s -> s.text), ' ')";

export interface Column {
  name: string;
  /** DuckDB type: the Parquet type follows from it. */
  sql: string;
  /** In the dataset card. */
  description: string;
  nullable?: boolean;
}

const SEGMENTS = `STRUCT("start" DOUBLE, "duration" DOUBLE, "text" VARCHAR)[]`;

export const COLUMNS: Record<TableName, readonly Column[]> = {
  transcripts: [
    { name: "videoId", sql: "VARCHAR", description: "YouTube video id (11 characters)" },
    { name: "channelId", sql: "VARCHAR", description: "YouTube channel id (UC…)" },
    { name: "channelTitle", sql: "VARCHAR", description: "channel name" },
    { name: "title", sql: "VARCHAR", description: "video title" },
    { name: "publishedAt", sql: "TIMESTAMPTZ", description: "publication time, UTC" },
    { name: "viewCount", sql: "BIGINT", description: "views when last fetched" },
    { name: "languageCode", sql: "VARCHAR", description: "BCP 47 language tag of the track, e.g. `en`, `pt-BR`" },
    { name: "language", sql: "VARCHAR", description: "language name as YouTube gives it, e.g. `English (auto-generated)`" },
    { name: "isGenerated", sql: "BOOLEAN", description: "true for YouTube's automatic captions (speech recognition)" },
    { name: "wordCount", sql: "BIGINT", description: "words of the track's text (runs of non-space holding a letter or digit)" },
    { name: "duration", sql: "DOUBLE", description: "seconds, to the end of the last segment" },
    {
      name: "segments",
      sql: SEGMENTS,
      description: "timed caption lines: `start` and `duration` in seconds (millisecond precision), `text`; the track's full text is their texts joined by single spaces",
    },
  ],
  videos: [
    { name: "videoId", sql: "VARCHAR", description: "YouTube video id" },
    { name: "channelId", sql: "VARCHAR", description: "YouTube channel id" },
    { name: "channelTitle", sql: "VARCHAR", description: "channel name" },
    { name: "channelHandle", sql: "VARCHAR", description: "channel `@handle`", nullable: true },
    { name: "title", sql: "VARCHAR", description: "video title" },
    { name: "publishedAt", sql: "TIMESTAMPTZ", description: "publication time, UTC" },
    { name: "viewCount", sql: "BIGINT", description: "views when last fetched" },
    { name: "lengthSeconds", sql: "DOUBLE", description: "video length in seconds" },
    { name: "thumbnail", sql: "VARCHAR", description: "thumbnail URL" },
    { name: "description", sql: "VARCHAR", description: "video description", nullable: true },
    { name: "category", sql: "VARCHAR", description: "YouTube category", nullable: true },
    { name: "keywords", sql: "VARCHAR[]", description: "the uploader's keywords", nullable: true },
    { name: "chapters", sql: `STRUCT("title" VARCHAR, "startSeconds" DOUBLE)[]`, description: "chapters: title and start in seconds", nullable: true },
    { name: "hasTranscript", sql: "BOOLEAN", description: "whether the video has at least one stored track" },
    {
      name: "tracks",
      sql: `STRUCT("languageCode" VARCHAR, "language" VARCHAR, "isGenerated" BOOLEAN)[]`,
      description: "its stored tracks (rows of `transcripts`), primary track first",
    },
  ],
};

export interface ExportSegment {
  start: number;
  duration: number;
  text: string;
}

export interface ExportTrack {
  languageCode: string;
  language: string;
  isGenerated: boolean;
  wordCount: number;
  duration: number;
  /** The track's text as stored: not a column (the segments hold it), it sizes the row. */
  text: string;
  segments: ExportSegment[];
}

/** One video as exported: a `videos` row, and a `transcripts` row per track. */
export interface ExportVideo {
  videoId: string;
  channelId: string;
  channelTitle: string;
  channelHandle: string | null;
  title: string;
  /** ISO 8601 UTC. */
  publishedAt: string;
  viewCount: number;
  lengthSeconds: number;
  thumbnail: string;
  description: string | null;
  category: string | null;
  keywords: string[] | null;
  chapters: { title: string; startSeconds: number }[] | null;
  /** Primary track first. */
  tracks: ExportTrack[];
}

export type Row = Record<string, unknown>;

/** The `videos` row of a video. */
export function videoRow(video: ExportVideo): Row {
  const { tracks, ...metadata } = video;
  return {
    ...metadata,
    hasTranscript: tracks.length > 0,
    tracks: tracks.map((t) => ({ languageCode: t.languageCode, language: t.language, isGenerated: t.isGenerated })),
  };
}

/** The `transcripts` rows of a video, one per track. */
export function transcriptRows(video: ExportVideo): Row[] {
  return video.tracks.map((track) => ({
    videoId: video.videoId,
    channelId: video.channelId,
    channelTitle: video.channelTitle,
    title: video.title,
    publishedAt: video.publishedAt,
    viewCount: video.viewCount,
    languageCode: track.languageCode,
    language: track.language,
    isGenerated: track.isGenerated,
    wordCount: track.wordCount,
    duration: track.duration,
    segments: track.segments,
  }));
}

/** English before other languages, manual before auto-generated, then by code: contract.ts PRIMARY_TRACK_ORDER, in JS. */
export function primaryTrackOrder(a: Pick<ExportTrack, "languageCode" | "isGenerated">, b: Pick<ExportTrack, "languageCode" | "isGenerated">): number {
  const english = (t: { languageCode: string }) => (t.languageCode === "en" || t.languageCode.startsWith("en-") ? 0 : 1);
  return english(a) - english(b) || Number(a.isGenerated) - Number(b.isGenerated) || (a.languageCode < b.languageCode ? -1 : a.languageCode > b.languageCode ? 1 : 0);
}

export function shardName(table: TableName, index: number, format: ExportFormat): string {
  return `${table}/${table}-${String(index).padStart(5, "0")}.${format === "parquet" ? "parquet" : "jsonl.gz"}`;
}

export const ExportCounts = z.object({
  channels: z.number().int(),
  videos: z.number().int(),
  /** Videos with at least one track (as /v1/stats counts them). */
  transcripts: z.number().int(),
  /** Rows of the `transcripts` table (every track). */
  tracks: z.number().int(),
  /** Words of the primary tracks (as /v1/stats counts them). */
  totalWords: z.number().int(),
});
export type ExportCounts = z.infer<typeof ExportCounts>;

export const ExportManifest = z.object({
  format: z.literal(EXPORT_KIND),
  version: z.literal(READABLE_EXPORT_VERSIONS),
  dataFormat: z.enum(EXPORT_FORMATS),
  exportedAt: z.string(),
  source: z.object({
    dataset: z.string(),
    buildId: z.string(),
    builtAt: z.string(),
    liveStoreId: z.string().optional(),
    /** Live-store records through this sequence number are in the export. */
    liveSeq: z.number().int(),
    /** Live-store records the set did not hold yet, folded in by the export. */
    liveRecords: z.number().int(),
  }),
  counts: ExportCounts,
  /** Each table's shards, in row order. */
  tables: z.object({ transcripts: z.array(z.string()), videos: z.array(z.string()) }),
  /** Every file but the manifest, by its path relative to the export folder. */
  files: z.record(z.string(), z.object({ table: z.enum(TABLES).optional(), rows: z.number().int().optional(), bytes: z.number().int(), sha256: z.string() })),
});
export type ExportManifest = z.infer<typeof ExportManifest>;
