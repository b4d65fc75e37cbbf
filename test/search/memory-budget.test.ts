/**
 * One memory budget (SEARCH_MEMORY_MB) split among search's memory helpers,
 * and SEARCH_MEMORY_HELPERS switching each off: the settings parse, the
 * split, and a catalog opened with each helper off answering as with all.
 */
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { catalogSettings } from "../../server/start/runtime.js";
import { MEMORY_HELPERS, memoryOptions, READ_THREADS } from "../../server/search/memory/budget.js";
import { loadSettings } from "../../settings/settings.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

/** Every prepared statement's prototype, to count the reads a search makes. */
const statements = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as Database.Statement;

const MiB = 2 ** 20;

describe("SEARCH_MEMORY_HELPERS", () => {
  const helpers = (value: string) => loadSettings("server", { SEARCH_MEMORY_HELPERS: value }).searchMemoryHelpers;

  it("takes all, none, a list of helpers or a list of helpers to leave off", () => {
    expect(helpers("all")).toEqual([...MEMORY_HELPERS]);
    expect(loadSettings("server", {}).searchMemoryHelpers).toEqual([...MEMORY_HELPERS]);
    expect(helpers("NONE")).toEqual([]);
    expect(helpers("texts,index")).toEqual(["index", "texts"]);
    expect(helpers("-prefetch, -videos")).toEqual(MEMORY_HELPERS.filter((h) => h !== "prefetch" && h !== "videos"));
  });

  it("refuses unknown helpers and mixed lists, naming the setting", () => {
    expect(() => helpers("-prefetch,index")).toThrow(/SEARCH_MEMORY_HELPERS: must be all, none/);
    expect(() => helpers("-bogus")).toThrow(/SEARCH_MEMORY_HELPERS: unknown: bogus/);
    expect(() => helpers(",")).toThrow(/SEARCH_MEMORY_HELPERS/);
  });
});

describe("SEARCH_MEMORY_MB", () => {
  it("is split 32:2:7:1:4 among the index, the pair lists, the texts, their term counts and the build's term counts, each share a ceiling, the parts within the budget", () => {
    expect(memoryOptions(5888 * MiB, MEMORY_HELPERS)).toEqual({
      indexBytes: 4096 * MiB,
      pairBytes: 256 * MiB,
      hotTextBytes: 896 * MiB,
      termVectorBytes: 128 * MiB,
      termCountBytes: 512 * MiB,
      readThreads: READ_THREADS,
      touchVideos: true,
      warmSearches: true,
    });
    for (const mb of [0, 1, 7, 100, 3000]) {
      const { indexBytes, pairBytes, hotTextBytes, termVectorBytes, termCountBytes } = memoryOptions(mb * MiB, MEMORY_HELPERS);
      expect(indexBytes + pairBytes + hotTextBytes + termVectorBytes + termCountBytes).toBeLessThanOrEqual(mb * MiB);
    }
    // The default of the setting is that split.
    expect(catalogSettings(loadSettings("server", {}))).toMatchObject({ indexBytes: 4096 * MiB, pairBytes: 256 * MiB, hotTextBytes: 896 * MiB, termVectorBytes: 128 * MiB, termCountBytes: 512 * MiB });
  });

  it("gives a helper that is off nothing, and the pair lists nothing without the index", () => {
    expect(memoryOptions(5888 * MiB, [])).toEqual({ indexBytes: 0, pairBytes: 0, hotTextBytes: 0, termVectorBytes: 0, termCountBytes: 0, readThreads: 0, touchVideos: false, warmSearches: false });
    const noIndex = memoryOptions(5888 * MiB, MEMORY_HELPERS.filter((h) => h !== "index"));
    expect(noIndex).toMatchObject({ indexBytes: 0, pairBytes: 0, hotTextBytes: 896 * MiB, termVectorBytes: 128 * MiB });
    // The term counts are made of the texts held: without the texts there are none.
    const settings = catalogSettings(loadSettings("server", { SEARCH_MEMORY_MB: "2300", SEARCH_MEMORY_HELPERS: "-texts,-warmup" }));
    expect(settings).toMatchObject({ indexBytes: 1600 * MiB, pairBytes: 100 * MiB, hotTextBytes: 0, termVectorBytes: 0, termCountBytes: 200 * MiB, warmSearches: false, touchVideos: true });
    expect(memoryOptions(4600 * MiB, ["texts", "terms"])).toMatchObject({ hotTextBytes: 700 * MiB, termVectorBytes: 100 * MiB, termCountBytes: 0 });
  });

  describe("on an artifact set", () => {
    let set: TempArtifacts;
    beforeAll(async () => {
      const corpus = createSyntheticCorpus({ seed: 17, videos: 150, channels: 3 });
      set = await buildTempArtifacts(Array.from({ length: 150 }, (_, i) => corpus.videoAt(i)));
    }, 60_000);
    afterAll(() => set?.cleanup());

    it("SEARCH_CACHE_ENTRIES: a repeated query reads little from storage with the result cache, about as much again with it off", () => {
      const calls = (env: Record<string, string>) => {
        const options = catalogSettings(loadSettings("server", { SEARCH_MEMORY_MB: "0", ...env }));
        const catalog = openCatalog({ dir: set.dir, ...options });
        const reads = [vi.spyOn(statements, "all"), vi.spyOn(statements, "get"), vi.spyOn(statements, "iterate")];
        const count = () => reads.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
        try {
          const params = { q: "river of", limit: 10, offset: 0 };
          const first = catalog.search(params);
          const afterFirst = count();
          const again = catalog.search(params);
          expect(again).toEqual(first);
          return { first: afterFirst, again: count() - afterFirst };
        } finally {
          for (const spy of reads) spy.mockRestore();
          catalog.close();
        }
      };
      const cached = calls({});
      const off = calls({ SEARCH_CACHE_ENTRIES: "0" });
      // Off, a repeat reads about what the first search read (less only what is read once per catalog).
      expect(cached.again).toBeLessThan(cached.first / 2);
      expect(off.again).toBeGreaterThan(off.first * 0.9);
      expect(off.again).toBeGreaterThan(cached.again * 2);
      expect(catalogSettings(loadSettings("server", {})).search?.cacheSize).toBe(2000);
    });

    it("answers the same with every helper, with each one off, and with none; a helper that is off reads nothing", async () => {
      const queries = ["the", "river", "of the", "the and", '"of the"'].flatMap((q) => [
        { q, limit: 10, offset: 0 },
        { q, limit: 10, offset: 30 },
      ]);
      const answers = async (spec: string) => {
        const options = catalogSettings(loadSettings("server", { SEARCH_MEMORY_MB: "64", SEARCH_MEMORY_HELPERS: spec }));
        const catalog = openCatalog({ dir: set.dir, ...options, search: { ...options.search, cacheSize: 0 } });
        try {
          const warmth = await catalog.warm();
          return { warmth, pages: queries.map((params) => catalog.search(params)) };
        } finally {
          catalog.close();
        }
      };
      const all = await answers("all");
      expect(all.warmth.index?.bytes).toBeGreaterThan(0);
      expect(all.warmth.texts?.transcripts).toBeGreaterThan(0);
      // The build's term counts hold every transcript here, so no text's vector is made at start.
      expect(all.warmth.counts?.transcripts).toBe(all.warmth.texts?.transcripts);
      expect(all.warmth.texts?.vectors).toBe(0);
      expect(all.warmth.searches).toBeGreaterThan(0);
      expect(all.pages.some((page) => page.results.length > 0)).toBe(true);
      for (const helper of MEMORY_HELPERS) {
        const without = await answers(`-${helper}`);
        expect(without.pages, helper).toEqual(all.pages);
        if (helper === "index") expect(without.warmth.index).toBeUndefined();
        if (helper === "texts") expect(without.warmth.texts).toBeUndefined();
        if (helper === "terms") expect(without.warmth.texts).toMatchObject({ vectors: 0, vectorBytes: 0 });
        if (helper === "counts") {
          expect(without.warmth.counts).toBeUndefined();
          expect(without.warmth.texts?.vectors).toBeGreaterThan(0);
        }
        if (helper === "warmup") expect(without.warmth.searches).toBe(0);
      }
      const none = await answers("none");
      expect(none.pages).toEqual(all.pages);
      expect(none.warmth).toMatchObject({ searches: 0 });
      expect(none.warmth.index).toBeUndefined();
      expect(none.warmth.texts).toBeUndefined();
      expect(none.warmth.pairs).toBeUndefined();
    }, 120_000);
  });
});
