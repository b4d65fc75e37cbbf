/**
 * An import's records wait here, in the state database but apart from its
 * `records`, until the set built with them is published: a `build --input`
 * that fails, is refused or is killed at any instant leaves the state, and
 * so what the next build publishes, as it was.
 *
 *   1. stage: every valid record of the input lands in `import_staging`
 *      (the same video twice is merged there, the later record winning);
 *   2. build: the set is built from the state's records merged with the
 *      staged ones, as folding them would merge them;
 *   3. publish: the build's name is noted (`import_publishing`), `current`
 *      is swapped to it, and the staged records are folded into `records`.
 *
 * A process killed between the swap and the end of the fold leaves the note:
 * the next command that opens the state under the run lock (`settle`) finds
 * `current` at the noted build and finishes the fold, or finds it elsewhere
 * and drops what was staged. Each batch is folded and taken out of the
 * staging in one transaction, so a fold cut short goes on from where it was.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type Database from "better-sqlite3";
import type { VideoRecord } from "../artifact/contract/index.js";
import { mergeRecords } from "../artifact/live-store/index.js";
import type { ForeignRecord, PipelineState } from "./open-state.js";

const STAGING_DDL = `
CREATE TABLE IF NOT EXISTS import_staging (
  seq INTEGER PRIMARY KEY,
  video_id TEXT NOT NULL UNIQUE,
  record BLOB NOT NULL,           -- VideoRecord JSON, raw deflate
  fetched_at TEXT NOT NULL
);`;

/** The meta key naming the build an import is being published as. */
const PUBLISHING = "import_publishing";

/** Staged records folded per transaction when the import is published. */
const FOLD_BATCH = 500;

interface StagedRow {
  seq: number;
  videoId: string;
  record: Buffer;
  fetchedAt: string;
}

const inflate = (blob: Buffer) => JSON.parse(inflateRawSync(blob).toString("utf8")) as VideoRecord;
const deflate = (record: VideoRecord) => deflateRawSync(JSON.stringify(record), { level: 1 });

export class ImportStaging {
  readonly #state: PipelineState;
  readonly #db: Database.Database;
  readonly #sql;

  constructor(state: PipelineState) {
    this.#state = state;
    this.#db = state.db;
    this.#db.exec(STAGING_DDL);
    const db = this.#db;
    this.#sql = {
      staged: db.prepare("SELECT record, fetched_at AS fetchedAt FROM import_staging WHERE video_id = ?"),
      insert: db.prepare("INSERT INTO import_staging (video_id, record, fetched_at) VALUES (?, ?, ?)"),
      replace: db.prepare("UPDATE import_staging SET record = ?, fetched_at = ? WHERE video_id = ?"),
      count: db.prepare("SELECT count(*) FROM import_staging").pluck(),
      onlyStagedCount: db.prepare("SELECT count(*) FROM import_staging s WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.video_id = s.video_id)").pluck(),
      // In the order the state's records would have after the fold: by video (a video crawled before keeps its
      // place), then the videos new to the state in the input's order, as the fold numbers them. Both walk
      // their table's own order, so nothing is sorted.
      merged: db.prepare(
        `SELECT r.record, r.fetched_at AS fetchedAt, v.view_count AS viewCount, v.last_seen_at > r.fetched_at AS refreshed,
                s.record AS staged, s.fetched_at AS stagedAt
         FROM videos v LEFT JOIN records r ON r.video_id = v.video_id LEFT JOIN import_staging s ON s.video_id = v.video_id
         WHERE r.video_id IS NOT NULL OR s.video_id IS NOT NULL ORDER BY v.id`,
      ),
      newVideos: db.prepare(
        "SELECT record FROM import_staging s WHERE NOT EXISTS (SELECT 1 FROM videos v WHERE v.video_id = s.video_id) ORDER BY seq",
      ).pluck(),
      batch: db.prepare("SELECT seq, video_id AS videoId, record, fetched_at AS fetchedAt FROM import_staging WHERE seq > ? ORDER BY seq LIMIT ?"),
      remove: db.prepare("DELETE FROM import_staging WHERE video_id = ?"),
      clear: db.prepare("DELETE FROM import_staging"),
      publishing: db.prepare(`SELECT value FROM meta WHERE key = '${PUBLISHING}'`).pluck(),
      setPublishing: db.prepare(`INSERT OR REPLACE INTO meta (key, value) VALUES ('${PUBLISHING}', ?)`),
      clearPublishing: db.prepare(`DELETE FROM meta WHERE key = '${PUBLISHING}'`),
    };
  }

  /**
   * Finishes or undoes what a killed import left: its staged records are
   * folded when `current` (`currentBuild`) is the build it was publishing,
   * else dropped. Run under the run lock before anything else reads or
   * writes the state's records.
   */
  settle(currentBuild: string | undefined): "none" | "folded" | "dropped" {
    const publishing = this.#sql.publishing.get() as string | undefined;
    if (publishing !== undefined && publishing === currentBuild) {
      this.#fold();
      return "folded";
    }
    if (publishing === undefined && this.count() === 0) return "none";
    this.clear();
    return "dropped";
  }

  /** Adds records to the staged import; a video staged before is merged with its new record, the later winning. Durable per call. */
  stage(records: readonly ForeignRecord[]): void {
    this.#db.transaction(() => {
      for (const { record, fetchedAt } of records) {
        const before = this.#sql.staged.get(record.videoId) as { record: Buffer; fetchedAt: string } | undefined;
        if (!before) {
          this.#sql.insert.run(record.videoId, deflate(record), fetchedAt);
          continue;
        }
        const older = inflate(before.record);
        const later = before.fetchedAt > fetchedAt;
        this.#sql.replace.run(deflate(later ? mergeRecords(record, older) : mergeRecords(older, record)), later ? before.fetchedAt : fetchedAt, record.videoId);
      }
    })();
  }

  /** Videos staged. */
  count(): number {
    return this.#sql.count.get() as number;
  }

  /** Records a build from the state and the staged import holds: the state's and the staged videos it does not have. */
  recordCount(): number {
    return this.#state.recordCount() + (this.#sql.onlyStagedCount.get() as number);
  }

  /**
   * The records a build with the import holds, one at a time: the state's
   * (view counts refreshed as `PipelineState.records` does), each merged
   * with its staged record as folding would merge them, then the staged
   * videos the state does not have, in the order folding would give them.
   */
  *records(): Generator<VideoRecord> {
    type Row = { record: Buffer | null; fetchedAt: string | null; viewCount: number | null; refreshed: number; staged: Buffer | null; stagedAt: string | null };
    for (const row of this.#sql.merged.iterate() as Iterable<Row>) {
      if (row.record === null) {
        yield inflate(row.staged!);
        continue;
      }
      const record = inflate(row.record);
      if (row.refreshed && row.viewCount !== null) record.viewCount = row.viewCount;
      if (row.staged === null) yield record;
      else {
        const staged = inflate(row.staged);
        yield row.fetchedAt! > row.stagedAt! ? mergeRecords(staged, record) : mergeRecords(record, staged);
      }
    }
    for (const blob of this.#sql.newVideos.iterate() as Iterable<Buffer>) yield inflate(blob);
  }

  /** Notes that `current` is about to point at `build`, a set built with the staged import (on disk before the swap, power cut included). */
  publishing(build: string): void {
    const previous = this.#db.pragma("synchronous", { simple: true }) as number;
    this.#db.pragma("synchronous = FULL");
    try {
      this.#sql.setPublishing.run(build);
    } finally {
      this.#db.pragma(`synchronous = ${previous}`);
    }
  }

  /** The build the staged import is being published as, if it got that far. */
  publishingBuild(): string | undefined {
    return this.#sql.publishing.get() as string | undefined;
  }

  /** Folds the staged import into the state's records, once the set built with it is published. */
  commit(): void {
    this.#fold();
  }

  /** Drops the staged import and any note of its publishing. */
  clear(): void {
    this.#db.transaction(() => {
      this.#sql.clear.run();
      this.#sql.clearPublishing.run();
    })();
  }

  #fold(): void {
    for (let after = 0; ; ) {
      const rows = this.#sql.batch.all(after, FOLD_BATCH) as StagedRow[];
      if (rows.length === 0) break;
      // One transaction folds a batch and takes it out of the staging: a kill never folds it twice.
      this.#state.absorb(
        rows.map((row) => ({ record: inflate(row.record), fetchedAt: row.fetchedAt })),
        (batch) => {
          for (const { record } of batch) this.#sql.remove.run(record.videoId);
        },
      );
      after = rows.at(-1)!.seq;
    }
    this.#sql.clearPublishing.run();
  }
}
