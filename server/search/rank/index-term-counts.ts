/**
 * Term frequencies read from the FTS5 index itself (one row per occurrence
 * in fts5vocab's instance table): for a rare term that is a few thousand
 * index entries at most, where counting in the text would read each
 * candidate's whole transcript. Exact, like the index: no prefix, no case
 * forms.
 */
import type Database from "better-sqlite3";

export class IndexTermCounts {
  readonly #instances;

  /** `index`: the connection full-text queries run on; a temp table is made there (nothing is written to the file). */
  constructor(index: Database.Database) {
    index.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.transcript_fts_instances USING fts5vocab(main, transcript_fts, instance)");
    // Counted and filtered to the candidates inside SQLite: stepping through each occurrence from JavaScript cost several times more.
    this.#instances = index.prepare(
      `SELECT doc, count(*) FROM temp.transcript_fts_instances
       WHERE term = ? AND col = 'script' AND doc IN (SELECT value FROM json_each(?)) GROUP BY doc`,
    ).raw();
  }

  /** Occurrences of `term` in each of `ids` (absent: none). */
  count(term: string, ids: readonly number[]): Map<number, number> {
    if (ids.length === 0) return new Map();
    return new Map(this.#instances.all(term, JSON.stringify(ids)) as [number, number][]);
  }
}
