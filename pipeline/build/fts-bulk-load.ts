/**
 * How the build fills an FTS5 table: in one transaction, then merged into
 * one segment per term by 'optimize'. FTS5's defaults suit small writes: it
 * flushes its pending terms to a new segment at every 1 MiB and merges
 * segments as they pile up, so a bulk load writes and rewrites the index
 * many times. Here the pending-term buffer is 64 MiB and nothing is merged
 * before the final optimize. By hand, the transcript index of 20,000
 * videos (27.8 million tokens): insert and optimize 22.0-23.5 s with the
 * defaults, 14.7-15.8 s so, the same index (fts5vocab totals compared;
 * a test compares every entry); a 256 MiB buffer took 16.2 s. The pair
 * index of the same videos (1.2 million distinct pairs), insert and
 * optimize, one run each: 16 MiB 31.4 s, 64 MiB 23.1 s, 256 MiB 22.8 s,
 * 1 GiB 26.7 s. Its time goes mostly to FTS5's pending-term hash table:
 * `perf` put 30% of the samples of that build in its lookup, 87% of those
 * on two loads, of the slot and of the entry (by hand): a table of that
 * many terms does not stay in the CPU's cache.
 *
 * Also here: how a build moves an index built in a file of its own into the
 * database (`copyFtsIndex`).
 */
import type Database from "better-sqlite3";
import { checkpoint } from "../command/interrupt.js";

export const BULK_LOAD_HASH_BYTES = 64 * 1024 * 1024;

/** The statements that set FTS5 table `table` (empty, just created) up for a bulk load followed by 'optimize'. */
export function bulkLoadStatements(table: string): string[] {
  return [
    `INSERT INTO ${table} (${table}, rank) VALUES ('hashsize', ${BULK_LOAD_HASH_BYTES})`,
    `INSERT INTO ${table} (${table}, rank) VALUES ('automerge', 0)`,
  ];
}

/** Sets FTS5 table `table` (empty, just created) up for a bulk load followed by 'optimize'. */
export function prepareBulkLoad(db: Database.Database, table: string): void {
  for (const sql of bulkLoadStatements(table)) db.exec(sql);
}

/**
 * The suffixes of the tables FTS5 keeps an index in (its shadow tables):
 * segments, their index, document sizes, settings, and the text of a table
 * that stores its own.
 */
const SHADOW_TABLES = ["data", "idx", "docsize", "config", "content"] as const;

/** Rows of a shadow table copied per statement. */
const COPY_CHUNK_ROWS = 2000;

/**
 * FTS5 leaf pages written per 'merge' statement (`mergeStatement`): a few
 * megabytes, a fraction of a second.
 */
export const MERGE_STEP_PAGES = 2000;

/**
 * The statement that merges about `pages` pages of FTS5 table `table`'s
 * segments; with a negative count any two segments are merged, so repeated
 * until it changes nothing (total_changes() grows by fewer than 2; the
 * statement's own change count does not tell) it leaves one segment, as
 * 'optimize' does, in steps that a build can be stopped between.
 */
export function mergeStatement(table: string, pages = MERGE_STEP_PAGES): string {
  return `INSERT INTO ${table} (${table}, rank) VALUES ('merge', ${-pages})`;
}

/** Merges `table`'s segments into one by repeated 'merge' statements, with `signal` checked between them. */
export async function mergeInSteps(db: Database.Database, table: string, signal?: AbortSignal, pages = MERGE_STEP_PAGES): Promise<void> {
  const merge = db.prepare(mergeStatement(table, pages));
  const total = db.prepare("SELECT total_changes()").pluck();
  for (;;) {
    const before = total.get() as number;
    merge.run();
    if ((total.get() as number) - before < 2) return;
    await checkpoint(signal);
  }
}

/**
 * Replaces the index of FTS5 table `table` in the main database of `db` with
 * that of the table of the same name and definition in attached database
 * `from`: a copy of its shadow tables row by row, which is the same index,
 * in chunks of rows with `signal` checked between them.
 * FTS5 guards its shadow tables against writes, so the copy lifts
 * better-sqlite3's defensive mode while it runs. Run it before this
 * connection reads `table`: FTS5 may hold the old index's structure.
 */
export async function copyFtsIndex(db: Database.Database, from: string, table: string, signal?: AbortSignal): Promise<void> {
  const exists = db.prepare("SELECT count(*) FROM pragma_table_list WHERE schema = ? AND name = ?").pluck();
  const hasRowid = db.prepare("SELECT NOT wr FROM pragma_table_list WHERE schema = ? AND name = ?").pluck();
  db.unsafeMode(true);
  // Not db.transaction(): it cannot span the checks.
  db.exec("BEGIN");
  try {
    for (const suffix of SHADOW_TABLES) {
      const name = `${table}_${suffix}`;
      if (exists.get("main", name) === 0) continue;
      db.exec(`DELETE FROM main.${name}`);
      if (hasRowid.get("main", name) === 0) {
        db.exec(`INSERT INTO main.${name} SELECT * FROM ${from}.${name}`);
        continue;
      }
      // FTS5's rowids of segment pages pass 2^53: read and bound them as BigInts.
      const chunk = db.prepare(`INSERT INTO main.${name} SELECT * FROM ${from}.${name} WHERE rowid > ? ORDER BY rowid LIMIT ${COPY_CHUNK_ROWS}`);
      const last = db.prepare(`SELECT max(rowid) FROM main.${name}`).pluck().safeIntegers(true);
      let after = -(2n ** 63n);
      while (chunk.run(after).changes > 0) {
        after = last.get() as bigint;
        await checkpoint(signal);
      }
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  } finally {
    db.unsafeMode(false);
  }
}
