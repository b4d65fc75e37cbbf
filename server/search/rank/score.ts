/**
 * Scoring a tier's candidates: BM25 with the term frequencies from the
 * cheapest source for each term, times the title and channel boost.
 */
import type { ScoringRow, ShardTexts } from "../texts.js";
import { bm25, inverseDocumentFrequency, type CorpusStats } from "./bm25.js";
import type { IndexTermCounts } from "./index-term-counts.js";
import { TermVectors } from "../../../pipeline/artifact/search-index/index.js";
import { ASCII_TERM } from "../../../pipeline/artifact/text/index.js";
import { countTerms } from "./term-counts.js";

export interface Scored {
  id: number;
  score: number;
  views: number;
}

/** Best score first; on equal scores, more views first. */
export function compareScored(a: Scored, b: Scored): number {
  return b.score - a.score || b.views - a.views;
}

export interface ScoreOptions {
  /** Terms in more than this share of transcripts are scored as present (tf = 1) instead of counted. */
  countTermMaxShare: number;
  /** Terms in at most this many transcripts are counted from the FTS5 index rather than in the candidates' text. */
  indexCountMaxDf: number;
}

export interface ScoreInputs {
  terms: readonly string[];
  /** Each term's document frequency, in `terms` order. */
  dfs: readonly number[];
  corpus: CorpusStats;
  candidates: readonly number[];
  /** Rows already read for the candidates (a phrase confirmed in their text). */
  confirmed?: ReadonlyMap<number, ScoringRow> | undefined;
  /** Multipliers by candidate (rank/title-boost.ts). */
  boosts: ReadonlyMap<number, number>;
}

/** The candidates scored, best first (compareScored). */
export function scoreCandidates(inputs: ScoreInputs, options: ScoreOptions, texts: ShardTexts, indexCounts: IndexTermCounts): Scored[] {
  const { terms, dfs, corpus, candidates, confirmed, boosts } = inputs;
  const idf = dfs.map((df) => inverseDocumentFrequency(df, corpus.documents));
  // Every candidate contains every term (the tiers AND them), so tf ≥ 1. Terms in most transcripts
  // ("the", "i") carry almost no idf and are costly to count: they are scored as present, tf = 1.
  const counted = terms.flatMap((_, i) => (dfs[i]! <= corpus.documents * options.countTermMaxShare ? [i] : []));
  // Rare terms are counted from the index (their few occurrences), the others in each candidate's text.
  const fromIndex = new Map<number, Map<number, number>>();
  for (const i of counted) {
    if (dfs[i]! <= options.indexCountMaxDf) fromIndex.set(i, indexCounts.count(terms[i]!, candidates));
  }
  const inText = counted.filter((i) => !fromIndex.has(i));
  const inTextTerms = inText.map((i) => terms[i]!);
  // Where the build's counts of a candidate are held, nothing of its row is read (the same counts); where a
  // confirmed phrase read its text already, decoding them still costs less than counting in the text.
  const storedIds = inText.length > 0 ? texts.storedTermIds(inTextTerms) : undefined;
  if (inText.length > 0 && !confirmed) texts.prefetch(storedIds ? candidates.filter((id) => !texts.hasStoredCounts(id)) : candidates);
  // Where a candidate held in memory has its terms counted already, they are looked up (the same counts).
  const vectorIds = inText.length > 0 && inTextTerms.every((t) => ASCII_TERM.test(t)) ? texts.termIds(inTextTerms) : undefined;
  const scored = candidates.map((id) => {
    const frequencies = new Array<number>(terms.length).fill(1);
    for (const [i, counts] of fromIndex) frequencies[i] = Math.max(1, counts.get(id) ?? 1);
    let row: { words: number; views: number; bytes?: Buffer };
    const stored = storedIds && texts.storedCounts(id, storedIds);
    if (inText.length === 0) row = confirmed?.get(id) ?? texts.counts(id);
    else if (stored) {
      row = stored;
      stored.tfs.forEach((tf, j) => (frequencies[inText[j]!] = Math.max(1, tf)));
    } else {
      row = confirmed?.get(id) ?? texts.scoringRow(id);
      const vector = vectorIds && texts.termVector(id);
      const tfs = vector ? TermVectors.termCounts(vector, vectorIds, row.bytes!.length) : countTerms(row.bytes!, inTextTerms);
      tfs.forEach((tf, j) => (frequencies[inText[j]!] = Math.max(1, tf)));
    }
    const base = bm25(frequencies, idf, row.words, corpus);
    return { id, score: base * (boosts.get(id) ?? 1), views: row.views };
  });
  return scored.sort(compareScored);
}
