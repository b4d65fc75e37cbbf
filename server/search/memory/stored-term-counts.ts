/**
 * The build's term counts of every transcript (pipeline/artifact/search-index/term-counts.ts),
 * held in memory from rank 1 down until their share of the budget is spent:
 * scoring a candidate they hold looks its words' counts, word count and
 * views up here and reads nothing of its row. They are the counts
 * `countTerms` makes in the text, so the answers are the same without them.
 */
import type Database from "better-sqlite3";
import { decodeCounts, scanScale, TERM_COUNTS_VERSION, VarintReader, writeVarint } from "../../../pipeline/artifact/search-index/index.js";

export interface StoredCountsWarmth {
  /** Transcripts whose counts are held. */
  transcripts: number;
  bytes: number;
  outcome: "complete" | "budget" | "absent" | "closed";
  ms: number;
}

/**
 * The listed words' ids fall in this many blocks of equal ranges. Each row is
 * held with the place where each block starts in it, and its first pair's
 * gap counted from the block's start: a lookup reads only its word's block,
 * not the pairs before it.
 */
const BLOCKS = 16;
/** What a held transcript costs beside its encoded counts: its word count, views, length, place and blocks' places. */
const PER_ROW = 24 + BLOCKS * 2;
/** Rows read per turn of the event loop. */
const SLICE_ROWS = 4096;

export function hasTermCounts(db: Database.Database): boolean {
  const version = db.prepare("SELECT value FROM meta WHERE key = 'termCounts'").pluck().get() as string | undefined;
  return version === TERM_COUNTS_VERSION;
}

export class StoredTermCounts {
  readonly #wordIds = new Map<string, number>();
  /** Ids per block (BLOCKS). */
  #blockSize = 1;
  /** By rank: where its counts start in #bytes (#ends[rank] where they end), -1 where none are held. */
  #starts = new Float64Array(0);
  #ends = new Float64Array(0);
  /** By rank, BLOCKS each: where each block's pairs start, from the row's start. */
  #blocks = new Uint16Array(0);
  #words = new Int32Array(0);
  #views = new Float64Array(0);
  #textBytes = new Int32Array(0);
  #bytes = new Uint8Array(0);

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
    const start = this.#starts[rank]!;
    const end = this.#ends[rank]!;
    const scale = scanScale(this.#textBytes[rank]!);
    const one = [0];
    return ids.map((id) => {
      const block = Math.floor(id / this.#blockSize);
      const from = start + this.#blocks[rank * BLOCKS + block]!;
      const to = block + 1 < BLOCKS ? start + this.#blocks[rank * BLOCKS + block + 1]! : end;
      decodeCounts(this.#bytes, from, to, [id], one, block * this.#blockSize - 1);
      return one[0]! * scale;
    });
  }

  /** Reads the set's term counts from rank 1 down until `budgetBytes` are spent, a slice per turn of the event loop. */
  async load(db: Database.Database, budgetBytes: number): Promise<StoredCountsWarmth> {
    const started = performance.now();
    let transcripts = 0;
    let spent = 0;
    const done = (outcome: StoredCountsWarmth["outcome"]): StoredCountsWarmth => ({ transcripts, bytes: spent, outcome, ms: performance.now() - started });
    if (budgetBytes <= 0 || !hasTermCounts(db)) return done("absent");
    for (const [id, word] of db.prepare("SELECT id, word FROM term_count_words").raw().iterate() as Iterable<[number, string]>) this.#wordIds.set(word, id);
    this.#blockSize = Math.max(1, Math.ceil(this.#wordIds.size / BLOCKS));
    const { last, total } = db.prepare("SELECT coalesce(max(id), 0) AS last, coalesce(sum(length(counts)), 0) AS total FROM term_counts").get() as { last: number; total: number };
    const ranks = last + 1;
    // The places of every rank come first: a share too small for them holds nothing.
    if (ranks * PER_ROW > budgetBytes) return done("budget");
    spent = ranks * PER_ROW;
    this.#starts = new Float64Array(ranks).fill(-1);
    this.#ends = new Float64Array(ranks);
    this.#blocks = new Uint16Array(ranks * BLOCKS);
    this.#words = new Int32Array(ranks);
    this.#views = new Float64Array(ranks);
    this.#textBytes = new Int32Array(ranks);
    // Held rows are no longer than as stored: a block's first gap, from the block's start, is no larger than from the pair before.
    this.#bytes = new Uint8Array(Math.max(0, Math.min(total, budgetBytes - spent)));
    const slice = db.prepare("SELECT id, words, views, text_bytes, counts FROM term_counts WHERE id > ? ORDER BY id LIMIT ?").raw();
    let after = 0;
    let used = 0;
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!db.open) return done("closed");
      const rows = slice.all(after, SLICE_ROWS) as [number, number, number, number, Buffer][];
      for (const [id, words, views, textBytes, counts] of rows) {
        // A row's offsets are 16-bit; one longer than that (never seen: a few bytes a word) is not held.
        if (counts.length > 0xffff) continue;
        if (used + counts.length > this.#bytes.length) return done("budget");
        const length = this.#blocked(counts, used, id);
        this.#starts[id] = used;
        this.#ends[id] = used += length;
        this.#words[id] = words;
        this.#views[id] = views;
        this.#textBytes[id] = textBytes;
        spent += length;
        transcripts++;
      }
      if (rows.length < SLICE_ROWS) return done("complete");
      after = rows[rows.length - 1]![0];
    }
  }

  /** Copies a row's pairs to #bytes at `at`, each block's first gap counted from the block's start, noting where each block starts; returns the bytes written. */
  #blocked(counts: Buffer, at: number, rank: number): number {
    const out = this.#bytes;
    const blocks = this.#blocks;
    const base = rank * BLOCKS;
    const blockSize = this.#blockSize;
    const begin = at;
    const pairs = new VarintReader(counts);
    let id = -1;
    let previous = -1;
    let block = 0;
    // Block ends as ids: the next block starts at `boundary`.
    let boundary = 0;
    while (pairs.more) {
      const gap = pairs.read();
      const countStart = pairs.at;
      pairs.skip();
      id += gap;
      if (id >= boundary) {
        // Blocks up to this pair's (those before it with none of its pairs) start here.
        while (boundary <= id) {
          blocks[base + block] = at - begin;
          previous = block * blockSize - 1;
          block++;
          boundary = block * blockSize;
        }
      }
      at = writeVarint(out, at, id - previous);
      // The count's bytes as stored.
      for (let k = countStart; k < pairs.at; k++) out[at++] = counts[k]!;
      previous = id;
    }
    for (; block < BLOCKS; block++) blocks[base + block] = at - begin;
    return at - begin;
  }
}
