/**
 * Where the query terms occur in a text, found in one pass: the source of
 * both BM25 term frequencies and the snippet window. Terms are already
 * folded (pipeline/text.ts), so matching agrees with the FTS5 tokenizer.
 */
import { foldTerm } from "../../pipeline/text.js";

export interface Occurrences {
  /** Occurrences of each term, by term index. */
  counts: number[];
  /** Flat triples (start, end, term index), sorted by start, in UTF-16 offsets of the text. */
  spans: number[];
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/;

function isAsciiWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

export function findOccurrences(text: string, terms: readonly string[]): Occurrences {
  const counts = new Array<number>(terms.length).fill(0);
  const found: [number, number, number][] = [];
  if (ASCII_ONLY.test(text) && terms.every((t) => ASCII_ONLY.test(t))) {
    // Lower-casing ASCII keeps offsets, and indexOf is far faster than a regex with lookarounds.
    const lower = text.toLowerCase();
    terms.forEach((term, i) => {
      for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + term.length)) {
        const end = at + term.length;
        if ((at === 0 || !isAsciiWordCode(lower.charCodeAt(at - 1))) && (end === lower.length || !isAsciiWordCode(lower.charCodeAt(end)))) {
          counts[i]!++;
          found.push([at, end, i]);
        }
      }
    });
  } else {
    const position = new Map(terms.map((t, i) => [t, i]));
    for (const match of text.matchAll(TOKEN)) {
      const i = position.get(foldTerm(match[0]));
      if (i !== undefined) {
        counts[i]!++;
        found.push([match.index, match.index + match[0].length, i]);
      }
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  return { counts, spans: found.flat() };
}

export function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD_CHAR.test(char);
}
