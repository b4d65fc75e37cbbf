/**
 * The word bitmaps of an artifact set: for each word in at least a
 * thirty-second of the transcripts, the set of transcripts (rowids, which
 * are popularity ranks) whose text holds it, one bit each.
 *
 * Why: every search lists the first 1,001 transcripts holding all its
 * words, for its count and its second tier (the server's search). FTS5
 * answers that AND by walking the words' doclists, position lists and
 * all, and a common word's list runs through most of the collection: at
 * 500,000 transcripts that list was the largest single part of a search's
 * time (BENCHMARKS.md). With a bitmap per common word, the AND of those
 * words is an AND of 32-bit words in memory, and FTS5 is left the rare
 * words, whose lists are short. A word in a thirty-second of the
 * transcripts or more is where a bitmap is no larger than its list of
 * rowids.
 *
 * Layout: bit `id` of the set is bit `id & 7` of byte `id >> 3` (so, read
 * as little-endian 32-bit words, bit `id & 31` of word `id >> 5`). The
 * words are the index's own terms, taken from `term_stats`, and their sets
 * are read back from the index itself (`script : "word"`), so a bitmap
 * holds exactly what FTS5 would answer.
 *
 * This module is the format both sides read; the build is
 * pipeline/build/build-word-bitmaps.ts.
 */
import type Database from "better-sqlite3";
import { WORD_BITMAPS_VERSION } from "../contract/index.js";

/** Words in at least this share of the transcripts get a bitmap. */
export const WORD_BITMAP_MIN_SHARE = 1 / 32;

export const WORD_BITMAPS_DDL = `CREATE TABLE word_bitmaps (term TEXT PRIMARY KEY, df INTEGER NOT NULL, bits BLOB NOT NULL);`;

/** The FTS5 expression of one word in the transcript text. */
export function wordExpression(term: string): string {
  return `script : "${term.replaceAll('"', '""')}"`;
}

/** Whether `db` has word bitmaps of the version this code reads. */
export function hasWordBitmaps(db: Database.Database): boolean {
  const version = db.prepare("SELECT value FROM meta WHERE key = 'wordBitmaps'").pluck().get() as string | undefined;
  return version === WORD_BITMAPS_VERSION;
}
