/**
 * BM25 over a bounded candidate set. Document frequencies come from the
 * build (`term_stats`), term frequencies from the FTS5 index for rare terms
 * and from each candidate's text for the others (shard.ts, term-counts.ts),
 * document length is the stored word count.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface CorpusStats {
  documents: number;
  averageLength: number;
}

export function inverseDocumentFrequency(df: number, documents: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

export function bm25(frequencies: readonly number[], idf: readonly number[], length: number, stats: CorpusStats): number {
  const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / Math.max(1, stats.averageLength));
  let score = 0;
  frequencies.forEach((tf, i) => {
    if (tf > 0) score += (idf[i] ?? 0) * ((tf * (BM25_K1 + 1)) / (tf + norm));
  });
  return score;
}
