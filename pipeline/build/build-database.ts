/**
 * Second pass of a build: the final database, written in popularity order
 * from the staging database, then, at once on two threads, the FTS index
 * over primary transcripts with the document frequencies for BM25 and the
 * word bitmaps (transcript-index.ts, build-word-bitmaps.ts) and the
 * phrase-pair index (build-phrase-pairs.ts),
 * both bulk-loaded (fts-bulk-load.ts); then each transcript's term counts
 * (build-term-counts.ts) and the build-time counts.
 */
import { rmSync } from "node:fs";
import Database from "better-sqlite3";
import { ARTIFACT_MAPPED_BYTES, DATABASE_DDL, OPTIONS_HASH, PHRASE_PAIRS_VERSION, PRIMARY_TRACK_ORDER, SCHEMA_VERSION, WORD_BITMAPS_VERSION } from "../artifact/contract/index.js";
import { PHRASE_PAIRS_DDL, TERM_COUNTS_VERSION, WORD_BITMAPS_DDL } from "../artifact/search-index/index.js";
import { buildPhrasePairs } from "./build-phrase-pairs.js";
import { copyFtsIndex } from "./fts-bulk-load.js";
import { SCRATCH_PRAGMAS, setScratchPragmas } from "./scratch.js";
import { checkpoint, throwIfInterrupted } from "../command/interrupt.js";
import type { StepProgress } from "./step-progress.js";
import { buildTranscriptIndex } from "./transcript-index.js";
import { buildTermCounts } from "./build-term-counts.js";

export interface DatabaseCounts {
  channels: number;
  videos: number;
  transcripts: number;
  totalWords: number;
}

/**
 * The artifact database's page size. A transcript's row (text and timings,
 * about 10 KiB on average, 95% under 32 KiB) fits in one page, so a search
 * reads a text it does not hold in memory with one read. In 4 KiB pages the
 * same row was a leaf page and a chain of overflow pages, and the chain's
 * consecutive pages made the kernel read ahead: at 500,000 videos, 100
 * texts of 850 KiB in all read 5.8 MiB from disk (by hand, page cache
 * dropped, read_ahead_kb 8192).
 */
export const ARTIFACT_PAGE_SIZE = 32 * 1024;

/**
 * Sets with fewer transcripts build their indexes on the calling thread, one
 * after the other: starting the worker threads (each loads tsx) takes longer
 * than indexing them.
 */
export const THREADS_FROM = 1000;

/** The settings of the database files this step writes (scratch.ts); the page size first, before anything is written. */
const BUILD_PRAGMAS = [`page_size = ${ARTIFACT_PAGE_SIZE}`, ...SCRATCH_PRAGMAS, "cache_size = -262144"] as const;

/**
 * `log` is told each step's time, for operators watching a long build.
 * The two full-text indexes are built at once, each in a file of its own
 * beside `path`: the transcript index on a worker thread
 * (transcript-index.ts), the phrase-pair index on this one, both reading
 * the finished tables. Then both are copied into the database and their
 * files removed.
 */
export async function buildDatabase(
  path: string,
  stagingPath: string,
  meta: Record<string, string>,
  log: (message: string) => void = () => {},
  signal?: AbortSignal,
  options: { threadsFrom?: number; progress?: StepProgress } = {},
): Promise<DatabaseCounts> {
  const progress = options.progress ?? (() => {});
  const db = new Database(path);
  let stepStarted = performance.now();
  const step = (name: string) => {
    const now = performance.now();
    log(`${name} (${((now - stepStarted) / 1000).toFixed(1)} s)`);
    stepStarted = now;
  };
  const indexPath = `${path}.transcript-index`;
  const pairsPath = `${path}.phrase-pairs`;
  try {
    // Before anything is written: the page size of a database is set by its first page.
    setScratchPragmas(db, BUILD_PRAGMAS);
    db.exec(DATABASE_DDL);
    db.prepare("ATTACH DATABASE ? AS staging").run(stagingPath);
    reserveIndexRoom(db);
    await copyTables(db, signal, (done, total) => progress("database: tables in popularity order", done, total));
    // For the search's date filters (server/search/filters.ts): the rows in a range of dates, without reading the others.
    db.exec("CREATE INDEX videos_by_published ON videos(published_at)");
    step("tables in popularity order");
    db.exec("DETACH DATABASE staging");
    const transcripts = db.prepare("SELECT count(*) FROM videos WHERE transcript IS NOT NULL").pluck().get() as number;
    await buildIndexes(path, indexPath, pairsPath, log, step, signal, transcripts < (options.threadsFrom ?? THREADS_FROM), progress, transcripts);
    throwIfInterrupted(signal);
    // The room reserved at the start of the file is freed for the indexes: SQLite takes free pages before it grows the file.
    db.exec(`DROP TABLE ${RESERVE_TABLE}`);
    db.prepare("ATTACH DATABASE ? AS side").run(indexPath);
    await copyFtsIndex(db, "side", "transcript_fts", signal);
    db.exec("INSERT INTO term_stats (term, df) SELECT term, df FROM side.term_stats");
    db.exec(WORD_BITMAPS_DDL);
    db.exec("INSERT INTO word_bitmaps (term, df, bits) SELECT term, df, bits FROM side.word_bitmaps ORDER BY term; DETACH DATABASE side");
    db.exec(PHRASE_PAIRS_DDL);
    db.prepare("ATTACH DATABASE ? AS side").run(pairsPath);
    await copyFtsIndex(db, "side", "phrase_pairs", signal);
    db.exec("DETACH DATABASE side");
    step("indexes copied into the database");
    throwIfInterrupted(signal);
    await buildTermCounts(db, signal, (done, total) => progress("database: term counts", done, total));
    step("term counts");
    const counts = db
      .prepare(
        `SELECT (SELECT count(*) FROM channels) AS channels,
                (SELECT count(*) FROM videos) AS videos,
                (SELECT count(*) FROM videos WHERE transcript IS NOT NULL) AS transcripts,
                (SELECT coalesce(sum(t.word_count), 0) FROM videos v JOIN transcripts t ON t.id = v.transcript) AS totalWords`,
      )
      .get() as DatabaseCounts;
    const putMeta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
    const allMeta: Record<string, string> = {
      ...meta,
      schemaVersion: String(SCHEMA_VERSION),
      optionsHash: OPTIONS_HASH,
      phrasePairs: PHRASE_PAIRS_VERSION,
      wordBitmaps: WORD_BITMAPS_VERSION,
      termCounts: TERM_COUNTS_VERSION,
      counts: JSON.stringify(counts),
    };
    db.transaction(() => {
      for (const [key, value] of Object.entries(allMeta)) putMeta.run(key, value);
    })();
    // Table by table, the same statistics as one ANALYZE, with the signal checked between tables.
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    for (const table of tables) {
      db.exec(`ANALYZE "${table}"`);
      await checkpoint(signal);
    }
    step("statistics for the query planner");
    return counts;
  } finally {
    db.close();
    rmSync(indexPath, { force: true });
    rmSync(pairsPath, { force: true });
  }
}

/** The table holding the room for the indexes until they are copied in. */
const RESERVE_TABLE = "index_room";

/**
 * Bytes of room per word of the staged transcripts: more than the
 * full-text index takes (2.4 bytes a word of the generated corpus, 4.3 of
 * a test's text of 5,000 words repeated); what it leaves, the word bitmaps
 * and the phrase-pair index copied after it take (together larger than
 * the full-text index), so no page stays free.
 */
const INDEX_ROOM_PER_WORD = 5;

/**
 * Fills pages at the start of the file (up to `ARTIFACT_MAPPED_BYTES`) with a table
 * of empty rows, one per page, so the tables copied next lie after them.
 * Dropped before the indexes are copied in, the pages are free and the
 * indexes take them: the full-text index lies in the start of the file
 * that a server maps into memory, where every worker process reads the
 * same pages from the operating system's cache instead of a copy of its
 * own (server/search/memory/index-memory.ts).
 */
function reserveIndexRoom(db: Database.Database): void {
  const words = db.prepare("SELECT coalesce(sum(word_count), 0) FROM staging.stage_transcripts").pluck().get() as number;
  const pages = Math.floor(Math.min(words * INDEX_ROOM_PER_WORD, ARTIFACT_MAPPED_BYTES - 1024 * 1024) / ARTIFACT_PAGE_SIZE);
  db.exec(`CREATE TABLE ${RESERVE_TABLE} (room BLOB NOT NULL)`);
  // One row a page: a row of a little under a page stays in its page, and two do not fit in one.
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO ${RESERVE_TABLE} (room) SELECT zeroblob(?) FROM n`,
  ).run(pages, ARTIFACT_PAGE_SIZE - 256);
}

/** Videos copied per chunk of the tables' copy: tens of megabytes of transcripts, a fraction of a second. */
const CHUNK_VIDEOS = 2000;

/**
 * The staged videos and transcripts (attached as `staging`) into the final
 * tables, videos numbered by views (most viewed first), each video's tracks
 * numbered after the previous video's, the primary one first. Done in chunks
 * of videos, each its own statements, so the event loop runs and `signal` is
 * checked between them.
 */
async function copyTables(db: Database.Database, signal: AbortSignal | undefined, onProgress: (done: number, total: number) => void): Promise<void> {
  db.exec(`
    INSERT INTO channels (channel_id, title, handle)
    SELECT channel_id, channel_title, channel_handle FROM (
      SELECT channel_id, channel_title, channel_handle,
             row_number() OVER (PARTITION BY channel_id ORDER BY seq DESC) AS latest
      FROM staging.stage_videos)
    WHERE latest = 1
    ORDER BY channel_id;

    CREATE TEMP TABLE video_order (rank INTEGER PRIMARY KEY, video_id TEXT NOT NULL);
    INSERT INTO temp.video_order (video_id) SELECT video_id FROM staging.stage_videos ORDER BY view_count DESC, video_id;
  `);
  await checkpoint(signal);
  const videoCount = db.prepare("SELECT coalesce(max(rank), 0) FROM temp.video_order").pluck().get() as number;
  const copyVideos = db.prepare(`
    INSERT INTO videos (id, video_id, channel, title, view_count, published_at, thumbnail,
                        length_seconds, description, chapters, keywords, category)
    SELECT o.rank, s.video_id, c.id, s.title, s.view_count, s.published_at, s.thumbnail,
           s.length_seconds, s.description, s.chapters, s.keywords, s.category
    FROM temp.video_order o
    JOIN staging.stage_videos s ON s.video_id = o.video_id
    JOIN channels c ON c.channel_id = s.channel_id
    WHERE o.rank > ? AND o.rank <= ?
    ORDER BY 1`);
  const copyTranscripts = db.prepare(`
    INSERT INTO transcripts (id, video, language_code, language, is_generated, word_count,
                             duration, script, timings)
    SELECT ? + row_number() OVER (ORDER BY v.id, ${PRIMARY_TRACK_ORDER}),
           v.id, t.language_code, t.language, t.is_generated, t.word_count,
           t.duration, t.script, t.timings
    FROM videos v JOIN staging.stage_transcripts t ON t.video_id = v.video_id
    WHERE v.id > ? AND v.id <= ?
    ORDER BY 1`);
  const primaryTracks = db.prepare(`
    UPDATE videos SET transcript = (SELECT min(t.id) FROM transcripts t WHERE t.video = videos.id)
    WHERE id > ? AND id <= ?`);
  let transcripts = 0;
  const copyChunk = db.transaction((after: number, upTo: number) => {
    copyVideos.run(after, upTo);
    transcripts += copyTranscripts.run(transcripts, after, upTo).changes;
    primaryTracks.run(after, upTo);
  });
  for (let after = 0; after < videoCount; after += CHUNK_VIDEOS) {
    copyChunk(after, Math.min(after + CHUNK_VIDEOS, videoCount));
    onProgress(Math.min(after + CHUNK_VIDEOS, videoCount), videoCount);
    await checkpoint(signal);
  }
  db.exec(`
    DROP TABLE temp.video_order;
    UPDATE channels SET
      video_count = (SELECT count(*) FROM videos v WHERE v.channel = channels.id),
      transcript_count = (SELECT count(*) FROM videos v WHERE v.channel = channels.id AND v.transcript IS NOT NULL);
  `);
}

/**
 * The transcript index (with its term statistics) into `indexPath` on a
 * worker thread and the phrase-pair index into `pairsPath` on this one (its
 * pair texts made on a third, pair-texts.ts), at once, all from the artifact
 * database at `path`, which nobody writes meanwhile. The worker's steps are
 * logged with their own times as it reports them.
 */
async function buildIndexes(
  path: string,
  indexPath: string,
  pairsPath: string,
  log: (message: string) => void,
  step: (name: string) => void,
  signal: AbortSignal | undefined,
  onThisThread: boolean,
  progress: StepProgress,
  transcripts: number,
): Promise<void> {
  // Both indexes report through one throttle: a line every interval, from whichever reported last.
  const transcriptIndex = buildTranscriptIndex(
    indexPath,
    path,
    BUILD_PRAGMAS,
    (name, seconds) => log(`${name}${onThisThread ? "" : ", on a second thread"} (${seconds.toFixed(1)} s)`),
    onThisThread,
    (done, total) => progress("database: transcript index, rows", done, total),
  );
  // Its failure is thrown below, after the pair index; until then it must not count as unhandled.
  transcriptIndex.done.catch(() => {});
  // An abort ends the worker between its chunks; `done` then rejects, and the build throws BuildInterrupted.
  const stopIndex = () => void transcriptIndex.stop();
  signal?.addEventListener("abort", stopIndex, { once: true });
  try {
    try {
      const pairs = new Database(pairsPath);
      try {
        setScratchPragmas(pairs, BUILD_PRAGMAS);
        await buildPhrasePairs(pairs, path, signal, onThisThread, (done) => progress("database: phrase-pair index, transcripts", done, transcripts));
      } finally {
        pairs.close();
      }
    } catch (error) {
      await transcriptIndex.stop();
      throw error;
    }
    step("phrase-pair index");
    await transcriptIndex.done;
    step("waited for the transcript index");
  } finally {
    signal?.removeEventListener("abort", stopIndex);
  }
}
