/**
 * Term frequencies for BM25, counted in the stored UTF-8 bytes of a
 * transcript without decoding it (the hot loop of scoring a query's
 * candidates): the bytes, read as a Latin-1 string (a copy, not a
 * decoding), are searched with String#indexOf per case form.
 *
 * In pure-ASCII text an ASCII term is counted in its lower-case, Capitalized
 * and UPPER-CASE forms (what captions contain; other mixed forms like "tHe"
 * are not counted). Text or terms with other characters are folded whole as
 * the index folds each token ("Brücken" is "brucken"; pipeline/artifact/text/text.ts), and
 * each term is counted where it stands as a whole token of the folded text:
 * in the bytes folded one per character where the terms are ASCII and the
 * text is Latin script (`foldedBytes`, into a buffer reused from candidate to
 * candidate), else in the decoded text.
 */
import { isAscii } from "node:buffer";
import { ASCII_TERM, foldedBytes, foldText, isTokenUnitAt, nextWholeWord } from "../../../pipeline/artifact/text/index.js";
import { SCAN_BYTES, scanScale } from "../../../pipeline/artifact/search-index/index.js";

export { SCAN_BYTES, scanScale };

function countForm(text: string, form: string): number {
  let count = 0;
  for (let at = nextWholeWord(text, form, 0); at !== -1; at = nextWholeWord(text, form, at + form.length)) count++;
  return count;
}

/**
 * Whole-word occurrences of each term in ASCII text in its lower-case,
 * Capitalized or UPPER-CASE form. The text is lower-cased once and each term
 * looked for there once, each place it stands then checked for one of its
 * forms in the text, instead of one search of the text per form. Lower-casing
 * ASCII keeps offsets and which characters are word characters, and two
 * whole-word places of a term never overlap, so the count is the same.
 */
function countCaseForms(text: string, terms: readonly string[]): number[] {
  const lower = text.toLowerCase();
  return terms.map((term) => {
    const capitalized = term[0]!.toUpperCase() + term.slice(1);
    const upper = term.toUpperCase();
    let count = 0;
    for (let at = nextWholeWord(lower, term, 0); at !== -1; at = nextWholeWord(lower, term, at + term.length)) {
      if (text.startsWith(term, at) || text.startsWith(capitalized, at) || text.startsWith(upper, at)) count++;
    }
    return count;
  });
}

export function countTerms(bytes: Buffer, terms: readonly string[], scanBytes = SCAN_BYTES): number[] {
  const scanned = bytes.length > scanBytes ? bytes.subarray(0, scanBytes) : bytes;
  const scale = scanScale(bytes.length, scanBytes);
  const asciiTerms = terms.every((t) => ASCII_TERM.test(t));
  let counts: number[];
  if (asciiTerms && isAscii(scanned)) {
    counts = countCaseForms(scanned.toString("latin1"), terms);
  } else {
    const folded = asciiTerms ? foldedBytes(scanned)?.toString("latin1") : undefined;
    counts = folded !== undefined ? terms.map((term) => countForm(folded, term)) : countFolded(foldText(scanned.toString("utf8")), terms);
  }
  return scale === 1 ? counts : counts.map((c) => c * scale);
}

/** Occurrences of each (folded) term as a whole token of a folded text. */
function countFolded(folded: string, terms: readonly string[]): number[] {
  return terms.map((term) => {
    let count = 0;
    for (let at = folded.indexOf(term); at !== -1; at = folded.indexOf(term, at + term.length)) {
      const end = at + term.length;
      if ((at === 0 || !isTokenUnitAt(folded, at - 1)) && (end === folded.length || !isTokenUnitAt(folded, end))) count++;
    }
    return count;
  });
}
