/**
 * The phrase tier found through NEAR or the phrase-pair index, and confirmed
 * in the text, must list exactly what FTS5's phrase query lists: same
 * transcripts, same order, same totals, on every page, with and without
 * filters.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { Document } from "flexsearch";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FTS_TOKENIZER } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { foldTerm, tokenize } from "../../pipeline/artifact/text/text.js";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { containsPhrase } from "../../server/search/match/phrase.js";
import { anchorOf } from "../../server/search/match/phrase-strategies.js";
import type { SearchOptions } from "../../server/search/search.js";
import { SCAN_BYTES } from "../../server/search/rank/term-counts.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { makeVideo, videoId } from "../helpers/records.js";

/** What every better-sqlite3 prepared statement inherits, for spying on what a search runs. */
const statements = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as Database.Statement;

const has = (text: string, phrase: string) => {
  const terms = tokenize(phrase);
  const anchor = terms.indexOf([...terms].sort((a, b) => b.length - a.length)[0]!);
  return containsPhrase(Buffer.from(text, "utf8"), terms, anchor);
};

describe("containsPhrase", () => {
  it("finds the terms as consecutive tokens, across punctuation and case", () => {
    expect(has("We went. Led, to THE appropriate place!", "led to the appropriate")).toBe(true);
    expect(has("led to the appropriate", "led to the appropriate")).toBe(true);
    expect(has("she led us to the appropriate room", "led to the appropriate")).toBe(false);
    expect(has("the appropriate led to", "led to the appropriate")).toBe(false);
  });

  it("does not take a term inside a longer word", () => {
    expect(has("misled to the appropriate", "led to the appropriate")).toBe(false);
    expect(has("led to the appropriately", "led to the appropriate")).toBe(false);
    expect(has("led to there appropriate", "led to the appropriate")).toBe(false);
    expect(has("led2 to the appropriate", "led to the appropriate")).toBe(false);
  });

  it("checks the terms after the anchor as well as before it", () => {
    const terms = ["led", "to", "the", "appropriate"];
    expect(containsPhrase(Buffer.from("it led to the appropriate end"), terms, 0)).toBe(true);
    expect(containsPhrase(Buffer.from("it led to the inappropriate end"), terms, 0)).toBe(false);
    expect(containsPhrase(Buffer.from("it led to a appropriate end"), terms, 1)).toBe(false);
  });

  it("answers the same whichever term it looks for first, as the index's tokens say", () => {
    // Short terms that stand inside longer ones ("d" in "did", "do" in "don"), in several cases and separators.
    const words = ["i", "d", "do", "it", "did", "don", "and", "I", "D", "Do", "IT", "dId"];
    const separators = [" ", ", ", "'", ". ", " - "];
    const token = fc.record({ word: fc.constantFrom(...words), separator: fc.constantFrom(...separators) });
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), fc.array(fc.constantFrom("i", "d", "do", "it", "did", "and"), { minLength: 2, maxLength: 4 }), (tokens, terms) => {
        const text = tokens.map((t) => t.word + t.separator).join("");
        const expected = ` ${tokenize(text).join(" ")} `.includes(` ${terms.join(" ")} `);
        for (let anchor = 0; anchor < terms.length; anchor++) expect(containsPhrase(Buffer.from(text), terms, anchor)).toBe(expected);
      }),
      { numRuns: 400 },
    );
  });

  it("is anchored on the longest term, the rarest of those: the one that stands inside the fewest other words", () => {
    // Rarest first, as the strategies rank them.
    const ranked = [
      { term: "d", position: 1, df: 5 },
      { term: "it", position: 3, df: 8 },
      { term: "do", position: 2, df: 9 },
      { term: "i", position: 0, df: 10 },
    ];
    expect(anchorOf(ranked)).toBe(3);
    expect(anchorOf([{ term: "hardy", position: 3, df: 2 }, { term: "mrs", position: 2, df: 40 }])).toBe(3);
  });

  it("checks every occurrence of the anchor, and phrases that repeat a term", () => {
    expect(has("the rain the rain in spain", "rain in spain")).toBe(true);
    expect(has("rain in rain in spain", "rain in spain")).toBe(true);
    expect(has("so so so good", "so so good")).toBe(true);
    expect(has("so good so so", "so so good")).toBe(false);
  });

  it("folds case and diacritics in non-ASCII text as the index does", () => {
    expect(has("Die Brücken über den Fluss", "brucken uber")).toBe(true);
    expect(has("Die BRÜCKEN — über den Fluss", "brucken uber den")).toBe(true);
    expect(has("Die Brücken am Fluss", "brucken uber")).toBe(false);
    expect(has("naïve café society", "naive cafe")).toBe(true);
  });

  it("tokenizes as FTS5's tokenizer does: diacritics leave Latin letters only", () => {
    const db = new Database(":memory:");
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${FTS_TOKENIZER}'); CREATE VIRTUAL TABLE v USING fts5vocab(t, row);`);
    const text = "Die BRÜCKEN über den Fluss; naïve café, élèves d'été. Москва река течёт, Ёлка. Ἀθῆναι καὶ ἡ Ἑλλάς. Tiếng Việt, Größe, Øre, Ça va, ſoft";
    db.prepare("INSERT INTO t (x) VALUES (?)").run(text);
    const indexed = db.prepare("SELECT term FROM v ORDER BY term").pluck().all();
    expect([...new Set(tokenize(text))].sort()).toEqual(indexed);
    db.close();
  });

  it("finds phrases that repeat a term in non-ASCII text, wherever they are", () => {
    expect(has("über so so so good", "so so good")).toBe(true);
    expect(has("über so good so so", "so so good")).toBe(false);
    expect(has(`Größe ${"wort ".repeat(5000)}en la Recette`, "en la recette")).toBe(true);
    expect(has("en la Größe recette", "en la recette")).toBe(false);
  });

  it("folds an ASCII token as the full Unicode fold does", () => {
    const full = (token: string) => token.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
    for (let code = 0; code < 128; code++) {
      const token = `A${String.fromCharCode(code)}z9Q`;
      expect(foldTerm(token)).toBe(full(token));
    }
    expect(foldTerm("BRÜCKEN")).toBe("brucken");
    expect(tokenize("Die Brücken, ÜBER den Fluss")).toEqual(["die", "brucken", "uber", "den", "fluss"]);
  });
});

describe("the phrase tier through NEAR and through the phrase-pair index", () => {
  let set: TempArtifacts;
  let near: ArtifactCatalog;
  let pairs: ArtifactCatalog;
  let fts: ArtifactCatalog;
  /** The same three ways with a head of 8 candidates: most pages then go past the head, into the stream. */
  let small: { near: ArtifactCatalog; pairs: ArtifactCatalog; fts: ArtifactCatalog };
  /** And with exact counts up to 30 only: the list of all words' matches the second tier is read off then stops short. */
  let tight: { near: ArtifactCatalog; pairs: ArtifactCatalog; fts: ArtifactCatalog };
  let phrases: string[];
  let channels: string[];
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 7, videos: 400, channels: 5 });
    const records = Array.from({ length: corpus.videoCount }, (_, i) => corpus.videoAt(i));
    set = await buildTempArtifacts(records);
    // Always through NEAR (any two terms qualify), through the pairs, and through FTS5's phrase query: the same set, three ways.
    const ways = (extra: SearchOptions) => ({
      near: openCatalog({ dir: set.dir, search: { ...extra, nearTermMaxShare: 1, phrasePairs: false, cacheSize: 0 } }),
      pairs: openCatalog({ dir: set.dir, search: { ...extra, phrasePairs: true, cacheSize: 0 } }),
      fts: openCatalog({ dir: set.dir, search: { ...extra, nearTermMaxShare: 0, phrasePairs: false, cacheSize: 0 } }),
    });
    ({ near, pairs, fts } = ways({}));
    small = ways({ candidates: 8 });
    tight = ways({ candidates: 8, exactCountCap: 30 });
    // Word runs from the transcripts themselves (they match at least there), and runs with a word swapped in.
    phrases = [];
    for (let i = 0; phrases.length < 60; i += 7) {
      const tokens = tokenize(records[i % records.length]!.transcripts[0]?.segments.map((s) => s.text).join(" ") ?? "");
      if (tokens.length < 10) continue;
      const length = 2 + (i % 3);
      const at = (i * 31) % (tokens.length - length);
      phrases.push(tokens.slice(at, at + length).join(" "));
      if (i % 2 === 0) phrases.push([...tokens.slice(at, at + length - 1), tokens[(at + 5) % tokens.length]].join(" "));
    }
    // Common phrases, whose matches run past the head into the stream, and one that repeats a pair.
    phrases.push("of the", "in the", "it is a", "one of the", "the the");
    channels = corpus.channels.map((c) => c.channelId);
  });
  afterAll(() => {
    for (const catalog of [near, pairs, fts, ...Object.values(small), ...Object.values(tight)]) catalog.close();
    set.cleanup();
  });

  const compare = (way: ArtifactCatalog, reference: ArtifactCatalog) => {
    let compared = 0;
    let phraseHits = 0;
    let longPhraseTiers = 0;
    for (const [i, q] of phrases.entries()) {
      const params = [
        { q, limit: 10, offset: 0 },
        { q, limit: 100, offset: 0 },
        { q, limit: 20, offset: 95 },
        { q, limit: 10, offset: 0, channel: channels[i % channels.length]! },
        { q, limit: 10, offset: 0, minViews: 1000 },
      ];
      for (const p of params) {
        const a = way.search(p);
        const b = reference.search(p);
        expect(a.results.map((r) => r.videoId), `${JSON.stringify(p)}`).toEqual(b.results.map((r) => r.videoId));
        expect({ total: a.total, totalExact: a.totalExact, hasMore: a.hasMore }).toEqual({ total: b.total, totalExact: b.totalExact, hasMore: b.hasMore });
        expect(a.results.map((r) => r.snippet)).toEqual(b.results.map((r) => r.snippet));
        compared++;
      }
      const inPhrase = reference.search({ q: `"${q}"`, limit: 1, offset: 0 }).total;
      if (inPhrase > 0) phraseHits++;
      if (inPhrase > 20) longPhraseTiers++;
    }
    expect(compared).toBe(phrases.length * 5);
    // The comparison is only worth something if many phrases occur and some do not, and some run past a page.
    expect(phraseHits).toBeGreaterThan(phrases.length / 3);
    expect(phraseHits).toBeLessThan(phrases.length);
    expect(longPhraseTiers).toBeGreaterThanOrEqual(3);
  };

  it("lists the same transcripts in the same order with the same totals as FTS5's phrase query", () => {
    compare(near, fts);
    compare(pairs, fts);
  });

  it("does so on pages past a small head, where the rest of the phrase tier is streamed", () => {
    compare(small.near, small.fts);
    compare(small.pairs, small.fts);
  });

  it("does so where the matches of all the words run past the exact count, and the second tier past their list", () => {
    compare(tight.near, tight.fts);
    compare(tight.pairs, tight.fts);
  });

  it("reads the second tier off the list of all the words' matches, without FTS5's NOT of the phrase, when the pairs are on", () => {
    const all = vi.spyOn(statements, "all");
    const ran = (pattern: string) =>
      all.mock.calls.filter((args, i) => (all.mock.contexts[i] as Database.Statement).source.includes("transcript_fts") && String(args[0]).includes(pattern)).length;
    try {
      // Phrases of words that occur in other orders too: their second tier is not empty.
      const asked = phrases.filter((q) => fts.search({ q, limit: 10, offset: 0 }).results.length > 0);
      expect(ran(" NOT ")).toBeGreaterThan(0);
      all.mockClear();
      for (const q of asked) pairs.search({ q, limit: 10, offset: 0 });
      expect(ran(" NOT ")).toBe(0);
      // One query of all the words per search answers the count and the second tier.
      expect(ran("script : (")).toBe(asked.length);
      all.mockClear();
      // Past a list cut at the exact count (the phrases common enough), FTS5's NOT query lists the rest.
      for (const q of asked) tight.pairs.search({ q, limit: 10, offset: 40 });
      expect(ran(" NOT ")).toBeGreaterThan(0);
    } finally {
      all.mockRestore();
    }
  });

  it("reads the phrase-pair index for phrases, and the other ways do not", () => {
    const all = vi.spyOn(statements, "all");
    // The searches that ran a query on the pair index (the head's, and the second tier's where it is read).
    const readPairs = (catalog: ArtifactCatalog) =>
      phrases.slice(0, 10).filter((q) => {
        all.mockClear();
        catalog.search({ q, limit: 10, offset: 0 });
        return all.mock.contexts.some((statement) => (statement as Database.Statement).source.includes("phrase_pairs"));
      }).length;
    try {
      expect(readPairs(fts)).toBe(0);
      expect(readPairs(near)).toBe(0);
      expect(readPairs(pairs)).toBe(10);
      // Phrases with a pair of two very common words inside are asked without it, NEAR, and confirmed in the text
      // (the comparisons above cover their answers).
      for (const q of phrases) pairs.search({ q, limit: 10, offset: 0 });
      const withoutAPair = all.mock.calls.filter((args, i) => (all.mock.contexts[i] as Database.Statement).source.includes("phrase_pairs") && String(args[0]).includes("NEAR("));
      expect(withoutAPair.length).toBeGreaterThanOrEqual(3);
    } finally {
      all.mockRestore();
    }
  });

  it("leaves out a pair of two common words inside a phrase, and confirms what NEAR finds without it", async () => {
    // "to" and "the" are in every transcript: `to_the` is left out of "led to the appropriate". The second video has
    // the other two pairs one token apart in the other order, which NEAR finds and the phrase is not.
    const texts = [
      "they were led to the appropriate room next to the door",
      "the appropriate led to a room next to the door",
      ...Array.from({ length: 8 }, (_, i) => `a walk to the river number ${i} and back to the hill`),
    ];
    const local = await buildTempArtifacts(texts.map((text, i) => makeVideo(i + 1, { text, viewCount: 1000 - i })));
    const withPairs = openCatalog({ dir: local.dir, search: { phrasePairs: true, cacheSize: 0 } });
    const withFts = openCatalog({ dir: local.dir, search: { phrasePairs: false, nearTermMaxShare: 0, cacheSize: 0 } });
    const all = vi.spyOn(statements, "all");
    try {
      const page = withPairs.search({ q: "led to the appropriate", limit: 10, offset: 0 });
      const nearQueries = all.mock.calls.filter((args) => String(args[0]).includes("NEAR(") && String(args[0]).includes("led_to"));
      expect(nearQueries.length).toBeGreaterThan(0);
      expect(page.results.map((r) => r.videoId)).toEqual([videoId(1), videoId(2)]);
      expect(page.results[0]!.snippet).toContain("<mark>led</mark> <mark>to</mark> <mark>the</mark> <mark>appropriate</mark>");
      const reference = withFts.search({ q: "led to the appropriate", limit: 10, offset: 0 });
      expect(page).toEqual(reference);
    } finally {
      all.mockRestore();
      withPairs.close();
      withFts.close();
      local.cleanup();
    }
  });

  it("looks each word up in the titles once per query, not once per tier", () => {
    const lookups = vi.spyOn(Document.prototype, "search");
    try {
      const perQuery = phrases.map((q) => {
        const before = lookups.mock.calls.length;
        near.search({ q, limit: 100, offset: 0 });
        const asked = lookups.mock.calls.slice(before).map((args) => String(args[0]));
        return { words: new Set(tokenize(q)).size, asked: asked.length, distinct: new Set(asked).size };
      });
      for (const { words, asked, distinct } of perQuery) {
        expect(asked).toBe(distinct);
        expect(asked).toBeLessThanOrEqual(words);
      }
      // Only words in at most 10% of transcripts are looked up in titles: some phrases have two.
      expect(perQuery.filter((p) => p.asked >= 2).length).toBeGreaterThanOrEqual(5);
    } finally {
      lookups.mockRestore();
    }
  });
});

describe("term frequencies from the index", () => {
  let set: TempArtifacts;
  let fromIndex: ArtifactCatalog;
  let fromText: ArtifactCatalog;
  let words: string[];
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 9, videos: 300, channels: 4 });
    set = await buildTempArtifacts(Array.from({ length: corpus.videoCount }, (_, i) => corpus.videoAt(i)));
    // Every counted term from the index, and none.
    fromIndex = openCatalog({ dir: set.dir, search: { indexCountMaxDf: Number.MAX_SAFE_INTEGER, cacheSize: 0 } });
    fromText = openCatalog({ dir: set.dir, search: { indexCountMaxDf: 0, cacheSize: 0 } });
    const Database = (await import("better-sqlite3")).default;
    const db = new Database(`${set.dir}/transcripts.db`, { readonly: true });
    // Words in 2 to 60 of the 300 transcripts: counted (under 30%), with real differences in tf. Only words whose
    // transcripts are all under the 32 KiB that text counting scans: past it, text counts are scaled estimates
    // and the index's exact counts rank differently (better), which this comparison cannot tell from a bug.
    const longest = db.prepare(
      `SELECT max(length(CAST(t.script AS BLOB))) FROM transcript_fts f JOIN videos v ON v.id = f.rowid
       JOIN transcripts t ON t.id = v.transcript WHERE transcript_fts MATCH ?`,
    ).pluck();
    const all = db.prepare("SELECT term FROM term_stats WHERE df BETWEEN 2 AND 60 AND term GLOB '[a-z][a-z][a-z]*' ORDER BY df DESC, term").pluck().all() as string[];
    words = all.filter((term) => (longest.get(`script : "${term}"`) as number) < SCAN_BYTES).slice(0, 40);
    db.close();
  });
  afterAll(() => {
    fromIndex.close();
    fromText.close();
    set.cleanup();
  });

  it("rank as counting in the text does", () => {
    expect(words.length).toBe(40);
    let differentOrders = 0;
    for (const [i, word] of words.entries()) {
      for (const q of [word, `${word} ${words[(i + 1) % words.length]}`]) {
        const a = fromIndex.search({ q, limit: 100, offset: 0 });
        const b = fromText.search({ q, limit: 100, offset: 0 });
        expect(a.results.map((r) => r.videoId), q).toEqual(b.results.map((r) => r.videoId));
        expect(a.total).toBe(b.total);
        // Popularity order is not what the scores give: the test compares rankings, not one order twice.
        const byViews = [...b.results].sort((x, y) => y.viewCount - x.viewCount).map((r) => r.videoId);
        if (byViews.join() !== b.results.map((r) => r.videoId).join()) differentOrders++;
      }
    }
    expect(differentOrders).toBeGreaterThan(10);
  });
});
