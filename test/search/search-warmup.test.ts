import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { TranscriptSearch } from "../../server/search/search.js";
import { PRACTICE_SEARCHES, practiceQueries, warmUpQueries } from "../../server/search/memory/search-warmup.js";
import { ShardSearch } from "../../server/search/shard.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

describe("warm-up searches", () => {
  it("take one word of each kind of work from the text, two consecutive words, a bound and a deep page", () => {
    const df = new Map([["the", 900], ["river", 40], ["mill", 3], ["flows", 0]]);
    const queries = warmUpQueries("The river flows past the old mill", (term) => df.get(term) ?? 0, {
      documents: 1000,
      indexCountMaxDf: 10,
      countTermMaxShare: 0.3,
      minViews: 5000,
    });
    expect(queries).toEqual([
      { q: "the", limit: 10, offset: 0 },
      { q: "river", limit: 10, offset: 0 },
      { q: "mill", limit: 10, offset: 0 },
      { q: "the river", limit: 10, offset: 0 },
      { q: "the river", limit: 10, offset: 0, minViews: 5000 },
      { q: "the", limit: 10, offset: 200 },
    ]);
    // A kind the text has no word for is left out; no text, no queries.
    const noRare = warmUpQueries("the river", (term) => df.get(term) ?? 0, { documents: 1000, indexCountMaxDf: 10, countTermMaxShare: 0.3, minViews: 1 });
    expect(noRare.map((q) => q.q)).toEqual(["the", "river", "the river", "the river", "the"]);
    expect(warmUpQueries("", () => 1, { documents: 1, indexCountMaxDf: 1, countTermMaxShare: 1, minViews: 0 })).toEqual([]);
  });

  it("practise on runs of one to four consecutive words of the text, distinct, some bounded, some a page further", () => {
    const text = Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ");
    const queries = practiceQueries(text, 100, 7000);
    expect(queries).toHaveLength(100);
    expect(new Set(queries.map((q) => `${q.q}|${q.offset}|${q.minViews ?? 0}`)).size).toBe(100);
    expect(new Set(queries.map((q) => q.q.split(" ").length))).toEqual(new Set([1, 2, 3, 4]));
    for (const { q } of queries) {
      // Consecutive words of the text: w(k) w(k+1) ...
      const numbers = q.split(" ").map((w) => Number(w.slice(1)));
      expect(numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1), q).toBe(true);
    }
    expect(queries.filter((q) => q.minViews === 7000).length).toBeGreaterThanOrEqual(15);
    expect(queries.filter((q) => q.offset > 0).length).toBeGreaterThanOrEqual(8);
    // Few words give fewer queries, never a repeat; no words, none.
    const short = practiceQueries("one two", 50, 1);
    expect(new Set(short.map((q) => `${q.q}|${q.offset}|${q.minViews ?? 0}`)).size).toBe(short.length);
    expect(short.length).toBeLessThan(50);
    expect(practiceQueries("", 10, 1)).toEqual([]);
  });

  describe("on an artifact set", () => {
    let set: TempArtifacts;
    beforeAll(async () => {
      const corpus = createSyntheticCorpus({ seed: 11, videos: 200, channels: 4 });
      set = await buildTempArtifacts(Array.from({ length: 200 }, (_, i) => corpus.videoAt(i)));
    }, 60_000);
    afterAll(() => set?.cleanup());

    it("run at warm-up and leave nothing in the result cache: the users' first searches compute their answers", async () => {
      const catalog = openCatalog({ dir: set.dir });
      const reference = openCatalog({ dir: set.dir, search: { cacheSize: 0 } });
      const searches = vi.spyOn(TranscriptSearch.prototype, "search");
      const heads = vi.spyOn(ShardSearch.prototype, "head");
      try {
        const warmth = await catalog.warm();
        const warmedWith = searches.mock.calls.map(([params]) => params as SearchParams);
        expect(warmth.searches).toBe(warmedWith.length);
        // One of each kind, then practice searches (the set is small: each takes well under the time they are given).
        expect(warmth.searches).toBeGreaterThan(PRACTICE_SEARCHES / 2);
        expect(warmth.searchesMs).toBeGreaterThan(0);
        expect(new Set(warmedWith.map((p) => p.q.split(" ").length))).toEqual(new Set([1, 2, 3, 4]));
        expect(warmedWith.some((p) => p.minViews !== undefined && p.minViews > 0)).toBe(true);
        // Every warm-up search again: each answers as a catalog without a cache does, and each query
        // (a deep page shares its head with the first page) is ranked anew: head runs.
        const seen = new Set<string>();
        for (const params of warmedWith) {
          const expected = reference.search(params);
          const before = heads.mock.calls.length;
          expect(catalog.search(params)).toEqual(expected);
          const key = `${params.q}|${params.minViews ?? 0}`;
          if (!seen.has(key)) expect(heads.mock.calls.length, key).toBeGreaterThan(before);
          seen.add(key);
        }
        expect(seen.size).toBeGreaterThanOrEqual(4);
      } finally {
        searches.mockRestore();
        heads.mockRestore();
        catalog.close();
        reference.close();
      }
    });

    it("stop when the catalog is closed during the warm-up", async () => {
      const catalog = openCatalog({ dir: set.dir });
      const warming = catalog.warm();
      catalog.close();
      await expect(warming).resolves.toMatchObject({ searches: 0 });
    });
  });
});
