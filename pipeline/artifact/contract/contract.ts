/**
 * The artifact contract: what the pipeline writes and the server loads.
 *
 * Both sides import this one module, so file names, the schema version, the
 * text-processing options and the manifest shape can never drift apart. The
 * server refuses an artifact set whose `schemaVersion` or `optionsHash`
 * differ from the ones below.
 */
import { createHash } from "node:crypto";
import { z } from "zod";

/** Bump when the database layout or the index format changes. */
export const SCHEMA_VERSION = 1;

export const ARTIFACT_FILES = {
  database: "transcripts.db",
  titleIndex: "titles.flexsearch.json",
  manifest: "manifest.json",
} as const;

/**
 * How far into the database file a reader maps it into memory: SQLite's own
 * ceiling on `mmap_size` (its default SQLITE_MAX_MMAP_SIZE, just under
 * 2 GiB). A build writes the full-text index below it, so every process
 * serving the set reads the index from the same pages of the operating
 * system's cache.
 */
export const ARTIFACT_MAPPED_BYTES = 0x7fff0000;

/** FTS5 tokenizer of the transcript index; `pipeline/artifact/text/text.ts` mirrors it in JS for query parsing and BM25. */
export const FTS_TOKENIZER = "unicode61 remove_diacritics 2";

/** FlexSearch options of the title/channel-name index (titles are short, so forward tokenization for prefix and typo tolerance is affordable). */
export const TITLE_INDEX_OPTIONS = {
  tokenize: "forward",
  encoder: "LatinBalance",
  resolution: 9,
} as const;

/** Version of the JS tokenizer in pipeline/artifact/text/text.ts; part of the options hash. */
export const TOKENIZER_VERSION = 1;

/**
 * Format of the phrase pairs (search-index/phrase-pairs.ts); the build records
 * it in `meta.phrasePairs`, and the server uses only the version it knows.
 */
export const PHRASE_PAIRS_VERSION = "2";

/**
 * Format of the word bitmaps (search-index/word-bitmaps.ts); the build records
 * it in `meta.wordBitmaps`, and the server uses only the version it knows.
 */
export const WORD_BITMAPS_VERSION = "1";

/**
 * Everything that decides how a set's indexes read: a set built with other
 * values would give wrong answers, so its manifest's options hash differs and
 * it is refused ("rebuild"). The pair and bitmap formats are versioned here too.
 */
export const INDEX_OPTIONS = { FTS_TOKENIZER, TITLE_INDEX_OPTIONS, TOKENIZER_VERSION, PHRASE_PAIRS_VERSION, WORD_BITMAPS_VERSION };

/** The manifest's `optionsHash` of a set built with `options`. */
export function optionsHash(options: Record<string, unknown>): string {
  return createHash("sha256").update(JSON.stringify(options)).digest("hex").slice(0, 16);
}

export const OPTIONS_HASH = optionsHash(INDEX_OPTIONS);

export const VIDEO_ID_PATTERN = /^[A-Za-z0-9_-]{11}$/;
export const CHANNEL_ID_PATTERN = /^UC[A-Za-z0-9_-]{22}$/;

// ---------------------------------------------------------------------------
// Input records: one JSON object a line (JSONL). The fetch stage and the live
// fetcher write them; the build stage reads them.
// ---------------------------------------------------------------------------

export const SegmentRecord = z.object({
  /** Seconds from the start. */
  start: z.number().nonnegative(),
  /** Seconds; 0 when YouTube gave none. */
  duration: z.number().nonnegative(),
  /** One line of caption text: unescaped, tags stripped, whitespace folded to single spaces. */
  text: z.string().min(1),
});
export type SegmentRecord = z.infer<typeof SegmentRecord>;

export const TranscriptRecord = z.object({
  /** Language name in words, e.g. "English (auto-generated)" or "English". */
  language: z.string().min(1),
  languageCode: z.string().min(1).max(35),
  isGenerated: z.boolean(),
  segments: z.array(SegmentRecord).min(1),
});
export type TranscriptRecord = z.infer<typeof TranscriptRecord>;

export const ChapterRecord = z.object({
  title: z.string(),
  startSeconds: z.number().nonnegative(),
});
export type ChapterRecord = z.infer<typeof ChapterRecord>;

export const VideoRecord = z.object({
  videoId: z.string().regex(VIDEO_ID_PATTERN),
  channelId: z.string().regex(CHANNEL_ID_PATTERN),
  channelTitle: z.string(),
  /** `@handle` of the channel when known. */
  channelHandle: z.string().optional(),
  title: z.string(),
  viewCount: z.number().int().nonnegative(),
  /** ISO 8601 UTC, e.g. 2018-08-02T13:00:08Z. */
  publishedAt: z.string().datetime({ offset: true }),
  thumbnail: z.string(),
  /** Video length in seconds. */
  lengthSeconds: z.number().nonnegative(),
  description: z.string().optional(),
  chapters: z.array(ChapterRecord).optional(),
  keywords: z.array(z.string()).optional(),
  category: z.string().optional(),
  /** Stored transcripts of the video, any number of languages; empty when it has none. */
  transcripts: z.array(TranscriptRecord),
});
export type VideoRecord = z.infer<typeof VideoRecord>;

// ---------------------------------------------------------------------------
// The manifest
// ---------------------------------------------------------------------------

/** The manifest `dataset` of the generated demo data (`npm run pipeline -- demo`); the server treats that set specially (its demo key). */
export const DEMO_DATASET = "demo";

export const Manifest = z.object({
  schemaVersion: z.number().int(),
  /** Free-form name of the dataset, e.g. "demo" for the generated demo data. */
  dataset: z.string(),
  optionsHash: z.string(),
  builtAt: z.string(),
  counts: z.object({
    channels: z.number().int(),
    videos: z.number().int(),
    transcripts: z.number().int(),
    totalWords: z.number().int(),
  }),
  files: z.record(z.string(), z.object({ bytes: z.number().int(), sha256: z.string() })),
  /** Records of the live store `liveStoreId` up to this sequence number are folded into this set (0: none). */
  liveSeq: z.number().int().nonnegative().default(0),
  /** The live store (its random id) whose records up to `liveSeq` this set holds; absent: none. */
  liveStoreId: z.string().optional(),
  /** Search by meaning: the chunks in `vectors.db`, the transcripts they cover and the embedder that made them; absent: the set has no vectors. */
  vectors: z
    .object({
      chunks: z.number().int(),
      transcripts: z.number().int(),
      embedder: z.object({ kind: z.string(), model: z.string(), dimensions: z.number().int() }),
    })
    .optional(),
});
export type Manifest = z.infer<typeof Manifest>;

// ---------------------------------------------------------------------------
// The database. `videos.id` is the popularity rank (1 = most viewed) and is
// also the FTS rowid, so `MATCH ? ORDER BY rowid LIMIT k` walks matches
// most-viewed first and stops early, and `minViews` is a rowid bound.
//
// A video may store several tracks (languages, manual and auto-generated);
// `videos.transcript` names its primary one (English before other languages,
// manual before auto-generated). The FTS index holds the primary tracks only
// (through the `fts_content` view), so a search lists each video at most once.
// ---------------------------------------------------------------------------

/** The transcript index, over the primary tracks (`fts_content`), by video rowid. */
export const TRANSCRIPT_FTS_DDL = `
CREATE VIRTUAL TABLE transcript_fts USING fts5(
  script, chan,
  content = 'fts_content', content_rowid = 'id',
  tokenize = '${FTS_TOKENIZER}'
);`;

/** Document frequency of each term of the transcript index, for BM25. */
export const TERM_STATS_DDL = `CREATE TABLE term_stats (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;`;

export const DATABASE_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE channels (
  id INTEGER PRIMARY KEY,
  channel_id TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  handle TEXT,
  video_count INTEGER NOT NULL DEFAULT 0,
  transcript_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE videos (
  id INTEGER PRIMARY KEY,
  video_id TEXT NOT NULL UNIQUE,
  channel INTEGER NOT NULL REFERENCES channels(id),
  title TEXT NOT NULL,
  view_count INTEGER NOT NULL,
  published_at TEXT NOT NULL,
  thumbnail TEXT NOT NULL,
  length_seconds REAL NOT NULL,
  description TEXT,
  chapters TEXT,
  keywords TEXT,
  category TEXT,
  transcript INTEGER
);
CREATE INDEX videos_by_channel ON videos(channel, published_at DESC, id);
CREATE INDEX videos_by_views ON videos(view_count);
CREATE TABLE transcripts (
  id INTEGER PRIMARY KEY,
  video INTEGER NOT NULL REFERENCES videos(id),
  language_code TEXT NOT NULL,
  language TEXT NOT NULL,
  is_generated INTEGER NOT NULL,
  word_count INTEGER NOT NULL,
  duration REAL NOT NULL,
  script TEXT NOT NULL,
  timings BLOB NOT NULL,
  UNIQUE (video, language_code, is_generated)
);
CREATE VIEW fts_content AS
  SELECT v.id AS id, t.script AS script, 'c' || v.channel AS chan
  FROM videos v JOIN transcripts t ON t.id = v.transcript;
${TRANSCRIPT_FTS_DDL}
${TERM_STATS_DDL}
`;

/**
 * English before other languages, manual before auto-generated: the order in
 * which a video's tracks are ranked for its primary one (over alias `t`), in
 * a build and in the live store alike.
 */
export const PRIMARY_TRACK_ORDER = `(t.language_code = 'en' OR t.language_code LIKE 'en-%') DESC, t.is_generated ASC, t.language_code ASC`;

/** The FTS token that stands for a channel in the `chan` column. */
export function channelToken(channelRowId: number): string {
  return `c${channelRowId}`;
}
