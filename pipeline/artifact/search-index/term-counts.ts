/**
 * The build's term counts: for every primary transcript, how often each word
 * ranking counts in text occurs in it (term-vectors.ts, the same counts as
 * server/search/rank/term-counts.ts `countTerms`), with its word count, views
 * and text length, so that scoring a candidate needs no read of its row.
 *
 * Only the words ranking counts in text are kept: those in more than
 * TERM_COUNTS_MIN_DF transcripts (rarer ones are counted from the full-text
 * index) and in at most TERM_COUNTS_MAX_SHARE of them (commoner ones are
 * scored as present), of ASCII letters and digits (what a vector counts).
 * `term_count_words` lists them; a word not listed is
 * counted in the text as before, so the answers never depend on the table.
 *
 * A row's `counts` is a run of pairs of unsigned LEB128 varints (varint.ts): the gap from
 * the previous word's id (the first from -1), then the count over the text's
 * first SCAN_BYTES, in ascending id order; absent words count 0. A text
 * whose counts do not fit a vector (term-vectors.ts) has no row.
 */

import { MAX_VARINT_BYTES, VarintReader, writeVarint } from "./varint.js";

/** Bump when the table's layout or what it counts changes; the server reads a set's table only when its meta says this version. */
export const TERM_COUNTS_VERSION = "1";

/** Words in at most this many transcripts are counted from the index (the server's default `indexCountMaxDf`). */
export const TERM_COUNTS_MIN_DF = 4000;

/** Words in more than this share of transcripts are scored as present (the server's default `countTermMaxShare`). */
export const TERM_COUNTS_MAX_SHARE = 0.3;

export const TERM_COUNTS_DDL = `
CREATE TABLE term_count_words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE);
CREATE TABLE term_counts (
  id INTEGER PRIMARY KEY,          -- the video's rank (videos.id)
  words INTEGER NOT NULL,          -- its primary transcript's word count
  views INTEGER NOT NULL,
  text_bytes INTEGER NOT NULL,     -- the UTF-8 length of its text
  counts BLOB NOT NULL
);`;

/** The pairs (word id, count), ascending by id, as a row's `counts`. */
export function encodeCounts(ids: ArrayLike<number>, counts: ArrayLike<number>): Buffer {
  const out = Buffer.allocUnsafe(ids.length * 2 * MAX_VARINT_BYTES);
  let at = 0;
  let previous = -1;
  for (let k = 0; k < ids.length; k++) {
    at = writeVarint(out, at, ids[k]! - previous);
    at = writeVarint(out, at, counts[k]!);
    previous = ids[k]!;
  }
  return Buffer.from(out.subarray(0, at));
}

/**
 * The counts of `ids` (ascending, distinct) in the encoded pairs
 * `bytes[start, end)`, written to `into` in `ids` order (0 where absent);
 * `before`: the id the first gap counts from (default -1, a row's start).
 */
export function decodeCounts(bytes: Uint8Array, start: number, end: number, ids: readonly number[], into: number[], before = -1): void {
  into.fill(0);
  const pairs = new VarintReader(bytes, start, end);
  let id = before;
  let wanted = 0;
  while (pairs.more && wanted < ids.length) {
    const gap = pairs.read();
    const count = pairs.read();
    id += gap;
    while (wanted < ids.length && ids[wanted]! < id) wanted++;
    if (wanted < ids.length && ids[wanted] === id) into[wanted++] = count;
  }
}
