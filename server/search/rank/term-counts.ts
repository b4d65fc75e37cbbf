/**
 * Term frequencies for BM25, counted in the stored UTF-8 bytes of a
 * transcript without decoding it: the hot loop of scoring a query's
 * candidates, so it uses Buffer.indexOf (native memmem) per case form.
 *
 * In pure-ASCII text an ASCII term is counted in its lower-case, Capitalized
 * and UPPER-CASE forms (what captions contain; other mixed forms like "tHe"
 * are not counted). Text or terms with other characters are folded whole as
 * the index folds each token ("Brücken" is "brucken"; pipeline/artifact/text.ts), and
 * each term is counted where it stands as a whole token of the folded text:
 * in the bytes folded one per character where the terms are ASCII and the
 * text is Latin script (`foldedBytes`, into a buffer reused from candidate to
 * candidate), else in the decoded text.
 */
import { isAscii } from "node:buffer";
import { FOLD_TABLE_RANGES, foldText, TOKEN_CHARACTER } from "../../../pipeline/artifact/text.js";
import { isTokenUnitAt } from "../snippet/occurrences.js";

/** A term counted in its case forms in ASCII text (else folded). */
export const ASCII_TERM = /^[a-z0-9]+$/;

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

/** What a count over the first `scanBytes` of a text of `length` bytes is multiplied by. */
export function scanScale(length: number, scanBytes = SCAN_BYTES): number {
  return length / Math.max(1, Math.min(length, scanBytes));
}

export function countTerms(bytes: Buffer, terms: readonly string[], scanBytes = SCAN_BYTES): number[] {
  const scanned = bytes.length > scanBytes ? bytes.subarray(0, scanBytes) : bytes;
  const scale = scanScale(bytes.length, scanBytes);
  const asciiTerms = terms.every((t) => ASCII_TERM.test(t));
  let counts: number[];
  if (asciiTerms && isAscii(scanned)) {
    counts = terms.map((term) => {
      const forms = new Set([term, term[0]!.toUpperCase() + term.slice(1), term.toUpperCase()]);
      let count = 0;
      for (const form of forms) count += countForm(scanned, Buffer.from(form, "latin1"));
      return count;
    });
  } else {
    const folded = asciiTerms ? foldedBytes(scanned) : undefined;
    counts = folded ? terms.map((term) => countForm(folded, Buffer.from(term, "latin1"))) : countFolded(foldText(scanned.toString("utf8")), terms);
  }
  return scale === 1 ? counts : counts.map((c) => c * scale);
}

/**
 * Where `foldedBytes` writes: one buffer for the whole process, grown as
 * needed, so folding a candidate allocates nothing. What it returns is valid
 * until the next fold (counting is synchronous).
 */
let scratch = Buffer.allocUnsafeSlow(2 * SCAN_BYTES);

function scratchOf(bytes: number): Buffer {
  if (scratch.length < bytes) scratch = Buffer.allocUnsafeSlow(Math.max(bytes, 2 * scratch.length));
  return scratch;
}

/** ASCII lower-cased, by byte. */
const LOWER_ASCII = Uint8Array.from({ length: 128 }, (_, byte) => (byte >= 65 && byte <= 90 ? byte + 32 : byte));

/** A folded character that is part of a token but not ASCII, and one that is part of none, as `foldedBytes` writes them. */
const FOLDED_WORD = 0x80;
const FOLDED_OTHER = 0x20;

/** By code point up to the fold table's end: the byte `foldedBytes` writes for a table character (0: not in the table). */
const FOLDED_BYTE = (() => {
  const table = new Uint8Array(Math.max(...FOLD_TABLE_RANGES.map(([, to]) => to)) + 1);
  for (const [from, to] of FOLD_TABLE_RANGES) {
    for (let code = from; code <= to; code++) {
      const folded = foldText(String.fromCharCode(code));
      const unit = folded.charCodeAt(0);
      table[code] = folded.length !== 1 ? 0 : unit < 0x80 ? unit : TOKEN_CHARACTER.test(folded) ? FOLDED_WORD : FOLDED_OTHER;
    }
  }
  return table;
})();

/**
 * UTF-8 text of ASCII and fold-table characters folded as `foldText` folds
 * it, one byte per character: ASCII lower-cased, a table character as its
 * fold where that is ASCII, else FOLDED_WORD or FOLDED_OTHER. An ASCII term
 * occurs as a whole token here exactly where it does in `foldText` of the
 * text, without decoding it to a string. Undefined for other text (other
 * scripts, combining marks, invalid UTF-8); a sequence cut off at the end
 * counts as one character of no token, as its decoding (U+FFFD) does.
 */
export function foldedBytes(buffer: Buffer): Buffer | undefined {
  const length = buffer.length;
  const out = scratchOf(length);
  // Plain typed-array views: element access on them compiles to less than on Buffers.
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, length);
  const to = new Uint8Array(out.buffer, out.byteOffset, length);
  let n = 0;
  let i = 0;
  while (i < length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      to[n++] = LOWER_ASCII[lead]!;
      i++;
      continue;
    }
    let code: number;
    let size: number;
    if (lead >= 0xc2 && lead <= 0xdf) {
      size = 2;
      if (i + size > length) break;
      const next = bytes[i + 1]!;
      if ((next & 0xc0) !== 0x80) return undefined;
      code = ((lead & 0x1f) << 6) | (next & 0x3f);
    } else if (lead >= 0xe0 && lead <= 0xef) {
      size = 3;
      if (i + size > length) break;
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      if ((b1 & 0xc0) !== 0x80 || (b2 & 0xc0) !== 0x80) return undefined;
      code = ((lead & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
    } else return undefined;
    const byte = code < FOLDED_BYTE.length ? FOLDED_BYTE[code]! : 0;
    // Outside the table, and overlong forms of ASCII (never written by a valid encoder), go the long way.
    if (byte === 0 || code < 0x80) return undefined;
    to[n++] = byte;
    i += size;
  }
  // A sequence cut off at the end: one character of no token.
  if (i < length) to[n++] = FOLDED_OTHER;
  return out.subarray(0, n);
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
