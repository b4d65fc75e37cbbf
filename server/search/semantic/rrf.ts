/**
 * Reciprocal rank fusion: several ranked lists of one kind of item made
 * into one, each item scored the sum over the lists holding it of
 * 1 / (k + its rank there), ranks from 1. It needs no comparable scores
 * (BM25 and cosine are not), and an item high in either list ranks high.
 */

/** The constant of the original paper (Cormack, Clarke and Büttcher, 2009): it damps the weight of the very first ranks. */
export const RRF_K = 60;

/** The items of `lists` by fused score, highest first; ties by the best rank in any list, then by the earlier list. */
export function reciprocalRankFusion<T>(lists: readonly (readonly T[])[], k = RRF_K): { item: T; score: number }[] {
  const fused = new Map<T, { item: T; score: number; best: number; list: number }>();
  lists.forEach((list, l) => {
    list.forEach((item, i) => {
      const entry = fused.get(item) ?? { item, score: 0, best: Number.POSITIVE_INFINITY, list: l };
      entry.score += 1 / (k + i + 1);
      if (i < entry.best) entry.best = i;
      fused.set(item, entry);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || a.best - b.best || a.list - b.list).map(({ item, score }) => ({ item, score }));
}
