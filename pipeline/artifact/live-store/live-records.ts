/**
 * What the server's live store (`<DATA_DIR>/live.db`) and the pipeline agree
 * on: its records table, its identity and sequence numbers,
 * and the rule for merging two records of one video. The server writes the
 * store (server/live-store/live-store.ts); the pipeline only reads it, here.
 *
 * Every record gets a sequence number that is never reused, and the store has
 * a random id made when it is created. A build records both (manifest
 * `liveStoreId`, `liveSeq`): the records of that store up to that number are
 * in the set. See docs/live-store.md for the whole lifecycle.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dataDirLayout } from "../layout/index.js";
import Database from "better-sqlite3";
import { ARTIFACT_FILES, DATABASE_DDL, type TranscriptRecord, type VideoRecord } from "../contract/index.js";

export const LIVE_RECORDS_DDL = `
CREATE TABLE live_records (
  video_id TEXT PRIMARY KEY,
  record TEXT NOT NULL,
  fetched_at TEXT NOT NULL,
  seq INTEGER NOT NULL,
  -- The artifact set has this video (then it is not counted as new) ...
  in_artifacts INTEGER NOT NULL,
  -- ... and the video's primary track is in this store's FTS index (the artifact set has no transcript for it).
  searchable INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX live_records_by_seq ON live_records(seq);
`;

/** The whole store: the artifact database's tables (its records are searched as a set's are) and `live_records`. */
export const LIVE_STORE_DDL = `${DATABASE_DDL}\n${LIVE_RECORDS_DDL}`;

/** Whether `db` holds a live store's schema (a new file holds none yet). */
export function hasLiveStoreSchema(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'live_records'").get() !== undefined;
}

/** Keys of the store's `meta` table. */
export const LIVE_META = {
  /** Random id of this store, made once when the store is created. */
  storeId: "store_id",
  /** The next record's sequence number; only ever grows. */
  nextSeq: "next_seq",
  counts: "counts",
  /** Bumped by every reconcile (rows renumbered): another process sharing the store then reloads its memory whole. */
  epoch: "epoch",
} as const;

/** The newer record's metadata; tracks from both, the newer one winning per (language, generated). */
export function mergeRecords(older: VideoRecord, newer: VideoRecord): VideoRecord {
  const key = (t: TranscriptRecord) => `${t.languageCode}\u0000${t.isGenerated}`;
  const tracks = new Map(older.transcripts.map((t) => [key(t), t]));
  for (const t of newer.transcripts) tracks.set(key(t), t);
  return {
    ...older,
    ...newer,
    description: newer.description ?? older.description,
    chapters: newer.chapters ?? older.chapters,
    keywords: newer.keywords ?? older.keywords,
    category: newer.category ?? older.category,
    transcripts: [...tracks.values()],
  } as VideoRecord;
}

export interface LiveRecord {
  record: VideoRecord;
  fetchedAt: string;
  seq: number;
}

/** A read-only view of a live store for the pipeline. */
export interface LiveStoreSnapshot {
  /** undefined for a store the server has not given an id yet. */
  storeId: string | undefined;
  /** The highest sequence number stored (0 when empty). */
  maxSeq: number;
  /** Records with `seq <= throughSeq`, in sequence order. */
  records(throughSeq: number): IterableIterator<LiveRecord>;
  close(): void;
}

/** Opens `<dataDir>/live.db` for reading, or returns undefined when the server never made one. */
export function openLiveSnapshot(dataDir: string): LiveStoreSnapshot | undefined {
  const path = dataDirLayout(dataDir).liveStore;
  if (!existsSync(path)) return undefined;
  // Not readonly: a WAL database needs its -shm, which a reader may have to create.
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 10000");
    if (!hasLiveStoreSchema(db)) {
      db.close();
      return undefined;
    }
    // One read transaction: the id, the high mark and the records come from the same moment.
    db.exec("BEGIN");
    const meta = db.prepare("SELECT value FROM meta WHERE key = ?").pluck();
    const storeId = (meta.get(LIVE_META.storeId) as string | undefined) ?? undefined;
    const maxSeq = db.prepare("SELECT coalesce(max(seq), 0) FROM live_records").pluck().get() as number;
    const rows = db.prepare("SELECT record, fetched_at AS fetchedAt, seq FROM live_records WHERE seq <= ? ORDER BY seq");
    return {
      storeId,
      maxSeq,
      *records(throughSeq: number) {
        for (const row of rows.iterate(throughSeq) as Iterable<{ record: string; fetchedAt: string; seq: number }>) {
          yield { record: JSON.parse(row.record) as VideoRecord, fetchedAt: row.fetchedAt, seq: row.seq };
        }
      },
      close() {
        if (db.inTransaction) db.exec("COMMIT");
        db.close();
      },
    };
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
}

/** The live-store watermark a manifest carries. */
export interface LiveWatermark {
  liveStoreId?: string | undefined;
  liveSeq: number;
}

/**
 * The highest sequence number up to which records of store `storeId` may
 * leave it: every set in `<dataDir>/builds/` (any of them may be served
 * again, by a switch back to a previous set) and every set in `served` holds
 * them. A set of another store, or one without a readable manifest, holds
 * none, so nothing is trimmed while it is kept.
 */
export function trimmableThrough(dataDir: string, storeId: string, served: readonly LiveWatermark[] = []): number {
  const marks: number[] = served.map((m) => (m.liveStoreId === storeId ? m.liveSeq : 0));
  const builds = dataDirLayout(dataDir).builds;
  let names: string[] = [];
  try {
    names = readdirSync(builds).filter((name) => !name.startsWith("."));
  } catch {
    // No builds folder: only `served` counts.
  }
  for (const name of names) {
    try {
      const manifest = JSON.parse(readFileSync(join(builds, name, ARTIFACT_FILES.manifest), "utf8")) as Partial<LiveWatermark>;
      marks.push(manifest.liveStoreId === storeId && Number.isInteger(manifest.liveSeq) ? manifest.liveSeq! : 0);
    } catch {
      marks.push(0);
    }
  }
  return marks.length === 0 ? 0 : Math.max(0, Math.min(...marks));
}
