/**
 * The title and channel boost over a real FlexSearch title index: a term in
 * many titles is kept across queries as a bitset where the index never
 * changes, and gives the same multipliers as walking its matches.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTitleIndex, type TitleIndex } from "../../pipeline/artifact/search-index/title-index.js";
import { parseSearchQuery } from "../../server/search/query.js";
import { KEPT_TERM_MIN_MATCHES, TitleBoosts } from "../../server/search/rank/title-boost.js";

const TITLES = KEPT_TERM_MIN_MATCHES + 2000;
const boostOptions = { titleBoost: 1.5, channelBoost: 1.2 };

/** Two titles in three start with "en" ("en plein air"), every fifth channel holds it; "rare" is in a few titles only. */
function titleIndex(): { index: TitleIndex; searches: Map<string, number> } {
  const index = createTitleIndex();
  for (let id = 1; id <= TITLES; id++) {
    const title = id % 3 !== 1 ? `en plein air ${id}` : id % 997 === 0 ? `a rare title ${id}` : `cooking at home ${id}`;
    index.add({ id, title, channel: id % 5 === 0 ? "cuisine en famille" : "kitchen" });
  }
  // Counts the lookups per term, through the real index.
  const searches = new Map<string, number>();
  const search = index.search.bind(index);
  index.search = ((query: string, options: unknown) => {
    searches.set(query, (searches.get(query) ?? 0) + 1);
    return search(query, options as never);
  }) as unknown as typeof index.search;
  return { index, searches };
}

const parsed = (q: string) => parseSearchQuery(q)!;

describe("title boosts", () => {
  it("multiply a title match by 1.5 and a channel match by 1.2, both by 1.8, whether a term's matches are walked or kept as a bitset", () => {
    for (const immutable of [false, true]) {
      const boosts = new TitleBoosts(titleIndex().index, boostOptions, immutable);
      // 15: title and channel hold "en"; 3: the title only; 10: the channel only; 1: neither.
      const got = boosts.boosts(parsed("en"), ["en"], [15, 3, 10, 1]);
      expect(got.get(15)).toBeCloseTo(1.8);
      expect(got.get(3)).toBeCloseTo(1.5);
      expect(got.get(10)).toBeCloseTo(1.2);
      expect(got.has(1)).toBe(false);
      // Every term must be held: "plein" is in titles only, "rare" in neither of 15's fields.
      expect([...boosts.boosts(parsed("en plein"), ["en", "plein"], [15, 10]).entries()]).toEqual([[15, 1.5]]);
      expect(boosts.boosts(parsed("en rare"), ["en", "rare"], [15, 997]).size).toBe(0);
    }
  });

  it("give the same multipliers kept across queries as looked up per query, for any candidates and terms", () => {
    const walked = new TitleBoosts(titleIndex().index, boostOptions, false);
    const kept = new TitleBoosts(titleIndex().index, boostOptions, true);
    const words = ["en", "plein", "cooking", "rare", "cuisine", "kitchen", "absent"];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: TITLES + 100 }), { minLength: 1, maxLength: 120 }),
        fc.uniqueArray(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
        (candidates, terms) => {
          const query = parsed(terms.join(" "));
          expect(kept.boosts(query, terms, candidates)).toEqual(walked.boosts(query, terms, candidates));
        },
      ),
    );
  });

  it("look a term in many titles up once across queries where the index never changes, and again after forget(); per query where it may change", () => {
    const kept = titleIndex();
    const immutable = new TitleBoosts(kept.index, boostOptions, true);
    for (const q of ["en plein", "en cooking", "en"]) immutable.boosts(parsed(q), q.split(" "), [3, 15]);
    expect(kept.searches.get("en")).toBe(1);
    // A term in few titles is looked up once per query, as before.
    expect(kept.searches.get("plein")).toBe(1);
    immutable.forget();
    immutable.boosts(parsed("en"), ["en"], [3]);
    expect(kept.searches.get("en")).toBe(2);

    const live = titleIndex();
    const mutable = new TitleBoosts(live.index, boostOptions, false);
    for (const q of ["en plein", "en cooking", "en"]) mutable.boosts(parsed(q), q.split(" "), [3, 15]);
    expect(live.searches.get("en")).toBe(3);
  });

  it("a title added to an index that may change is boosted by the next query", () => {
    const { index } = titleIndex();
    const boosts = new TitleBoosts(index, boostOptions, false);
    expect(boosts.boosts(parsed("en"), ["en"], [TITLES + 1]).size).toBe(0);
    index.add({ id: TITLES + 1, title: "en direct", channel: "x" });
    expect(boosts.boosts(parsed("en direct"), ["en"], [TITLES + 1]).get(TITLES + 1)).toBeCloseTo(1.5);
  });
});
