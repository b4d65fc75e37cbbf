/**
 * How many matches a query has: counted exactly up to a cap, estimated
 * above it.
 */
import type { CorpusStats } from "./rank/bm25.js";
import type { ShardQuery } from "./plan.js";

export interface ShardCount {
  total: number;
  totalExact: boolean;
}

/** The count from the list of all the words' matches, read up to `cap + 1` of them. */
export function countMatches(query: ShardQuery, listed: number, cap: number, df: (term: string) => number, stats: CorpusStats): ShardCount {
  if (listed <= cap) return { total: listed, totalExact: true };
  return { total: estimateTotal(query, cap, df, stats), totalExact: false };
}

/**
 * Above the cap, the total is estimated from document frequencies assuming
 * independent terms, bounded by the rarest term and by the filters, and
 * rounded to two significant digits so it reads as the estimate it is;
 * never at or below the cap.
 */
export function estimateTotal(query: ShardQuery, cap: number, df: (term: string) => number, stats: CorpusStats): number {
  const n = Math.max(1, stats.documents);
  const dfs = query.parsed.terms.map((t) => df(t));
  const rarest = Math.min(...dfs);
  let estimate = Math.min(Math.max(dfs.reduce((acc, d) => acc * (d / n), n), rarest * 0.5), rarest);
  if (query.channelTranscripts !== undefined) estimate = Math.min(estimate * (query.channelTranscripts / n) * 4, query.channelTranscripts);
  estimate *= Math.min(1, query.bounds.maxRank / n) * query.bounds.rowsShare;
  const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(1, estimate))) - 1);
  return Math.max(cap + 1, Math.round(estimate / magnitude) * magnitude);
}
