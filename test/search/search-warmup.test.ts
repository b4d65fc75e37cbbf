import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { openCatalog } from "../../server/data/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { TranscriptSearch } from "../../server/search/search.js";
import { warmUpQueries } from "../../server/search/memory/search-warmup.js";
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
        expect(warmth.searches).toBeGreaterThanOrEqual(5);
        expect(new Set(warmedWith.map((p) => p.q.split(" ").length))).toEqual(new Set([1, 2]));
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
