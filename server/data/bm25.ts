/**
 * BM25 over a bounded candidate set. Document frequencies come from the
 * build (`term_stats`), term frequencies from counting the query terms in
 * each candidate's text, document length is the stored word count.
 */
import { tokenize } from "../../pipeline/text.js";

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface CorpusStats {
  documents: number;
  averageLength: number;
}

export function inverseDocumentFrequency(df: number, documents: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/** Counts occurrences of each term (already folded) in `text`, as the index tokenizer would see them. */
export function termFrequencies(text: string, terms: readonly string[]): number[] {
  const counts = new Array<number>(terms.length).fill(0);
  const position = new Map(terms.map((t, i) => [t, i]));
  // Plain ASCII text (the common case) is scanned with one regex; anything
  // else goes through the full tokenizer so diacritics fold exactly as in FTS5.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text) && terms.every((t) => /^[a-z0-9]+$/.test(t))) {
    const pattern = new RegExp(`(?<![A-Za-z0-9])(?:${terms.join("|")})(?![A-Za-z0-9])`, "gi");
    for (const match of text.matchAll(pattern)) {
      const i = position.get(match[0].toLowerCase());
      if (i !== undefined) counts[i] = (counts[i] ?? 0) + 1;
    }
    return counts;
  }
  for (const token of tokenize(text)) {
    const i = position.get(token);
    if (i !== undefined) counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts;
}

export function bm25(frequencies: readonly number[], idf: readonly number[], length: number, stats: CorpusStats): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(1, stats.averageLength));
  let score = 0;
  frequencies.forEach((tf, i) => {
    if (tf > 0) score += (idf[i] ?? 0) * ((tf * (BM25_K1 + 1)) / (tf + norm));
  });
  return score;
}
