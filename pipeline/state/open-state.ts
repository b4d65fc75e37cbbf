/**
 * The pipeline's own state, `<DATA_DIR>/pipeline/state.db`: which channels
 * were crawled, every video seen with its fetch status, and the fetched
 * records themselves. WAL; during a run every write goes through the writer
 * thread (record-writer.ts), whose synchronous=FULL commit holding a record is
 * on disk before the video is counted as done, so a run killed at any instant
 * loses nothing it reported as fetched.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import Database from "better-sqlite3";
import type { VideoRecord } from "../artifact/contract/index.js";
import { mergeRecords } from "../artifact/live-store/index.js";
import { KNOWN_VIDEO_SQL, MARK_FETCHED_SQL, PUT_RECORD_SQL, UPSERT_VIDEO_SQL, videoRows, type CrawledVideo } from "./state-writes.js";

export type { CrawledVideo };

export const STATE_SCHEMA_VERSION = 1;

const STATE_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE channels (
  channel_id TEXT PRIMARY KEY,
  input TEXT NOT NULL,            -- the channel list line it came from
  title TEXT,
  handle TEXT,
  first_seen_at TEXT NOT NULL,
  crawled_at TEXT,                -- last complete crawl of its Videos tab
  video_count INTEGER NOT NULL DEFAULT 0,
  last_error TEXT                 -- YouTubeError code of the last failed crawl, NULL after a good one
) WITHOUT ROWID;
CREATE TABLE videos (
  id INTEGER PRIMARY KEY,         -- discovery order; the fetch stage walks it
  video_id TEXT NOT NULL UNIQUE,
  channel_id TEXT NOT NULL,
  title TEXT NOT NULL,
  view_count INTEGER,
  published_at TEXT,
  published_approx INTEGER NOT NULL DEFAULT 1,  -- 1: from "3 weeks ago"; 0: exact (feed or watch page)
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'fetched', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,                -- YouTubeError code
  last_error_message TEXT,
  first_seen_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  last_attempt_at TEXT,
  fetched_at TEXT
);
CREATE INDEX videos_failed ON videos(last_attempt_at) WHERE status = 'failed';
CREATE TABLE records (
  video_id TEXT PRIMARY KEY,
  record BLOB NOT NULL,           -- VideoRecord JSON, raw deflate
  fetched_at TEXT NOT NULL
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  pid INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  exit_code INTEGER,
  summary TEXT
);
`;

/**
 * A counter of writes to `records` (meta `records_generation`), kept by
 * triggers so every writer bumps it: the record writer's thread, `absorb`,
 * an import. A run compares it with the value its last publish recorded to
 * tell whether anything new would go into a build. Created on open when
 * missing (a state made before it starts at 0 and gets a first build).
 */
const RECORDS_GENERATION_DDL = `
INSERT OR IGNORE INTO meta (key, value) VALUES ('records_generation', '0');
CREATE TRIGGER IF NOT EXISTS records_generation_insert AFTER INSERT ON records
  BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'records_generation'; END;
CREATE TRIGGER IF NOT EXISTS records_generation_update AFTER UPDATE ON records
  BEGIN UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'records_generation'; END;
`;

/** The set this state last published: its build id (directory name under builds/) and the records generation it was built from. */
export interface PublishedFromState {
  build: string;
  generation: number;
}

/** A fetched record and its video's new status; also run by the record writer's thread (record-writer.ts). */
export type VideoStatus = "pending" | "fetched" | "failed";

/** A record fetched elsewhere (the live store, an import) to be folded into the state. */
export interface ForeignRecord {
  record: VideoRecord;
  /** ISO 8601; decides which of two records of a video is the newer. */
  fetchedAt: string;
}

/** Records folded per transaction by `absorb`. */
const ABSORB_BATCH = 500;

export interface FetchCandidate {
  id: number;
  videoId: string;
  attempts: number;
}

export interface OpenStateOptions {
  /** Open without writing anything (no schema, no pragmas that write); for --dry-run. Default false. */
  readonly?: boolean;
}

export class PipelineState {
  readonly db: Database.Database;
  readonly #sql;

  static open(path: string, options: OpenStateOptions = {}): PipelineState {
    if (!options.readonly) mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    try {
      db.pragma("busy_timeout = 10000");
      if (!options.readonly) {
        db.pragma("journal_mode = WAL");
        // This connection writes only the schema and the runs table: in WAL, NORMAL survives a
        // killed process and only a power cut may drop its last commits. Everything a run
        // crawls and fetches is committed with FULL by RecordWriter's connection.
        db.pragma("synchronous = NORMAL");
        const version = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'meta'").get()
          ? (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as string | undefined)
          : undefined;
        if (version === undefined) {
          db.exec(`BEGIN; ${STATE_DDL} INSERT INTO meta VALUES ('schema_version', '${STATE_SCHEMA_VERSION}'); COMMIT;`);
        } else if (Number(version) !== STATE_SCHEMA_VERSION) {
          throw new Error(`${path} has state schema version ${version}, this code reads ${STATE_SCHEMA_VERSION}`);
        }
        db.exec(`BEGIN; ${RECORDS_GENERATION_DDL} COMMIT;`);
      }
      return new PipelineState(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  private constructor(db: Database.Database) {
    this.db = db;
    this.#sql = {
      channelCrawledAt: db.prepare("SELECT crawled_at FROM channels WHERE channel_id = ?").pluck(),
      knownVideo: db.prepare(KNOWN_VIDEO_SQL).pluck(),
      candidates: db.prepare(
        `SELECT id, video_id AS videoId, attempts FROM videos
         WHERE id > ? AND (status = 'pending' OR (status = 'failed' AND last_attempt_at < ?))
         ORDER BY id LIMIT ?`,
      ),
      countCandidates: db.prepare(
        "SELECT count(*) FROM videos WHERE id > ? AND (status = 'pending' OR (status = 'failed' AND last_attempt_at < ?))",
      ).pluck(),
      records: db.prepare(
        `SELECT r.record, v.view_count AS viewCount, v.last_seen_at > r.fetched_at AS refreshed
         FROM records r JOIN videos v ON v.video_id = r.video_id ORDER BY v.id`,
      ),
      recordCount: db.prepare("SELECT count(*) FROM records").pluck(),
      storedRecord: db.prepare("SELECT record, fetched_at AS fetchedAt FROM records WHERE video_id = ?"),
      upsertVideo: db.prepare(UPSERT_VIDEO_SQL),
      putRecord: db.prepare(PUT_RECORD_SQL),
      markFetched: db.prepare(MARK_FETCHED_SQL),
      metaValue: db.prepare("SELECT value FROM meta WHERE key = ?").pluck(),
      setMeta: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
      startRun: db.prepare("INSERT INTO runs (pid, started_at) VALUES (?, ?) RETURNING id").pluck(),
      finishRun: db.prepare("UPDATE runs SET finished_at = ?, exit_code = ?, summary = ? WHERE id = ?"),
    };
  }

  channelCrawledAt(channelId: string): string | undefined {
    return (this.#sql.channelCrawledAt.get(channelId) as string | null | undefined) ?? undefined;
  }

  isKnownVideo(videoId: string): boolean {
    return this.#sql.knownVideo.get(videoId) !== undefined;
  }

  /** The next videos to fetch after `afterId`: never fetched, or failed permanently before `retryBefore`. */
  candidates(afterId: number, retryBefore: Date, limit: number): FetchCandidate[] {
    return this.#sql.candidates.all(afterId, retryBefore.toISOString(), limit) as FetchCandidate[];
  }

  countCandidates(retryBefore: Date): number {
    return this.countCandidatesAfter(0, retryBefore);
  }

  /** Candidates (as `candidates()` would return them) after `afterId`. */
  countCandidatesAfter(afterId: number, retryBefore: Date): number {
    return this.#sql.countCandidates.get(afterId, retryBefore.toISOString()) as number;
  }

  /** Every fetched record, one at a time, with view counts refreshed by crawls after the fetch. */
  *records(): Generator<VideoRecord> {
    for (const row of this.#sql.records.iterate() as Iterable<{ record: Buffer; viewCount: number | null; refreshed: number }>) {
      const record = JSON.parse(inflateRawSync(row.record).toString("utf8")) as VideoRecord;
      if (row.refreshed && row.viewCount !== null) record.viewCount = row.viewCount;
      yield record;
    }
  }

  /**
   * Folds records fetched elsewhere into the state, each merged with the
   * state's record of its video (the later fetch wins, per track), and marks
   * their videos fetched, so every later build holds them. Durable
   * (synchronous=FULL) transactions of a few hundred records; folding the
   * same record again changes nothing, so a run killed midway loses nothing.
   * Returns how many records were folded. `withEachBatch` runs inside each
   * batch's transaction, with that batch.
   */
  absorb(records: Iterable<ForeignRecord>, withEachBatch?: (batch: readonly ForeignRecord[]) => void): number {
    const db = this.db;
    const previousSync = db.pragma("synchronous", { simple: true }) as number;
    db.pragma("synchronous = FULL");
    try {
      const fold = db.transaction((batch: ForeignRecord[]) => {
        // Written in the same transaction as the batch (e.g. the removal of what was folded from where it waited).
        withEachBatch?.(batch);
        for (const { record, fetchedAt } of batch) {
          const stored = this.#sql.storedRecord.get(record.videoId) as { record: Buffer; fetchedAt: string } | undefined;
          let merged = record;
          let at = fetchedAt;
          if (stored) {
            const older = JSON.parse(inflateRawSync(stored.record).toString("utf8")) as VideoRecord;
            merged = stored.fetchedAt > fetchedAt ? mergeRecords(record, older) : mergeRecords(older, record);
            at = stored.fetchedAt > fetchedAt ? stored.fetchedAt : fetchedAt;
          }
          const now = new Date(at);
          this.#sql.upsertVideo.run(
            videoRows([{ videoId: merged.videoId, channelId: merged.channelId, title: merged.title, viewCount: merged.viewCount, publishedAt: merged.publishedAt, approximate: false }], now)[0],
          );
          this.#sql.putRecord.run({ videoId: merged.videoId, blob: deflateRawSync(JSON.stringify(merged), { level: 1 }), now: at });
          this.#sql.markFetched.run({ videoId: merged.videoId, now: at, publishedAt: merged.publishedAt, viewCount: merged.viewCount, title: merged.title });
        }
      });
      let count = 0;
      let batch: ForeignRecord[] = [];
      for (const item of records) {
        batch.push(item);
        if (batch.length >= ABSORB_BATCH) {
          fold(batch);
          count += batch.length;
          batch = [];
        }
      }
      fold(batch);
      return count + batch.length;
    } finally {
      db.pragma(`synchronous = ${previousSync}`);
    }
  }

  recordCount(): number {
    return this.#sql.recordCount.get() as number;
  }

  /** Writes to `records` so far (see RECORDS_GENERATION_DDL); 0 on a read-only state made before the counter. */
  recordsGeneration(): number {
    return Number((this.#sql.metaValue.get("records_generation") as string | undefined) ?? 0);
  }

  /** The set this state last published, if any. */
  publishedBuild(): PublishedFromState | undefined {
    const build = this.#sql.metaValue.get("published_build") as string | undefined;
    const generation = this.#sql.metaValue.get("published_generation") as string | undefined;
    return build === undefined || generation === undefined ? undefined : { build, generation: Number(generation) };
  }

  /** Records that the set `build` was built from the records as of `generation` and published. */
  markPublished(published: PublishedFromState): void {
    this.db.transaction(() => {
      this.#sql.setMeta.run("published_build", published.build);
      this.#sql.setMeta.run("published_generation", String(published.generation));
    })();
  }

  startRun(now: Date): number {
    return this.#sql.startRun.get(process.pid, now.toISOString()) as number;
  }

  finishRun(runId: number, exitCode: number, summary: unknown, now: Date): void {
    this.#sql.finishRun.run(now.toISOString(), exitCode, JSON.stringify(summary), runId);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
