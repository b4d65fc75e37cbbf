/**
 * Searches run once at start, before the server listens, so that a fresh
 * process has compiled each path a search can take and prepared its
 * statements before the first user's search. Without them the first
 * searches after a start each paid for a path seen for the first time: at
 * 50,000 videos, in a fresh process, 11-83 ms for searches that take 1-6 ms
 * once that path has run (by hand); at 500,000 the first of the bench's
 * searches (`seen`, one frequent word) was its slowest, 42.6 ms.
 *
 * The queries are words of the set's own most viewed transcripts, one of
 * each kind of work: a word in most transcripts, one counted in the
 * candidates' text, one counted from the index, two consecutive words (the
 * phrase tier, the pair index, the second tier), the same with a popularity
 * bound, and a page past the ranked head. The caller empties the result
 * cache afterwards: nothing they compute is kept for the users' searches.
 */
import type { SearchParams } from "../../data/catalog.js";
import { tokenize } from "../../../pipeline/artifact/text.js";

export interface WarmUpOptions {
  /** Transcripts in the set. */
  documents: number;
  /** Terms in at most this many transcripts are counted from the index (SearchOptions.indexCountMaxDf). */
  indexCountMaxDf: number;
  /** Terms in more than this share are scored as present (SearchOptions.countTermMaxShare). */
  countTermMaxShare: number;
  /** A view count that bounds the matches to the most viewed part of the set. */
  minViews: number;
}

/** At most this many words of the sample are looked up. */
const SAMPLE_WORDS = 2000;

export function warmUpQueries(text: string, df: (term: string) => number, options: WarmUpOptions): SearchParams[] {
  const words = tokenize(text).slice(0, SAMPLE_WORDS);
  if (words.length === 0) return [];
  const dfOf = new Map<string, number>();
  for (const word of words) if (!dfOf.has(word)) dfOf.set(word, df(word));
  const counted = options.documents * options.countTermMaxShare;
  const byDf = [...dfOf].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const frequent = byDf[0]?.[0];
  const inText = byDf.find(([word, n]) => word !== frequent && n > options.indexCountMaxDf && n <= counted)?.[0];
  // The rarest word: its occurrences are few, and it is neither of the others.
  const rarest = byDf[byDf.length - 1];
  const fromIndex = rarest && rarest[1] <= options.indexCountMaxDf && rarest[0] !== frequent && rarest[0] !== inText ? rarest[0] : undefined;
  const at = words.findIndex((word, i) => i + 1 < words.length && word !== words[i + 1]);
  const phrase = at >= 0 ? `${words[at]} ${words[at + 1]}` : undefined;
  const page = (q: string, extra: Partial<SearchParams> = {}): SearchParams => ({ q, limit: 10, offset: 0, ...extra });
  return [
    ...[frequent, inText, fromIndex].flatMap((q) => (q ? [page(q)] : [])),
    ...(phrase ? [page(phrase), page(phrase, { minViews: options.minViews })] : []),
    ...(frequent ? [page(frequent, { offset: 200 })] : []),
  ];
}
