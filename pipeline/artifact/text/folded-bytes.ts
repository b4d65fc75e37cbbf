/**
 * A transcript's UTF-8 bytes folded as the index folds its tokens, one byte
 * per character, and whole words found in them: what ranking counts terms
 * in (server/search/rank/term-counts.ts, and the build's stored counts) and
 * snippets find them in (server/search/snippet/occurrences.ts),
 * without decoding the text to a string first.
 */
import { FOLD_TABLE_RANGES, foldText, TOKEN_CHARACTER } from "./text.js";

/** A term of ASCII letters and digits: counted in its case forms in ASCII text, else in folded bytes (or the decoded text). */
export const ASCII_TERM = /^[a-z0-9]+$/;

/** Whether a character of ASCII or folded bytes read as Latin-1 is part of a word (NaN, past either end: no). */
function isWordCode(code: number): boolean {
  // Bytes of multi-byte UTF-8 characters count as word characters: a letter like "é" next to a match makes it part of a longer word.
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code >= 0x80;
}

/**
 * Where `form` next stands in `text` (ASCII or folded bytes read as
 * Latin-1) from `from` with no word character either side (-1: nowhere).
 * A place it stands with a word character beside it lies inside a longer
 * word, so the search goes on past it. The bytes are searched as a string:
 * String#indexOf costs a fraction of Buffer#indexOf per call, and a short
 * term ("en" in French text) stands inside hundreds of longer words.
 */
export function nextWholeWord(text: string, form: string, from: number): number {
  for (let at = text.indexOf(form, from); at !== -1; at = text.indexOf(form, at + form.length)) {
    if (!isWordCode(text.charCodeAt(at - 1)) && !isWordCode(text.charCodeAt(at + form.length))) return at;
  }
  return -1;
}

/**
 * Where `foldedBytes` writes: one buffer for the whole process, grown as
 * needed, so folding a candidate allocates no buffer. What it returns is valid
 * until the next fold (counting is synchronous).
 */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

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
 * text, without decoding it to a string, and at the UTF-16 offset where it
 * stands in the decoded text (every character folded is one UTF-16 unit).
 * Undefined for other text (other scripts, combining marks, invalid UTF-8);
 * a sequence cut off at the end counts as one character of no token, as its
 * decoding (U+FFFD) does.
 */
export function foldedBytes(buffer: Buffer): Buffer | undefined {
  const length = buffer.length;
  const out = scratchOf(length);
  // Plain typed-array views: element access on them compiles to less than on Buffers.
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, length);
  const to = new Uint8Array(out.buffer, out.byteOffset, length);
  const words = new DataView(buffer.buffer, buffer.byteOffset, length);
  const wordsTo = new DataView(out.buffer, out.byteOffset, length);
  let n = 0;
  let i = 0;
  while (i < length) {
    // Most of Latin-script text is ASCII: four bytes at a time while they are, lower-cased at once.
    while (i + 4 <= length) {
      const word = words.getUint32(i, true);
      if ((word & 0x80808080) !== 0) break;
      wordsTo.setUint32(n, lowerAscii4(word), true);
      i += 4;
      n += 4;
    }
    if (i === length) break;
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

/**
 * Four ASCII bytes (little-endian, each below 0x80) lower-cased at once: a
 * byte gets 0x20 where it lies in "A".."Z" (adding 0x3f sets its high bit
 * from "A" up, adding 0x25 from "[" up; no sum carries into the next byte).
 */
function lowerAscii4(word: number): number {
  const upper = (word + 0x3f3f3f3f) & ~(word + 0x25252525) & 0x80808080;
  return word | (upper >>> 2);
}

function isAsciiWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/** Whether the UTF-16 unit at `at` belongs to a letter, digit or mark (either half of a surrogate pair counts as its character). */
export function isTokenUnitAt(text: string, at: number): boolean {
  const unit = text.charCodeAt(at);
  if (unit < 128) return isAsciiWordCode(unit);
  let code = unit;
  const high = at > 0 ? text.charCodeAt(at - 1) : 0;
  if (unit >= 0xdc00 && unit <= 0xdfff && high >= 0xd800 && high <= 0xdbff) code = text.codePointAt(at - 1)!;
  else if (unit >= 0xd800 && unit <= 0xdbff) code = text.codePointAt(at)!;
  return TOKEN_CHARACTER.test(String.fromCodePoint(code));
}
