/**
 * The word bitmaps must hold exactly what FTS5 answers for each common
 * word, and a search that reads its list of all words' matches through
 * them must answer exactly as one that asks FTS5: same pages, same totals,
 * with phrases, channel and popularity filters, and deep pages.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { hasWordBitmaps, WORD_BITMAP_MIN_SHARE, wordExpression } from "../../pipeline/artifact/search-index/word-bitmaps.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { LiveStore } from "../../server/live-store/live-store.js";
import { andOfSets, filterBySets, WordBitmaps } from "../../server/search/match/word-bitmaps.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

/** A set of rowids as the build lays it out: bit `id & 31` of 32-bit word `id >> 5`. */
function setOf(ids: readonly number[], words: number): Uint32Array {
  const set = new Uint32Array(words);
  for (const id of ids) set[id >>> 5]! |= 1 << (id & 31);
  return set;
}

describe("the AND of word bitmaps", () => {
  const ids = fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { maxLength: 120 }).map((list) => list.sort((a, b) => a - b));

  it("lists the rowids in every set, ascending, up to the bound and the limit, across 32-bit words", () => {
    const bound = fc.integer({ min: 0, max: 220 });
    const limit = fc.integer({ min: 0, max: 130 });
    fc.assert(
      fc.property(fc.array(ids, { minLength: 1, maxLength: 4 }), bound, limit, fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 4, maxLength: 4 }), (lists, maxRank, max, lengths) => {
        // Sets of different lengths: a shorter one holds nothing past its end.
        const sets = lists.map((list, i) => setOf(list.filter((id) => id < lengths[i]! * 32), lengths[i]!));
        const inAll = (id: number) => sets.every((set) => ((set[id >>> 5] ?? 0) & (1 << (id & 31))) !== 0);
        const expected = Array.from({ length: maxRank + 1 }, (_, id) => id).filter(inAll).slice(0, max);
        expect(andOfSets(sets, maxRank, max)).toEqual(expected);
        const driver = lists[0]!;
        expect(filterBySets(driver, sets.slice(1), maxRank, max)).toEqual(driver.filter((id) => id <= maxRank && sets.slice(1).every((s) => ((s[id >>> 5] ?? 0) & (1 << (id & 31))) !== 0)).slice(0, max));
      }),
      { numRuns: 500 },
    );
    expect(andOfSets([setOf([31, 32, 63, 64, 95], 4), setOf([0, 31, 63, 64, 96], 4)], 1000, 10)).toEqual([31, 63, 64]);
    expect(andOfSets([setOf([31, 32, 63, 64, 95], 4)], 63, 10)).toEqual([31, 32, 63]);
  });
});

describe("the word bitmaps of a build", () => {
  const VIDEOS = 320;
  let set: TempArtifacts;
  let db: Database.Database;
  let channelIds: string[];
  let words: { common: string[]; rare: string[] };
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 23, videos: VIDEOS, channels: 5 });
    channelIds = corpus.channels.map((c) => c.channelId);
    set = await buildTempArtifacts(Array.from({ length: VIDEOS }, (_, i) => corpus.videoAt(i)));
    db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    const byDf = db.prepare("SELECT term FROM term_stats WHERE df >= ? AND df <= ? ORDER BY df DESC, term LIMIT ?").pluck();
    const documents = db.prepare("SELECT count(*) FROM fts_content").pluck().get() as number;
    words = {
      common: byDf.all(Math.ceil(documents * WORD_BITMAP_MIN_SHARE), documents, 60) as string[],
      rare: byDf.all(1, Math.floor(documents * WORD_BITMAP_MIN_SHARE) - 1, 60) as string[],
    };
  }, 60_000);
  afterAll(() => {
    db?.close();
    set?.cleanup();
  });

  it("hold, for every word in a thirty-second of the transcripts or more, exactly FTS5's transcripts of it, and no other word", () => {
    expect(hasWordBitmaps(db)).toBe(true);
    const documents = db.prepare("SELECT count(*) FROM fts_content").pluck().get() as number;
    const minDf = Math.ceil(documents * WORD_BITMAP_MIN_SHARE);
    const listed = db.prepare("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? ORDER BY rowid").pluck();
    const lastRowid = db.prepare("SELECT max(id) FROM fts_content").pluck().get() as number;
    const stored = db.prepare("SELECT term, df, bits FROM word_bitmaps ORDER BY term").raw().all() as [string, number, Buffer][];
    const expected = (db.prepare("SELECT term FROM term_stats ORDER BY term").pluck().all() as string[])
      .map((term) => ({ term, ids: listed.all(wordExpression(term)) as number[] }))
      .filter(({ ids }) => ids.length >= minDf);
    expect(stored.map(([term]) => term)).toEqual(expected.map((e) => e.term));
    expect(stored.length).toBeGreaterThan(100);
    for (const [i, [term, df, bits]] of stored.entries()) {
      const ids = expected[i]!.ids;
      expect(bits.length, term).toBe(((lastRowid >>> 5) + 1) * 4);
      const inBits = [...bits].flatMap((byte, at) => Array.from({ length: 8 }, (_, bit) => ((byte >> bit) & 1 ? at * 8 + bit : -1))).filter((id) => id >= 0);
      expect(inBits, term).toEqual(ids);
      expect(df).toBe(ids.length);
    }
  });

  it("are told apart from a database without them", () => {
    const live = LiveStore.open(join(set.root, "live.db"));
    try {
      expect(hasWordBitmaps(live.db)).toBe(false);
    } finally {
      live.close();
    }
  });

  it("give every search the page and total FTS5 alone gives, with phrases, filters and deep pages", async () => {
    const plain = openCatalog({ dir: set.dir, wordBitmaps: false });
    const withBitmaps = openCatalog({ dir: set.dir });
    // Bitmaps filter FTS5's lists of the other words only when these are shorter than 10 transcripts; else FTS5 ANDs all the words.
    const shortDrivers = openCatalog({ dir: set.dir, search: { bitmapDriverMaxDf: 10 } });
    try {
      const warmth = await withBitmaps.warm();
      expect(warmth.bitmaps?.words).toBeGreaterThan(100);
      await shortDrivers.warm();
      expect((await plain.warm()).bitmaps).toBeUndefined();
      const word = fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...words.common.slice(0, 12)) },
        { weight: 3, arbitrary: fc.constantFrom(...words.common) },
        { weight: 2, arbitrary: fc.constantFrom(...words.rare) },
        { weight: 1, arbitrary: fc.constant("zzqxnotaword") },
      );
      const group = fc.oneof({ weight: 6, arbitrary: word }, { weight: 1, arbitrary: fc.array(word, { minLength: 2, maxLength: 3 }).map((w) => `"${w.join(" ")}"`) });
      const params: fc.Arbitrary<SearchParams> = fc.record({
        q: fc.array(group, { minLength: 1, maxLength: 4 }).map((groups) => groups.join(" ")),
        limit: fc.constantFrom(1, 10, 50),
        offset: fc.constantFrom(0, 0, 5, 60, 150),
        channel: fc.option(fc.constantFrom(...channelIds), { nil: undefined, freq: 3 }),
        minViews: fc.option(fc.constantFrom(10, 1000, 100_000), { nil: undefined, freq: 3 }),
      }).map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as unknown as SearchParams);
      let matched = 0;
      const lookups = vi.spyOn(WordBitmaps.prototype, "get");
      fc.assert(
        fc.property(params, (query) => {
          const expected = plain.search(query);
          if (expected.total > 0) matched++;
          expect(withBitmaps.search(query)).toEqual(expected);
          expect(shortDrivers.search(query)).toEqual(expected);
        }),
        { numRuns: 400 },
      );
      // About half the queries match (198-224 of 400 in six runs), and their words were looked up in the bitmaps:
      // the comparison is of real pages, through both ways. The bound is far below that spread, so it cannot flake.
      expect(matched).toBeGreaterThan(150);
      expect(lookups.mock.results.filter((r) => r.value !== undefined).length).toBeGreaterThan(400);
      lookups.mockRestore();
    } finally {
      plain.close();
      withBitmaps.close();
      shortDrivers.close();
    }
  }, 120_000);
});
