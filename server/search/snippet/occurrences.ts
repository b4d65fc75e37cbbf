/**
 * Where the query terms occur in a text, found in one pass: the source of
 * both BM25 term frequencies and the snippet window. Terms are already
 * folded (pipeline/artifact/text/text.ts), so matching agrees with the FTS5 tokenizer.
 */
import { ASCII_TERM, foldedBytes, foldKeepingOffsets, foldTerm, isTokenUnitAt, nextWholeWord, TOKEN, TOKEN_CHARACTER } from "../../../pipeline/artifact/text/index.js";

export interface Occurrences {
  /** Occurrences of each term, by term index. */
  counts: number[];
  /** Flat triples (start, end, term index), sorted by start, in UTF-16 offsets of the text. */
  spans: number[];
}

// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/**
 * `maxSpans` stops collecting spans once that many of a term are found in
 * text order; a snippet needs only the first few dozen. The spans and counts
 * are then those of a prefix of the text (`finish`). `asciiText`: whether
 * the text is pure ASCII, where the caller knows (a check of its bytes,
 * `isAscii`, is many times quicker than one of the string). `bytes`: the
 * text's UTF-8 bytes, where the caller has them: other text is then folded
 * from its bytes where it can be (`occurrencesInBytes`), several times
 * quicker than folding the string.
 */
export function findOccurrences(text: string, terms: readonly string[], maxSpans = Infinity, asciiText?: boolean, bytes?: Buffer): Occurrences {
  const counts = new Array<number>(terms.length).fill(0);
  const found: [number, number, number][] = [];
  const asciiTerms = terms.every((t) => ASCII_ONLY.test(t));
  // Lower-casing ASCII keeps offsets, and indexOf is far faster than a regex with lookarounds.
  const lower = (asciiText ?? ASCII_ONLY.test(text)) && asciiTerms ? text.toLowerCase() : undefined;
  if (lower === undefined && bytes !== undefined && terms.every((t) => ASCII_TERM.test(t))) {
    const fromBytes = occurrencesInBytes(bytes, terms, maxSpans);
    if (fromBytes !== undefined) return fromBytes;
  }
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

/** Bytes of a text folded first when spans are capped: a snippet's spans mostly lie in the text's opening. */
export const FOLD_FIRST_BYTES = 16 * 1024;

/**
 * findOccurrences of ASCII terms in a text's bytes folded (`foldedBytes`: one
 * byte per UTF-16 unit of the text, so an offset there is one in the text);
 * undefined where they cannot be folded. With a cap, the text's first
 * FOLD_FIRST_BYTES are folded first: when a term reaches the cap there, every
 * span kept (those of the prefix up to it) lies there with the character
 * after it, and the rest of the text is not folded.
 */
function occurrencesInBytes(bytes: Buffer, terms: readonly string[], maxSpans: number): Occurrences | undefined {
  const longest = Math.max(...terms.map((term) => term.length));
  let scanned = Number.isFinite(maxSpans) ? Math.min(bytes.length, FOLD_FIRST_BYTES) : bytes.length;
  for (;;) {
    const folded = foldedBytes(scanned === bytes.length ? bytes : bytes.subarray(0, scanned))?.toString("latin1");
    if (folded === undefined) return undefined;
    const counts = new Array<number>(terms.length).fill(0);
    const found: [number, number, number][] = [];
    let cappedAt = Infinity;
    terms.forEach((term, i) => {
      for (let at = nextWholeWord(folded, term, 0); at !== -1 && counts[i]! < maxSpans; at = nextWholeWord(folded, term, at + term.length)) {
        counts[i]!++;
        found.push([at, at + term.length, i]);
        if (counts[i] === maxSpans) cappedAt = Math.min(cappedAt, at);
      }
    });
    // An opening's last character may be one cut off, so what is kept must end before it.
    if (scanned === bytes.length || cappedAt + longest < folded.length - 1) return finish(found, counts, terms.length, maxSpans);
    scanned = bytes.length;
  }
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
  if (!Number.isFinite(maxSpans)) return { counts, spans: found.flat() };
  // Per term, the first maxSpans occurrences were kept; cut where the earliest-ending term's run stopped,
  // so the kept spans are exactly all occurrences in a prefix of the text, and what is counted is what is kept.
  const kept = keepCompletePrefix(found, termCount, maxSpans);
  const keptCounts = new Array<number>(termCount).fill(0);
  for (const [, , term] of kept) keptCounts[term]!++;
  return { counts: keptCounts, spans: kept.flat() };
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
