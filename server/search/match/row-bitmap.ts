/**
 * The rows of an artifact set that meet a filter's condition on the video
 * row (filters.ts), as a bitmap over rowids, made once per condition: lists
 * of matches then test each rowid in it (match-list.ts), and the word
 * bitmaps AND it with theirs (all-words.ts), instead of joining the video
 * row of every match. A selective condition (a week of a decade) would
 * otherwise walk a common word's whole list to find a page.
 */
import type Database from "better-sqlite3";

/**
 * A bitmap is made only where at most this share of the rows meet the
 * condition: a wider one lets most matches through, so a joined list finds
 * a page soon, and reading its rows would cost more than it saves.
 */
export const ROW_BITMAP_MAX_SHARE = 0.1;

/**
 * The bitmap of the rowids up to `lastRank` whose video row `v` meets
 * `where`, and their share of the rows; no bitmap (share unknown: 1) where
 * more than ROW_BITMAP_MAX_SHARE of them do. The condition's columns want an
 * index (the database builder makes them), so that only the rows meeting it
 * are read.
 */
export function rowBitmap(
  db: Database.Database,
  where: string,
  params: readonly (string | number)[],
  lastRank: number,
): { rows?: Uint32Array; list?: readonly number[]; share: number } {
  const cap = Math.max(1, Math.floor(lastRank * ROW_BITMAP_MAX_SHARE));
  const ids = db.prepare(`SELECT v.id FROM videos v WHERE ${where} LIMIT ?`).pluck().all(...params, cap + 1) as number[];
  if (ids.length > cap) return { share: 1 };
  ids.sort((a, b) => a - b);
  const rows = new Uint32Array((lastRank >>> 5) + 1);
  for (const id of ids) {
    const word = id >>> 5;
    rows[word] = (rows[word] ?? 0) | (1 << (id & 31));
  }
  return { rows, list: ids, share: ids.length / Math.max(1, lastRank) };
}

/** Whether `rowid` is in `rows`. */
export function hasRow(rows: Uint32Array, rowid: number): boolean {
  return ((rows[rowid >>> 5] ?? 0) & (1 << (rowid & 31))) !== 0;
}
