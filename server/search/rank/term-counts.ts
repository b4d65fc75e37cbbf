/**
 * Term frequencies for BM25, counted in the stored UTF-8 bytes of a
 * transcript without decoding it: the hot loop of scoring a query's
 * candidates, so it uses Buffer.indexOf (native memmem) per case form.
 *
 * In pure-ASCII text an ASCII term is counted in its lower-case, Capitalized
 * and UPPER-CASE forms (what captions contain; other mixed forms like "tHe"
 * are not counted). Text or terms with other characters are folded whole as
 * the index folds each token ("Brücken" is "brucken"; pipeline/artifact/text.ts), and
 * each term is counted where it stands as a whole token of the folded text.
 */
import { isAscii } from "node:buffer";
import { foldText } from "../../../pipeline/artifact/text.js";
import { isTokenUnitAt } from "../snippet/occurrences.js";

const ASCII_TERM = /^[a-z0-9]+$/;

function isWordByte(byte: number | undefined): boolean {
  if (byte === undefined) return false;
  // Bytes of multi-byte UTF-8 characters count as word characters: a letter like "é" next to a match makes it part of a longer word.
  return (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte >= 0x80;
}

function countForm(bytes: Buffer, form: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(form); at !== -1; at = bytes.indexOf(form, at + form.length)) {
    if (!isWordByte(bytes[at - 1]) && !isWordByte(bytes[at + form.length])) count++;
  }
  return count;
}

/**
 * Bytes of a transcript scanned for term frequencies (default 32 KiB, about
 * 5,000 words). Longer transcripts (the long tail, up to hours of speech) are
 * counted over this prefix and scaled to their length, which bounds the cost
 * of scoring a candidate: BM25 saturates in tf, so the estimate ranks alike.
 */
export const SCAN_BYTES = 32 * 1024;

export function countTerms(bytes: Buffer, terms: readonly string[], scanBytes = SCAN_BYTES): number[] {
  const scanned = bytes.length > scanBytes ? bytes.subarray(0, scanBytes) : bytes;
  const scale = bytes.length / Math.max(1, scanned.length);
  const counts = terms.every((t) => ASCII_TERM.test(t)) && isAscii(scanned)
    ? terms.map((term) => {
        const forms = new Set([term, term[0]!.toUpperCase() + term.slice(1), term.toUpperCase()]);
        let count = 0;
        for (const form of forms) count += countForm(scanned, Buffer.from(form, "latin1"));
        return count;
      })
    : countFolded(foldText(scanned.toString("utf8")), terms);
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
