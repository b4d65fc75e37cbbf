/**
 * A full-text query's matches as a list of rowids in rowid order: in the
 * artifact set that is popularity order (rowids are ranks), in the live
 * store insertion order.
 */
import type Database from "better-sqlite3";

/** A full-text query's matches with rowid ≤ `maxRank` (and views ≥ `minViews` where that is not the same), in rowid order, `limit` of them from position `offset`. */
export type MatchList = (expression: string, maxRank: number, minViews: number, limit: number, offset: number) => number[];

/**
 * The matches of FTS5 table `table`, whose rowids are popularity ranks.
 * Below a bound, the rows are read one at a time and the reading stops at
 * the first past it: given the bound as a constraint (`rowid <= ?`), FTS5
 * goes on through the words' lists past it when fewer than `limit` matches
 * lie below, which cost tens of times more (docs/search.md). With no bound
 * below `lastRank`, `LIMIT` and `OFFSET` do it in one call.
 */
export function rankOrderedMatches(db: Database.Database, table: string, lastRank: number): MatchList {
  const open = db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).pluck();
  const limited = db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid LIMIT ? OFFSET ?`).pluck();
  return (expression, maxRank, _minViews, limit, offset) => {
    if (maxRank >= lastRank) return limited.all(expression, limit, offset) as number[];
    const rows: number[] = [];
    if (limit <= 0) return rows;
    let position = 0;
    for (const id of open.iterate(expression) as Iterable<number>) {
      if (id > maxRank) break;
      if (position++ < offset) continue;
      rows.push(id);
      if (rows.length === limit) break;
    }
    return rows;
  };
}

/** The matches of the live store's FTS5 table, whose rowids are in insertion order: `minViews` is a join filter. */
export function joinedMatches(db: Database.Database): MatchList {
  const joined = db.prepare(
    `SELECT f.rowid FROM transcript_fts f JOIN videos v ON v.id = f.rowid
     WHERE transcript_fts MATCH ? AND f.rowid <= ? AND v.view_count >= ? ORDER BY f.rowid LIMIT ? OFFSET ?`,
  ).pluck();
  return (expression, maxRank, minViews, limit, offset) => joined.all(expression, maxRank, minViews, limit, offset) as number[];
}
