/** Builds an artifact set's word bitmaps (format: pipeline/artifact/search-index/word-bitmaps.ts). */
import type Database from "better-sqlite3";
import { WORD_BITMAP_MIN_SHARE, WORD_BITMAPS_DDL, wordExpression } from "../artifact/search-index/index.js";

/**
 * Fills `word_bitmaps` in `db` from its `transcript_fts` and `term_stats`:
 * a bitmap for each term in at least `minShare` of `documents` transcripts,
 * each `ceil((lastRowid + 1) / 32)` 32-bit words long. Returns how many.
 */
export function buildWordBitmaps(db: Database.Database, documents: number, lastRowid: number, minShare = WORD_BITMAP_MIN_SHARE): number {
  db.exec(WORD_BITMAPS_DDL);
  const minDf = Math.max(1, Math.ceil(documents * minShare));
  const terms = db.prepare("SELECT term FROM term_stats WHERE df >= ? ORDER BY term").pluck().all(minDf) as string[];
  const rows = db.prepare("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ?").pluck();
  const insert = db.prepare("INSERT INTO word_bitmaps (term, df, bits) VALUES (?, ?, ?)");
  const words = (lastRowid >>> 5) + 1;
  let built = 0;
  db.transaction(() => {
    for (const term of terms) {
      const bits = new Uint8Array(words * 4);
      let count = 0;
      for (const id of rows.iterate(wordExpression(term)) as Iterable<number>) {
        bits[id >>> 3]! |= 1 << (id & 7);
        count++;
      }
      // term_stats counts a term in either column (a channel's token too); a bitmap is of the text only.
      if (count < minDf) continue;
      insert.run(term, count, bits);
      built++;
    }
  })();
  return built;
}
