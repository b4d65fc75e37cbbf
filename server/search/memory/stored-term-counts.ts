/**
 * The build's term counts of every transcript (pipeline/artifact/term-counts.ts),
 * held in memory from rank 1 down until their share of the budget is spent:
 * scoring a candidate they hold looks its words' counts, word count and
 * views up here and reads nothing of its row. They are the counts
 * `countTerms` makes in the text, so the answers are the same without them.
 */
import type Database from "better-sqlite3";
import { decodeCounts, TERM_COUNTS_VERSION } from "../../../pipeline/artifact/term-counts.js";
import { scanScale } from "../../../pipeline/artifact/term-vectors.js";

export interface StoredCountsWarmth {
  /** Transcripts whose counts are held. */
  transcripts: number;
  bytes: number;
  outcome: "complete" | "budget" | "absent" | "closed";
  ms: number;
}

/** What a held transcript costs beside its encoded counts: its word count, views, length and place. */
const PER_ROW = 24;
/** Rows read per turn of the event loop. */
const SLICE_ROWS = 4096;

export function hasTermCounts(db: Database.Database): boolean {
  const version = db.prepare("SELECT value FROM meta WHERE key = 'termCounts'").pluck().get() as string | undefined;
  return version === TERM_COUNTS_VERSION;
}

export class StoredTermCounts {
  readonly #wordIds = new Map<string, number>();
  /** By rank: where its counts start in #bytes (#ends[rank] where they end), -1 where none are held. */
  #starts = new Int32Array(0);
  #ends = new Int32Array(0);
  #words = new Int32Array(0);
  #views = new Float64Array(0);
  #textBytes = new Int32Array(0);
  #bytes = new Uint8Array(0);
  /** The query's words' counts, reused from candidate to candidate. */
  readonly #into: number[] = [];

  /** The listed words' ids of `terms`, in `terms` order, or undefined when one is not listed (then it is counted in the text). */
  idsOf(terms: readonly string[]): number[] | undefined {
    const ids: number[] = [];
    for (const term of terms) {
      const id = this.#wordIds.get(term);
      if (id === undefined) return undefined;
      ids.push(id);
    }
    return ids;
  }

  has(rank: number): boolean {
    return rank < this.#starts.length && this.#starts[rank]! >= 0;
  }

  /** Word count and views of a held transcript (has(rank)). */
  row(rank: number): { words: number; views: number } {
    return { words: this.#words[rank]!, views: this.#views[rank]! };
  }

  /** What `countTerms` answers for the words of `ids` (idsOf) in a held transcript's text (has(rank)): counts scaled to its length. */
  termCounts(rank: number, ids: readonly number[]): number[] {
    const order = ids.map((_, k) => k).sort((a, b) => ids[a]! - ids[b]!);
    const sorted = order.map((k) => ids[k]!);
    const into = this.#into;
    into.length = ids.length;
    decodeCounts(this.#bytes, this.#starts[rank]!, this.#ends[rank]!, sorted, into);
    const scale = scanScale(this.#textBytes[rank]!);
    const counts = new Array<number>(ids.length);
    order.forEach((k, j) => (counts[k] = into[j]! * scale));
    return counts;
  }

  /** Reads the set's term counts from rank 1 down until `budgetBytes` are spent, a slice per turn of the event loop. */
  async load(db: Database.Database, budgetBytes: number): Promise<StoredCountsWarmth> {
    const started = performance.now();
    let transcripts = 0;
    let spent = 0;
    const done = (outcome: StoredCountsWarmth["outcome"]): StoredCountsWarmth => ({ transcripts, bytes: spent, outcome, ms: performance.now() - started });
    if (budgetBytes <= 0 || !hasTermCounts(db)) return done("absent");
    for (const [id, word] of db.prepare("SELECT id, word FROM term_count_words").raw().iterate() as Iterable<[number, string]>) this.#wordIds.set(word, id);
    const { last, total } = db.prepare("SELECT coalesce(max(id), 0) AS last, coalesce(sum(length(counts)), 0) AS total FROM term_counts").get() as { last: number; total: number };
    const ranks = last + 1;
    spent = ranks * PER_ROW;
    this.#starts = new Int32Array(ranks).fill(-1);
    this.#ends = new Int32Array(ranks);
    this.#words = new Int32Array(ranks);
    this.#views = new Float64Array(ranks);
    this.#textBytes = new Int32Array(ranks);
    this.#bytes = new Uint8Array(Math.max(0, Math.min(total, budgetBytes - spent)));
    const slice = db.prepare("SELECT id, words, views, text_bytes, counts FROM term_counts WHERE id > ? ORDER BY id LIMIT ?").raw();
    let after = 0;
    let used = 0;
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!db.open) return done("closed");
      const rows = slice.all(after, SLICE_ROWS) as [number, number, number, number, Buffer][];
      for (const [id, words, views, textBytes, counts] of rows) {
        if (used + counts.length > this.#bytes.length) return done("budget");
        this.#bytes.set(counts, used);
        this.#starts[id] = used;
        this.#ends[id] = used += counts.length;
        this.#words[id] = words;
        this.#views[id] = views;
        this.#textBytes[id] = textBytes;
        spent += counts.length;
        transcripts++;
      }
      if (rows.length < SLICE_ROWS) return done("complete");
      after = rows[rows.length - 1]![0];
    }
  }
}
