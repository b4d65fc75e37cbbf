/**
 * How the build fills an FTS5 table: in one transaction, then merged into
 * one segment per term by 'optimize'. FTS5's defaults suit small writes: it
 * flushes its pending terms to a new segment at every 1 MiB and merges
 * segments as they pile up, so a bulk load writes and rewrites the index
 * many times. Here the pending-term buffer is 64 MiB and nothing is merged
 * before the final optimize. By hand, the transcript index of 20,000
 * videos (27.8 million tokens): insert and optimize 22.0-23.5 s with the
 * defaults, 14.7-15.8 s so, the same index (fts5vocab totals compared;
 * a test compares every entry); a 256 MiB buffer took 16.2 s.
 */
import type Database from "better-sqlite3";

export const BULK_LOAD_HASH_BYTES = 64 * 1024 * 1024;

/** Sets FTS5 table `table` (empty, just created) up for a bulk load followed by 'optimize'. */
export function prepareBulkLoad(db: Database.Database, table: string): void {
  db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('hashsize', ${BULK_LOAD_HASH_BYTES})`);
  db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('automerge', 0)`);
}
