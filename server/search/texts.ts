/**
 * Where search reads a transcript from: the most viewed texts held in memory
 * (memory/hot-transcripts.ts) where it has them, else the database, with the
 * texts a query is about to read one by one read ahead in parallel
 * (memory/text-prefetch.ts) when they are not in the operating system's
 * cache. Either way the rows are the database's, so answers never depend on
 * what is held where.
 */
import { isAscii } from "node:buffer";
import type Database from "better-sqlite3";
import type { HotTranscripts } from "./memory/hot-transcripts.js";
import type { StoredTermCounts } from "./memory/stored-term-counts.js";
import type { TermVector } from "../../pipeline/artifact/search-index/index.js";
import { MIN_PREFETCH, type TextPrefetch } from "./memory/text-prefetch.js";
import { indexFromCompact, indexFromTimings, type SegmentIndex } from "./snippet/segment-index.js";

/** What scoring reads of a transcript: its length in words, its views and its text's UTF-8 bytes. */
export type ScoringRow = { words: number; views: number; bytes: Buffer };

export class ShardTexts {
  readonly #hot: HotTranscripts | undefined;
  readonly #counts: StoredTermCounts | undefined;
  readonly #prefetch: TextPrefetch | undefined;
  readonly #readAheadColdMicros: number;
  readonly #sql;

  /**
   * `readAheadColdMicros`: texts are read ahead only when the first of them
   * took at least this long (µs) to read here; 0: always.
   */
  constructor(db: Database.Database, readAheadColdMicros: number, memory: { hot?: HotTranscripts | undefined; counts?: StoredTermCounts | undefined; prefetch?: TextPrefetch | undefined } = {}) {
    this.#hot = memory.hot;
    this.#counts = memory.counts;
    this.#prefetch = memory.prefetch;
    this.#readAheadColdMicros = readAheadColdMicros;
    this.#sql = {
      // The text as a BLOB: UTF-8 bytes, counted without decoding (rank/term-counts.ts).
      scoring: db.prepare(
        `SELECT t.word_count AS words, CAST(t.script AS BLOB) AS bytes, v.view_count AS views
         FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?`,
      ),
      withoutText: db.prepare(
        `SELECT t.word_count AS words, v.view_count AS views
         FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?`,
      ),
      // One statement for both: timings follow the text in the row, so reading them walks the text's overflow pages anyway.
      // The text as a BLOB, so whether it is ASCII is checked on its bytes (see `decoded`).
      text: db.prepare("SELECT CAST(t.script AS BLOB) AS bytes, t.timings FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?"),
      // Reads the text's pages without making a string of it (the read-ahead's probe); the second, the timings' too.
      textLength: db.prepare("SELECT length(CAST(t.script AS BLOB)) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck(),
      rowLength: db
        .prepare("SELECT length(CAST(t.script AS BLOB)) + length(substr(t.timings, -1)) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?")
        .pluck(),
    };
  }

  /** Word count, views and text of a transcript, from memory when it is held there. */
  scoringRow(id: number): ScoringRow {
    return this.#hot?.get(id) ?? (this.#sql.scoring.get(id) as ScoringRow);
  }

  /** The ids of `terms` in the term vectors of the texts held in memory (term-vectors.ts), when there are any. */
  termIds(terms: readonly string[]): number[] | undefined {
    return this.#hot && this.#hot.vectors.terms > 0 ? this.#hot.vectors.idsOf(terms) : undefined;
  }

  /** The term vector of a transcript held in memory, when it has one. */
  termVector(id: number): TermVector | undefined {
    return this.#hot?.get(id)?.terms;
  }

  /** The listed ids of `terms` in the build's term counts held in memory (stored-term-counts.ts), when every one is listed. */
  storedTermIds(terms: readonly string[]): number[] | undefined {
    return this.#counts?.idsOf(terms);
  }

  /** Word count, views and the counts of `termIds` (storedTermIds) of a transcript whose build's term counts are held, else undefined. */
  storedCounts(id: number, termIds: readonly number[]): { words: number; views: number; tfs: number[] } | undefined {
    const counts = this.#counts;
    if (!counts?.has(id)) return undefined;
    return { ...counts.row(id), tfs: counts.termCounts(id, termIds) };
  }

  /** Whether a transcript's build's term counts are held (nothing of its row need be read for scoring). */
  hasStoredCounts(id: number): boolean {
    return this.#counts?.has(id) ?? false;
  }

  /** Word count and views, without reading the text where it is not in memory. */
  counts(id: number): { words: number; views: number } {
    const counts = this.#counts;
    if (counts?.has(id)) return counts.row(id);
    return this.#hot?.get(id) ?? (this.#sql.withoutText.get(id) as { words: number; views: number });
  }

  /**
   * The transcript's text as a string (`ascii`: pure ASCII) and as its UTF-8
   * bytes, and where its segments lie in it and in time, for the snippet and
   * the matched moment.
   */
  text(id: number): { script: string; ascii: boolean; bytes: Buffer; segments: SegmentIndex } {
    const hot = this.#hot?.get(id);
    if (hot) return { ...decoded(hot.bytes), bytes: hot.bytes, segments: indexFromCompact(hot.starts) };
    const row = this.#sql.text.get(id) as { bytes: Buffer | null; timings: Buffer | null };
    const bytes = row.bytes ?? Buffer.alloc(0);
    return { ...decoded(bytes), bytes, segments: indexFromTimings(row.timings ?? new Uint8Array(0)) };
  }

  /**
   * Has the text of those of `ids` not held in memory (nor in `skip`) read
   * ahead in parallel, with their timings when `timings`, when the first of
   * them, read here, came from disk (`readAheadColdMicros`).
   */
  prefetch(ids: readonly number[], skip?: ReadonlyMap<number, unknown>, timings = false): void {
    if (!this.#prefetch) return;
    const wanted = ids.filter((id) => !this.#hot?.get(id) && !skip?.has(id));
    if (wanted.length < MIN_PREFETCH) return;
    // The first is read here, as it would be anyway: from the operating system's cache that takes tens of
    // microseconds, from disk hundreds or more. A cache is mostly filled or emptied as a whole, so the rest
    // are taken to be where the first was.
    const cold = this.#readAheadColdMicros;
    if (cold > 0) {
      const started = performance.now();
      (timings ? this.#sql.rowLength : this.#sql.textLength).get(wanted[0]);
      if ((performance.now() - started) * 1000 < cold) return;
    }
    this.#prefetch.read(cold > 0 ? wanted.slice(1) : wanted, timings);
  }
}

/** UTF-8 bytes as a string, and whether they are pure ASCII (then decoded as Latin-1: the same string, decoded quicker). */
function decoded(bytes: Buffer): { script: string; ascii: boolean } {
  const ascii = isAscii(bytes);
  return { script: ascii ? bytes.toString("latin1") : bytes.toString("utf8"), ascii };
}
