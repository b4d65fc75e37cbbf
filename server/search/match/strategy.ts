/**
 * The one interface every way of finding matches implements: the phrase
 * tier's ways (the phrase-pair index, NEAR confirmed in the text, FTS5's
 * phrase query) and the ways of listing all the words' matches (the word
 * bitmaps, FTS5). Each is asked in turn; the first that answers is used, so
 * a cheaper way that does not apply to a query simply passes it on. Every
 * way gives the same list (tested against each other).
 */
import type { ShardQuery } from "../plan.js";
import type { ScoringRow } from "../texts.js";

/** What a strategy is asked for: the first `limit` matches of `query` in rowid order. */
export interface MatchRequest {
  query: ShardQuery;
  limit: number;
  /** The document frequency of a term (looked up once per query where the caller has them). */
  df(term: string): number;
  /** Transcripts in the collection, for the shares the strategies compare frequencies with. */
  documents(): number;
}

/**
 * The matches, or undefined when this way does not apply to the query (or
 * would cost more than the next way). A Map when the strategy read each
 * match's text to confirm it: the rows are kept for scoring.
 */
export type MatchAnswer = number[] | Map<number, ScoringRow>;

export interface MatchStrategy {
  /** A short name for tests and measurements. */
  readonly name: string;
  find(request: MatchRequest): MatchAnswer | undefined;
}

/** The answer of the first strategy that gives one, and its name; undefined when none does. */
export function firstAnswer(strategies: readonly MatchStrategy[], request: MatchRequest): { by: string; matches: MatchAnswer } | undefined {
  for (const strategy of strategies) {
    const matches = strategy.find(request);
    if (matches !== undefined) return { by: strategy.name, matches };
  }
  return undefined;
}
