/**
 * The phrase-pair index of an artifact set: for each transcript, every two
 * consecutive terms of its text as one token (`men_cut`, `cut_a`), in a
 * contentless FTS5 table with positions.
 *
 * Why: FTS5 answers a phrase by walking the position lists of all its terms
 * through every transcript that holds them all. In transcripts most words
 * are common, so a rare phrase of common words ("men cut a": 7 matches,
 * every word in a fifth or more of 500,000 transcripts) read position lists
 * through a large part of the collection, tens of milliseconds
 * (BENCHMARKS.md). A phrase of terms is the phrase of its consecutive pairs
 * (`"men_cut cut_a"`), which FTS5 answers exactly; a pair is mostly far
 * rarer than either of its words, so its list is short. A pair of two very
 * common words (`to_the`) still has a long one; the search leaves it out
 * where it can (the server's search).
 *
 * Terms are the index's own (text.ts), joined by `_`, which no term
 * contains. The `chan` column holds the channel's token, as in the transcript
 * index, so a channel filter reads the same in both.
 *
 * This module is the format both sides read; the build is
 * pipeline/build/build-phrase-pairs.ts.
 */
import type Database from "better-sqlite3";
import { PHRASE_PAIRS_VERSION } from "../contract/index.js";
import { tokenize } from "../text/index.js";

/** Pair tokens are already folded: the tokenizer only has to keep `_` inside them. */
export const PHRASE_PAIRS_DDL = `
CREATE VIRTUAL TABLE phrase_pairs USING fts5(
  pairs, chan,
  content = '',
  tokenize = "unicode61 remove_diacritics 0 tokenchars '_'"
);`;

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_SEPARATORS = /[^a-z0-9]+/;

/** The token of two consecutive terms. */
export function pairToken(left: string, right: string): string {
  return `${left}_${right}`;
}

/**
 * The pair tokens of a text, space-separated. ASCII text is split on what
 * is not a letter or digit after lower-casing, which is what the tokenizer
 * does to it, without a regular-expression match per token.
 */
export function pairText(text: string): string {
  const terms = ASCII.test(text) ? text.toLowerCase().split(ASCII_SEPARATORS) : tokenize(text);
  const pairs: string[] = [];
  let previous = "";
  for (const term of terms) {
    if (term.length === 0) continue;
    if (previous.length > 0) pairs.push(pairToken(previous, term));
    previous = term;
  }
  return pairs.join(" ");
}

/** The pairs of a phrase's terms, in order, repeats kept: as a phrase, they match where the terms do. */
export function phrasePairs(terms: readonly string[]): string[] {
  return terms.slice(1).map((term, i) => pairToken(terms[i]!, term));
}

/** Whether `db` has a phrase-pair index of the version this code reads. */
export function hasPhrasePairs(db: Database.Database): boolean {
  const version = db.prepare("SELECT value FROM meta WHERE key = 'phrasePairs'").pluck().get() as string | undefined;
  return version === PHRASE_PAIRS_VERSION;
}
