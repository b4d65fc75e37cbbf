/**
 * Term frequencies of a transcript, counted once so that scoring a candidate
 * looks its terms up instead of scanning its text for each of them: by the
 * server for the most viewed texts it reads into memory
 * (server/search/memory/hot-transcripts.ts), and by the build for every
 * transcript (pipeline/build/build-term-counts.ts). Shared, so both count alike.
 *
 * A vector holds exactly what server/search/rank/term-counts.ts `countTerms` counts for
 * ASCII terms over the text's first SCAN_BYTES (`termCounts` scales them to
 * the text's length as `countTerms` does):
 * - in a pure-ASCII text, the whole-word occurrences of each word in lower
 *   case, Capitalized or UPPER CASE (a word is a maximal run of ASCII letters
 *   and digits: where `countTerms` finds a form with no word byte either side);
 * - in other text, each whole token that is ASCII of the folded bytes
 *   (`foldedBytes`) where it folds them, else of the text decoded and folded
 *   (`foldText`), its tokens bounded as `countTerms` bounds them there.
 * The counts, and every answer, are the same with or without vectors.
 */
import { isAscii } from "node:buffer";
import { foldedBytes, foldText, isTokenUnitAt } from "../text/index.js";

/**
 * Bytes of a transcript scanned for term frequencies (default 32 KiB, about
 * 5,000 words). Longer transcripts (the long tail, up to hours of speech) are
 * counted over this prefix and scaled to their length, which bounds the cost
 * of scoring a candidate: BM25 saturates in tf, so the estimate ranks alike.
 */
export const SCAN_BYTES = 32 * 1024;

/** What a count over the first `scanBytes` of a text of `length` bytes is multiplied by. */
export function scanScale(length: number, scanBytes = SCAN_BYTES): number {
  return length / Math.max(1, Math.min(length, scanBytes));
}

/** By byte: 1 a lower-case letter or a digit, 2 an upper-case letter, 3 another word byte (0x80 up), 0 not a word byte. */
const WORD_CLASS = Uint8Array.from({ length: 256 }, (_, b) => ((b >= 97 && b <= 122) || (b >= 48 && b <= 57) ? 1 : b >= 65 && b <= 90 ? 2 : b >= 0x80 ? 3 : 0));
const LOWER = Uint8Array.from({ length: 256 }, (_, b) => (b >= 65 && b <= 90 ? b + 32 : b));

/** One transcript's counts: its terms' ids in ascending order, and the count of each. */
export interface TermVector {
  ids: Uint32Array;
  counts: Uint16Array;
}

/** What a vector's two views cost beside their bytes. */
const VECTOR_OVERHEAD = 200;

/** Vectors are cut out of slabs this large, so they add no ArrayBuffer of their own for the garbage collector to track. */
const SLAB_BYTES = 8 * 2 ** 20;

export class TermVectors {
  /** Term → id, for the query's terms. */
  readonly #ids = new Map<string, number>();
  /** Open addressing over the terms' hashes: id + 1, 0 for an empty slot. */
  #slots = new Int32Array(1 << 16);
  #hashes = new Int32Array(1 << 12);
  /** Each term's lower-case bytes, at #starts[id], #lengths[id] in #arena. */
  #arena = new Uint8Array(1 << 16);
  #arenaUsed = 0;
  #starts = new Uint32Array(1 << 12);
  #lengths = new Uint32Array(1 << 12);
  /** Per term id, its count in the text being read (0 between texts), and the ids it touched. */
  #count = new Int32Array(1 << 12);
  #touched = new Int32Array(1 << 12);
  /** A token of decoded text, as bytes (#ofDecoded). */
  #word = new Uint8Array(256);
  #slab = new ArrayBuffer(0);
  #slabUsed = 0;
  /** Bytes the vectors take (the dictionary, a few bytes per distinct term, aside). */
  bytes = 0;

  /** Terms known so far. */
  get terms(): number {
    return this.#ids.size;
  }

  /** The vector of a transcript's UTF-8 text (undefined only when a count does not fit in 16 bits). */
  vectorOf(bytes: Buffer, scanBytes = SCAN_BYTES): TermVector | undefined {
    const length = Math.min(bytes.length, scanBytes);
    const scanned = length === bytes.length ? bytes : bytes.subarray(0, length);
    const ascii = isAscii(scanned);
    const source = ascii ? scanned : foldedBytes(scanned);
    if (!source) return this.#ofDecoded(foldText(scanned.toString("utf8")));
    const view = new Uint8Array(source.buffer, source.byteOffset, source.length);
    const end = view.length;
    let touched = 0;
    let i = 0;
    while (i < end) {
      while (i < end && WORD_CLASS[view[i]!] === 0) i++;
      if (i === end) break;
      const start = i;
      let uppers = 0;
      let lowers = 0;
      let others = 0;
      let hash = 0x811c9dc5 | 0;
      for (; i < end; i++) {
        const b = view[i]!;
        const c = WORD_CLASS[b]!;
        if (c === 0) break;
        if (c === 2) uppers++;
        else if (c === 3) others++;
        else if (b >= 97) lowers++;
        hash = Math.imul(hash ^ LOWER[b]!, 16777619);
      }
      // ASCII text: the forms countTerms counts (all lower case, no lower-case letter, or only the first letter upper).
      // Folded text is lower case already; a token with a non-ASCII character is no ASCII term.
      if (others > 0 || !(uppers === 0 || lowers === 0 || (uppers === 1 && WORD_CLASS[view[start]!] === 2))) continue;
      touched = this.#counted(this.#idOf(view, start, i, hash), touched);
    }
    return this.#vector(touched);
  }

  /**
   * The vector of a text decoded and folded whole, as countTerms counts an
   * ASCII term in it: where the term stands with no token unit either side,
   * that is, as a whole run of token units.
   */
  #ofDecoded(folded: string): TermVector | undefined {
    const end = folded.length;
    let word = this.#word;
    let touched = 0;
    let i = 0;
    while (i < end) {
      if (!isTokenUnitAt(folded, i)) {
        i++;
        continue;
      }
      let n = 0;
      let ascii = true;
      let hash = 0x811c9dc5 | 0;
      for (; i < end && isTokenUnitAt(folded, i); i++) {
        const c = folded.charCodeAt(i);
        if (!ascii) continue;
        if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
          ascii = false;
          continue;
        }
        if (n === word.length) word = this.#word = grown(word, n * 2);
        word[n++] = c;
        hash = Math.imul(hash ^ c, 16777619);
      }
      if (ascii) touched = this.#counted(this.#idOf(word, 0, n, hash), touched);
    }
    return this.#vector(touched);
  }

  /** One more occurrence of term `id` in the text being read; returns how many terms it has touched. */
  #counted(id: number, touched: number): number {
    const seen = this.#count[id]!;
    this.#count[id] = seen + 1;
    if (seen > 0) return touched;
    if (touched === this.#touched.length) this.#touched = grown(this.#touched, touched * 2);
    this.#touched[touched] = id;
    return touched + 1;
  }

  /** The vector of the counts made since the last one, which are reset. */
  #vector(touched: number): TermVector | undefined {
    const ids = this.#touched.subarray(0, touched).sort();
    // A count past 16 bits (a scan far longer than SCAN_BYTES) goes without a vector.
    let fits = true;
    for (let k = 0; k < touched; k++) fits &&= this.#count[ids[k]!]! <= 0xffff;
    const vector = fits ? this.#allocate(touched) : undefined;
    for (let k = 0; k < touched; k++) {
      const id = ids[k]!;
      if (vector) {
        vector.ids[k] = id;
        vector.counts[k] = this.#count[id]!;
      }
      this.#count[id] = 0;
    }
    return vector;
  }

  /** The term of an id a vector holds. */
  termOf(id: number): string {
    return Buffer.from(this.#arena.buffer, this.#arena.byteOffset + this.#starts[id]!, this.#lengths[id]!).toString("latin1");
  }

  /** The ids of `terms` (-1 for a term in no vector: it counts 0 everywhere). */
  idsOf(terms: readonly string[]): number[] {
    return terms.map((term) => this.#ids.get(term) ?? -1);
  }

  /**
   * What `countTerms` answers for the terms of `ids` (idsOf) in the text of
   * `length` bytes whose vector (over its first `scanBytes`) this is: the
   * counts scaled to the text's length.
   */
  static termCounts(vector: TermVector, ids: readonly number[], length: number, scanBytes = SCAN_BYTES): number[] {
    const counts = TermVectors.counts(vector, ids);
    const scale = scanScale(length, scanBytes);
    return scale === 1 ? counts : counts.map((count) => count * scale);
  }

  /** What a vector counts for each of `ids` (idsOf), unscaled. */
  static counts(vector: TermVector, ids: readonly number[]): number[] {
    const { ids: held, counts } = vector;
    return ids.map((id) => {
      let lo = 0;
      let hi = held.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const at = held[mid]!;
        if (at === id) return counts[mid]!;
        if (at < id) lo = mid + 1;
        else hi = mid - 1;
      }
      return 0;
    });
  }

  /** The id of the lower-cased bytes view[start, end), added when new. */
  #idOf(view: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    let mask = this.#slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.#slots[slot]! - 1;
      if (held < 0) break;
      if (this.#hashes[held] !== hash || this.#lengths[held] !== length) continue;
      const at = this.#starts[held]!;
      let same = true;
      for (let k = 0; k < length; k++) {
        if (this.#arena[at + k] !== LOWER[view[start + k]!]) {
          same = false;
          break;
        }
      }
      if (same) return held;
    }
    const id = this.#ids.size;
    if (id === this.#hashes.length) {
      const size = id * 2;
      this.#hashes = grown(this.#hashes, size);
      this.#starts = grown(this.#starts, size);
      this.#lengths = grown(this.#lengths, size);
      this.#count = grown(this.#count, size);
    }
    if (this.#arenaUsed + length > this.#arena.length) this.#arena = grown(this.#arena, Math.max(this.#arena.length * 2, this.#arenaUsed + length));
    for (let k = 0; k < length; k++) this.#arena[this.#arenaUsed + k] = LOWER[view[start + k]!]!;
    this.#hashes[id] = hash;
    this.#starts[id] = this.#arenaUsed;
    this.#lengths[id] = length;
    this.#arenaUsed += length;
    this.#ids.set(Buffer.from(this.#arena.buffer, this.#arena.byteOffset + this.#starts[id]!, length).toString("latin1"), id);
    // At most half full, so probes stay short.
    if ((id + 1) * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
    else {
      mask = this.#slots.length - 1;
      let slot = hash & mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
      this.#slots[slot] = id + 1;
    }
    return id;
  }

  #rehash(size: number): void {
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let id = 0; id < this.#ids.size; id++) {
      let slot = this.#hashes[id]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.#slots = slots;
  }

  /** Room for a vector of `n` terms, from the current slab. */
  #allocate(n: number): TermVector {
    const bytes = n * 6 + (n % 2 === 1 ? 2 : 0);
    if (this.#slabUsed + bytes > this.#slab.byteLength) {
      this.#slab = new ArrayBuffer(Math.max(SLAB_BYTES, bytes));
      this.#slabUsed = 0;
    }
    const at = this.#slabUsed;
    this.#slabUsed += bytes;
    this.bytes += bytes + VECTOR_OVERHEAD;
    return { ids: new Uint32Array(this.#slab, at, n), counts: new Uint16Array(this.#slab, at + n * 4, n) };
  }
}

function grown<T extends Int32Array | Uint32Array | Uint8Array>(array: T, size: number): T {
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  return next;
}
