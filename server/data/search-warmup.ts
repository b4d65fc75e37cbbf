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
 *
 * Then a mix of a few hundred searches (`warmUpMix`) of words of
 * transcripts from every part of the set, the way users' queries look: runs
 * of one to four consecutive words, and words from far apart, some with a
 * channel, a popularity bound or a deep page. One search of each kind left
 * the users' first searches after a start about a third slower than the same
 * searches later on (by hand, at 500,000 videos, BENCHMARKS.md): V8 had run
 * each path once, not optimized it, and the page caches held little beyond
 * the index and the most viewed texts.
 */
import type { SearchParams } from "./catalog.js";
import { tokenize } from "../../pipeline/text.js";

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

export interface WarmUpMixOptions {
  /** Searches to make. */
  count: number;
  /** Channel ids a few of the searches filter on. */
  channels: readonly string[];
  /** A view count that bounds the matches to the most viewed part of the set. */
  minViews: number;
}

/** Positions spread over a list of `n`, the i-th of a sequence, without a random generator. */
function spread(i: number, n: number): number {
  return (i * 7919 + Math.floor(i / 3) * 104_729) % n;
}

const DEEP_OFFSETS = [100, 250, 500, 990];

/**
 * `count` searches of the words of `texts`: by turns a run of one to four
 * consecutive words and as many words from far apart; every eighth with a
 * channel (of `channels`), a popularity bound, or a deep page.
 */
export function warmUpMix(texts: readonly string[], options: WarmUpMixOptions): SearchParams[] {
  const words = texts.flatMap((text) => tokenize(text).slice(0, SAMPLE_WORDS));
  if (words.length === 0) return [];
  const queries: SearchParams[] = [];
  for (let i = 0; i < options.count; i++) {
    const length = 1 + (i % 4);
    const at = spread(i, Math.max(1, words.length - length));
    const picked = Math.floor(i / 4) % 2 === 0
      ? words.slice(at, at + length)
      : Array.from({ length }, (_, j) => words[spread(i + j * 37, words.length)]!);
    const query: SearchParams = { q: picked.join(" "), limit: 10, offset: 0 };
    const kind = i % 8;
    if (kind === 2 && options.channels.length > 0) query.channel = options.channels[Math.floor(i / 8) % options.channels.length]!;
    if (kind === 4 && options.minViews > 0) query.minViews = options.minViews;
    if (kind === 6) query.offset = DEEP_OFFSETS[Math.floor(i / 8) % DEEP_OFFSETS.length]!;
    queries.push(query);
  }
  return queries;
}
