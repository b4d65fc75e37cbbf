/**
 * A full-text query's matches as a list of rowids in rowid order: in the
 * artifact set that is popularity order (rowids are ranks), in the live
 * store insertion order.
 */
import type Database from "better-sqlite3";
import type { MatchBounds } from "../filters.js";
import { hasRow } from "./row-bitmap.js";

/**
 * Looking one rowid up in an FTS5 list (a seek) costs about as much as
 * reading this many rows of it in order: a list bounded by a few rows is
 * read by looking each up where that is cheaper than walking the list until
 * enough of them turn up (measured by hand on a synthetic set).
 */
const SEEK_ROWS = 40;
/** Rows looked up per statement. */
const SEEK_SLICE = 64;

/** A full-text query's matches within `bounds` (filters.ts), in rowid order, `limit` of them from position `offset`. */
export type MatchList = (expression: string, bounds: MatchBounds, limit: number, offset: number) => number[];

/**
 * The matches of FTS5 table `table`, whose rowids are popularity ranks.
 * Below a bound, the rows are read one at a time and the reading stops at
 * the first past it: given the bound as a constraint (`rowid <= ?`), FTS5
 * goes on through the words' lists past it when fewer than `limit` matches
 * lie below, which cost tens of times more (docs/search.md). With no bound
 * below `lastRank` and no condition on the video row, `LIMIT` and `OFFSET`
 * do it in one call. A condition on the video row is tested in its row
 * bitmap where the bounds have one, else by joining the row (FTS5 first, in
 * rowid order); where the bitmap holds so few rows that walking the list
 * would pass many others for each of them, each is looked up instead.
 */
export function rankOrderedMatches(db: Database.Database, table: string, lastRank: number): MatchList {
  const open = db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).pluck();
  const limited = db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid LIMIT ? OFFSET ?`).pluck();
  const joined = statementsByCondition((where) =>
    db.prepare(`SELECT f.rowid FROM ${table} f CROSS JOIN videos v ON v.id = f.rowid WHERE ${table} MATCH ? AND ${where} ORDER BY f.rowid`).pluck(),
  );
  const seek = db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid`).pluck();
  return (expression, bounds, limit, offset) => {
    const { maxRank, where, rows: inRows, rowList } = bounds;
    if (where === "" && maxRank >= lastRank) return limited.all(expression, limit, offset) as number[];
    const rows: number[] = [];
    if (limit <= 0) return rows;
    // Walking the list finds a match about every lastRank / rows.length rows; looking up each row costs SEEK_ROWS.
    if (rowList && rowList.length * rowList.length * SEEK_ROWS <= (limit + offset) * lastRank) {
      let position = 0;
      for (let at = 0; at < rowList.length && rowList[at]! <= maxRank; at += SEEK_SLICE) {
        const slice = rowList.slice(at, at + SEEK_SLICE).filter((id) => id <= maxRank);
        for (const id of seek.all(expression, JSON.stringify(slice)) as number[]) {
          if (position++ < offset) continue;
          rows.push(id);
          if (rows.length === limit) return rows;
        }
      }
      return rows;
    }
    const listed = where === "" || inRows ? open.iterate(expression) : joined(where).iterate(expression, ...bounds.params);
    let position = 0;
    for (const id of listed as Iterable<number>) {
      if (id > maxRank) break;
      if (inRows && !hasRow(inRows, id)) continue;
      if (position++ < offset) continue;
      rows.push(id);
      if (rows.length === limit) break;
    }
    return rows;
  };
}

/** The matches of the live store's FTS5 table, whose rowids are in insertion order: every condition is a join filter. */
export function joinedMatches(db: Database.Database): MatchList {
  const joined = statementsByCondition((where) =>
    db.prepare(
      `SELECT f.rowid FROM transcript_fts f JOIN videos v ON v.id = f.rowid
       WHERE transcript_fts MATCH ? AND f.rowid <= ?${where === "" ? "" : ` AND ${where}`} ORDER BY f.rowid LIMIT ? OFFSET ?`,
    ).pluck(),
  );
  return (expression, bounds, limit, offset) => joined(bounds.where).all(expression, bounds.maxRank, ...bounds.params, limit, offset) as number[];
}

/** A statement per condition, prepared on first use: the conditions are the filters' own SQL, so there are few. */
function statementsByCondition(prepare: (where: string) => Database.Statement): (where: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  return (where) => {
    let statement = prepared.get(where);
    if (!statement) prepared.set(where, (statement = prepare(where)));
    return statement;
  };
}
