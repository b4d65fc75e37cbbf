/**
 * The word bitmaps of an artifact set (pipeline/artifact/search-index/word-bitmaps.ts), held in
 * memory, and the AND of a query's words through them: the list of the
 * first matches of all the words that every search reads for its count
 * and its second tier (shard.ts).
 *
 * The common words' sets are ANDed 32 transcripts at a time; the other
 * words (and quoted phrases, and a channel filter) are left to FTS5, whose
 * answer for them alone is a short list, each of whose rowids is then
 * looked up in the bitmaps. The answer is the one FTS5 gives for all the
 * words together: the same rowids in the same order.
 */
import type Database from "better-sqlite3";
import { endianness } from "node:os";
import { hasWordBitmaps } from "../../../pipeline/artifact/search-index/index.js";

export interface BitmapWarmth {
  words: number;
  bytes: number;
  ms: number;
}

/** Rows read from the table per turn of the event loop while loading. */
const LOAD_SLICE = 64;

export class WordBitmaps {
  readonly #sets = new Map<string, Uint32Array>();
  readonly #shares = new Map<string, number>();

  /** The set of transcripts holding `term`, when it has a bitmap and that bitmap is loaded. */
  get(term: string): Uint32Array | undefined {
    return this.#sets.get(term);
  }

  get size(): number {
    return this.#sets.size;
  }

  /** The share of the transcripts the bitmap covers that hold `term` (its document frequency over the bitmap's bits); 0 without a bitmap. */
  share(term: string): number {
    return this.#shares.get(term) ?? 0;
  }

  /**
   * Reads every bitmap of `db` into memory, a slice per turn of the event
   * loop (searches meanwhile use those loaded so far, with the same
   * answers). Nothing is read where the set has no bitmaps of this version,
   * or on a big-endian machine, which would read their bytes in another
   * order.
   */
  async load(db: Database.Database): Promise<BitmapWarmth> {
    const started = performance.now();
    let bytes = 0;
    if (endianness() !== "LE" || !hasWordBitmaps(db)) return { words: 0, bytes, ms: 0 };
    const slice = db.prepare("SELECT term, df, bits FROM word_bitmaps WHERE term > ? ORDER BY term LIMIT ?").raw();
    let after = "";
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (!db.open) break;
      const rows = slice.all(after, LOAD_SLICE) as [string, number, Buffer][];
      for (const [term, df, bits] of rows) {
        // Copied: a blob's Buffer need not start at a multiple of 4 bytes.
        const set = new Uint32Array(Math.ceil(bits.length / 4));
        new Uint8Array(set.buffer).set(bits);
        this.#sets.set(term, set);
        this.#shares.set(term, df / Math.max(1, set.length * 32));
        bytes += set.byteLength;
      }
      if (rows.length < LOAD_SLICE) break;
      after = rows[rows.length - 1]![0];
    }
    return { words: this.#sets.size, bytes, ms: performance.now() - started };
  }
}

/** The first `limit` rowids up to `maxRank` in every one of `sets` (at least one), ascending. */
export function andOfSets(sets: readonly Uint32Array[], maxRank: number, limit: number): number[] {
  const found: number[] = [];
  if (limit <= 0 || sets.length === 0) return found;
  const first = sets[0]!;
  const last = Math.min(maxRank >>> 5, ...sets.map((set) => set.length - 1));
  for (let word = 0; word <= last; word++) {
    let bits = first[word]!;
    for (let j = 1; bits !== 0 && j < sets.length; j++) bits &= sets[j]![word]!;
    while (bits !== 0) {
      const id = (word << 5) | (31 - Math.clz32(bits & -bits));
      if (id > maxRank) return found;
      found.push(id);
      if (found.length === limit) return found;
      bits &= bits - 1;
    }
  }
  return found;
}

/** The first `limit` of `ids` (ascending) up to `maxRank` that are in every one of `sets`. */
export function filterBySets(ids: readonly number[], sets: readonly Uint32Array[], maxRank: number, limit: number): number[] {
  const found: number[] = [];
  if (limit <= 0) return found;
  for (const id of ids) {
    if (id > maxRank) break;
    const word = id >>> 5;
    const bit = 1 << (id & 31);
    let inAll = true;
    for (const set of sets) {
      if (((set[word] ?? 0) & bit) === 0) {
        inAll = false;
        break;
      }
    }
    if (!inAll) continue;
    found.push(id);
    if (found.length === limit) break;
  }
  return found;
}
