/**
 * Where the query terms occur in a text, found in one pass: the source of
 * both BM25 term frequencies and the snippet window. Terms are already
 * folded (pipeline/artifact/text.ts), so matching agrees with the FTS5 tokenizer.
 */
import { foldKeepingOffsets, foldTerm, TOKEN, TOKEN_CHARACTER } from "../../../pipeline/artifact/text.js";

export interface Occurrences {
  /** Occurrences of each term, by term index. */
  counts: number[];
  /** Flat triples (start, end, term index), sorted by start, in UTF-16 offsets of the text. */
  spans: number[];
}

// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/;

function isAsciiWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/**
 * `maxSpans` stops collecting spans (and counting) once that many are found
 * in text order; a snippet needs only the first few dozen. `asciiText`:
 * whether the text is pure ASCII, where the caller knows (a check of its
 * bytes, `isAscii`, is many times quicker than one of the string).
 */
export function findOccurrences(text: string, terms: readonly string[], maxSpans = Infinity, asciiText?: boolean): Occurrences {
  const counts = new Array<number>(terms.length).fill(0);
  const found: [number, number, number][] = [];
  const asciiTerms = terms.every((t) => ASCII_ONLY.test(t));
  // Lower-casing ASCII keeps offsets, and indexOf is far faster than a regex with lookarounds.
  const lower = (asciiText ?? ASCII_ONLY.test(text)) && asciiTerms ? text.toLowerCase() : undefined;
  // Other text is folded whole where that keeps offsets (most text in Latin script), else token by token.
  const folded = lower ?? foldKeepingOffsets(text);
  if (folded !== undefined) {
    terms.forEach((term, i) => {
      let seen = 0;
      for (let at = folded.indexOf(term); at !== -1 && seen < maxSpans; at = folded.indexOf(term, at + term.length)) {
        const end = at + term.length;
        if ((at === 0 || !isTokenUnitAt(text, at - 1)) && (end === folded.length || !isTokenUnitAt(text, end))) {
          counts[i]!++;
          seen++;
          found.push([at, end, i]);
        }
      }
    });
  } else {
    occurrencesTokenByToken(text, terms, maxSpans, counts, found);
  }
  return finish(found, counts, terms.length, maxSpans);
}

/** findOccurrences by folding each token of the text (any text): what the quicker paths must agree with (test/search/snippet.test.ts). */
export function findOccurrencesTokenByToken(text: string, terms: readonly string[], maxSpans = Infinity): Occurrences {
  const counts = new Array<number>(terms.length).fill(0);
  const found: [number, number, number][] = [];
  occurrencesTokenByToken(text, terms, maxSpans, counts, found);
  return finish(found, counts, terms.length, maxSpans);
}

function occurrencesTokenByToken(text: string, terms: readonly string[], maxSpans: number, counts: number[], found: [number, number, number][]): void {
  const position = new Map(terms.map((t, i) => [t, i]));
  for (const match of text.matchAll(TOKEN)) {
    if (found.length >= maxSpans * terms.length) break;
    const i = position.get(foldTerm(match[0]));
    if (i !== undefined) {
      counts[i]!++;
      found.push([match.index, match.index + match[0].length, i]);
    }
  }
}

function finish(found: [number, number, number][], counts: number[], termCount: number, maxSpans: number): Occurrences {
  found.sort((a, b) => a[0] - b[0]);
  // Per term, the first maxSpans occurrences were kept; cut where the earliest-ending term's run stopped,
  // so the kept spans are exactly all occurrences in a prefix of the text.
  const kept = Number.isFinite(maxSpans) ? keepCompletePrefix(found, termCount, maxSpans) : found;
  return { counts, spans: kept.flat() };
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

export function isWordChar(char: string | undefined): boolean {
  return char !== undefined && TOKEN_CHARACTER.test(char);
}

function keepCompletePrefix(found: [number, number, number][], termCount: number, maxSpans: number): [number, number, number][] {
  const seen = new Array<number>(termCount).fill(0);
  let limit = Infinity;
  for (const [start, , term] of found) {
    seen[term]!++;
    if (seen[term] === maxSpans) limit = Math.min(limit, start);
  }
  return limit === Infinity ? found : found.filter(([start]) => start <= limit);
}
