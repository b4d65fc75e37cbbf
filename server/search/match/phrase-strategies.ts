/**
 * The ways of finding the phrase tier's first matches without FTS5's phrase
 * query of the words, which walks the position lists of every word through
 * every transcript holding them all:
 * - `pairIndexPhrase`: the phrase of the phrase's consecutive pairs in the
 *   phrase-pair index (pipeline/artifact/search-index/phrase-pairs.ts), exact; with a
 *   very common interior pair left out and the candidates confirmed in
 *   their text where that pair's list is long;
 * - `nearPhrase`: NEAR(rarest, second rarest, their distance in the phrase),
 *   each candidate confirmed in its text, when those two terms are not too
 *   common to make NEAR cheap.
 * Where neither applies, the tier is FTS5's phrase query (shard.ts).
 */
import { phrasePairs } from "../../../pipeline/artifact/search-index/index.js";
import type { ShardQuery } from "../plan.js";
import type { ScoringRow, ShardTexts } from "../texts.js";
import type { MatchList } from "./match-list.js";
import { containsPhrase } from "./phrase.js";
import type { MatchRequest, MatchStrategy } from "./strategy.js";

/** The phrase tier's query on the phrase-pair index: the phrase of the phrase's pairs, and the channel filter. */
export function pairsExpression(query: ShardQuery): string {
  return `${query.filter}pairs : "${phrasePairs(query.parsed.phraseTerms!).join(" ")}"`;
}

/** The phrase's terms, rarest first, with their positions; undefined for a query without a phrase. */
function rankedTerms(request: MatchRequest): { term: string; position: number; df: number }[] | undefined {
  const terms = request.query.parsed.phraseTerms;
  if (!terms || terms.length < 2) return undefined;
  return terms.map((term, position) => ({ term, position, df: request.df(term) })).sort((a, b) => a.df - b.df);
}

/**
 * The term the text is searched for first when confirming (containsPhrase's
 * anchor): the longest, so that it stands inside fewer other words ("d" in
 * "i d do it" is in most of them); of those, the rarest.
 */
export function anchorOf(ranked: readonly { term: string; position: number; df: number }[]): number {
  let best = ranked[0]!;
  for (const r of ranked) if (r.term.length > best.term.length) best = r;
  return best.position;
}

/** Confirming costs a read of the text for each candidate that fails: past k/2 of them, an exact query is cheaper. */
function maxFailures(k: number): number {
  return Math.max(8, Math.floor(k / 2));
}

/**
 * The first `k` of `candidates` (rowid order) that contain the phrase,
 * each read and checked in its text; undefined once more than
 * `maxFailures` do not.
 */
function confirmPhrase(
  texts: ShardTexts,
  candidates: number[],
  terms: readonly string[],
  anchor: number,
  k: number,
  failuresAllowed: number,
): Map<number, ScoringRow> | undefined {
  const confirmed = new Map<number, ScoringRow>();
  let failures = 0;
  // The first k are read whatever happens; the rest only as far as failures make room for them.
  texts.prefetch(candidates.slice(0, k));
  for (const [at, id] of candidates.entries()) {
    if (confirmed.size === k) break;
    if (at === k) texts.prefetch(candidates.slice(k));
    const row = texts.scoringRow(id);
    if (containsPhrase(row.bytes, terms, anchor)) confirmed.set(id, row);
    else if (++failures > failuresAllowed) return undefined;
  }
  return confirmed;
}

/**
 * A pair of two very common words inside a phrase (`to_the` in "led to
 * the appropriate") has a list nearly as long as its words': the phrase
 * of pairs walks it through every transcript holding the other pairs. Its
 * neighbours hold both its words, so it can be left out: the query is
 * then the pairs before it and the pairs after it, NEAR at a distance of
 * one token, a superset of the phrase's matches to confirm in the text.
 * undefined when the phrase has no such interior pair (its first and last
 * pairs are never left out).
 */
function pairsWithoutCommonPair(request: MatchRequest, nearTermMaxShare: number): string | undefined {
  const { query } = request;
  const terms = query.parsed.phraseTerms!;
  const pairs = phrasePairs(terms);
  const ceiling = request.documents() * nearTermMaxShare;
  let skip = -1;
  let skipDf = 0;
  for (let i = 1; i < pairs.length - 1; i++) {
    const df = Math.min(request.df(terms[i]!), request.df(terms[i + 1]!));
    if (df > ceiling && df > skipDf) [skip, skipDf] = [i, df];
  }
  if (skip < 0) return undefined;
  return `${query.filter}pairs : NEAR("${pairs.slice(0, skip).join(" ")}" "${pairs.slice(skip + 1).join(" ")}", 1)`;
}

/** The phrase's matches from the phrase-pair index (`pairs`: its lists in rank order); answers every phrase query. */
export function pairIndexPhrase(pairs: MatchList, texts: ShardTexts, nearTermMaxShare: number): MatchStrategy {
  return {
    name: "phrase-pairs",
    find(request) {
      const ranked = rankedTerms(request);
      if (!ranked) return undefined;
      const { query, limit: k } = request;
      const exact = () => pairs(pairsExpression(query), query.bounds, k, 0);
      const near = pairsWithoutCommonPair(request, nearTermMaxShare);
      if (near === undefined) return exact();
      const failuresAllowed = maxFailures(k);
      const candidates = pairs(near, query.bounds, k + failuresAllowed + 1, 0);
      return confirmPhrase(texts, candidates, query.parsed.phraseTerms!, anchorOf(ranked), k, failuresAllowed) ?? exact();
    },
  };
}

/** The phrase's matches through NEAR of its two rarest terms in the word index (`matches`), confirmed in the text. */
export function nearPhrase(matches: MatchList, texts: ShardTexts, nearTermMaxShare: number): MatchStrategy {
  return {
    name: "near",
    find(request) {
      const ranked = rankedTerms(request);
      if (!ranked) return undefined;
      const { query, limit: k } = request;
      const rarest = ranked[0]!;
      const second = ranked.find((r) => r.term !== rarest.term);
      if (!second || second.df > request.documents() * nearTermMaxShare) return undefined;
      const [left, right] = rarest.position < second.position ? [rarest, second] : [second, rarest];
      const near = `${query.filter}script : NEAR("${left.term}" "${right.term}", ${right.position - left.position - 1})`;
      // NEAR is unordered and allows up to the distance: often, but not always, its candidates are the phrase.
      // Running out of these before k are confirmed means more than maxFailures failed, so this many always suffice.
      const failuresAllowed = maxFailures(k);
      const candidates = matches(near, query.bounds, k + failuresAllowed + 1, 0);
      return confirmPhrase(texts, candidates, query.parsed.phraseTerms!, anchorOf(ranked), k, failuresAllowed);
    },
  };
}
