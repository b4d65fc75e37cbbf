/**
 * The match strategies behind their one interface (match/strategy.ts): each
 * phrase strategy lists the phrase tier exactly as FTS5's phrase query does
 * where it answers, each way of listing all the words' matches gives FTS5's
 * AND, `firstAnswer` takes the first that answers; and the planner and the
 * count estimate that sit around them.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { estimateTotal, countMatches } from "../../server/search/count.js";
import { bitmapAllWords, ftsAllWords } from "../../server/search/match/all-words.js";
import { rankOrderedMatches } from "../../server/search/match/match-list.js";
import { nearPhrase, pairIndexPhrase } from "../../server/search/match/phrase-strategies.js";
import { firstAnswer, type MatchRequest, type MatchStrategy } from "../../server/search/match/strategy.js";
import { WordBitmaps } from "../../server/search/match/word-bitmaps.js";
import { QueryPlanner, type ShardQuery } from "../../server/search/plan.js";
import { parseSearchQuery } from "../../server/search/query.js";
import { ShardTexts } from "../../server/search/texts.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

const VIDEOS = 400;

describe("match strategies", () => {
  let set: TempArtifacts;
  let db: Database.Database;
  let planner: QueryPlanner;
  let texts: ShardTexts;
  let df: (term: string) => number;
  let documents: number;
  /** Consecutive word pairs and triples of the corpus's own transcripts: phrases that match. */
  let phrases: string[];

  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 5, videos: VIDEOS, channels: 6 });
    set = await buildTempArtifacts(Array.from({ length: VIDEOS }, (_, i) => corpus.videoAt(i)));
    db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    planner = new QueryPlanner(db, true);
    texts = new ShardTexts(db, 0);
    const dfStatement = db.prepare("SELECT df FROM term_stats WHERE term = ?").pluck();
    df = (term) => (dfStatement.get(term) as number | undefined) ?? 0;
    documents = db.prepare("SELECT count(*) FROM transcripts").pluck().get() as number;
    const scripts = db.prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id IN (3, 50, 170, 390)").pluck().all() as string[];
    phrases = scripts.flatMap((script) => {
      const words = script.toLowerCase().match(/[a-z]+/g) ?? [];
      return [10, 40, 90].flatMap((at) => [words.slice(at, at + 2).join(" "), words.slice(at, at + 3).join(" ")]);
    });
  }, 120_000);
  afterAll(() => {
    db?.close();
    set?.cleanup();
  });

  const request = (query: ShardQuery, limit: number): MatchRequest => ({ query, limit, df, documents: () => documents });
  const tiers = (q: string, minViews = 0): ShardQuery[] => planner.plan(parseSearchQuery(q)!, { q, limit: 10, offset: 0, minViews });
  const ids = (answer: number[] | Map<number, unknown> | undefined) => (answer instanceof Map ? [...answer.keys()] : answer);

  it("the planner makes a phrase tier and an all-words tier of several words, one tier of one word, and none for an unknown channel", () => {
    const [phrase, rest] = tiers("river mill");
    expect(phrase).toMatchObject({ tier: 0, expression: 'script : ("river mill")' });
    expect(rest).toMatchObject({ tier: 1, countExpression: 'script : ("river" AND "mill")' });
    expect(tiers("river")).toHaveLength(1);
    expect(tiers("river")[0]).toMatchObject({ tier: 1 });
    expect(planner.plan(parseSearchQuery("river")!, { q: "river", limit: 10, offset: 0, channel: "UCnone" })).toEqual([]);
    // A popularity bound becomes a rank bound below the last rank.
    const views = db.prepare("SELECT view_count FROM videos WHERE id = 100").pluck().get() as number;
    expect(tiers("river", views)[0]!.bounds.maxRank).toBeLessThan(planner.lastRank());
  });

  it("each phrase strategy lists the phrase's matches as FTS5's phrase query does, wherever it answers", () => {
    const words = rankOrderedMatches(db, "transcript_fts", planner.lastRank());
    const pairs = rankOrderedMatches(db, "phrase_pairs", planner.lastRank());
    const strategies: MatchStrategy[] = [pairIndexPhrase(pairs, texts, 0.3), nearPhrase(words, texts, 1), nearPhrase(words, texts, 0)];
    let answered = 0;
    for (const q of phrases) {
      for (const minViews of [0, 1000]) {
        const phraseTier = tiers(q, minViews)[0]!;
        if (phraseTier.tier !== 0) continue;
        for (const limit of [1, 10, 100]) {
          const expected = words(phraseTier.expression, phraseTier.bounds, limit, 0);
          for (const strategy of strategies) {
            const got = ids(strategy.find(request(phraseTier, limit)));
            if (got === undefined) continue;
            answered++;
            expect(got, `${strategy.name}: ${q}`).toEqual(expected);
          }
        }
      }
    }
    // The pair index answers every phrase; NEAR with a share of 1 nearly every one.
    expect(answered).toBeGreaterThan(phrases.length * 6);
    // NEAR with a share of 0 never applies: it passes the query on.
    expect(nearPhrase(words, texts, 0).find(request(tiers(phrases[0]!)[0]!, 10))).toBeUndefined();
  });

  it("the word bitmaps list all the words' matches as FTS5's AND does, or pass", async () => {
    const bitmaps = new WordBitmaps();
    await bitmaps.load(db);
    expect(bitmaps.size).toBeGreaterThan(0);
    // Each word's share: the transcripts holding it (its bits) over those its bitmap covers.
    for (const [term, df] of db.prepare("SELECT term, df FROM word_bitmaps").raw().all() as [string, number][]) {
      const set = bitmaps.get(term)!;
      const bits = [...set].reduce((sum, word) => sum + [...word.toString(2)].filter((bit) => bit === "1").length, 0);
      expect(bits).toBe(df);
      expect(bitmaps.share(term)).toBe(bits / (set.length * 32));
    }
    expect(bitmaps.share("notaword")).toBe(0);
    const words = rankOrderedMatches(db, "transcript_fts", planner.lastRank());
    const slice = db.prepare("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? AND rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?").pluck();
    /** Rows FTS5 handed over, over every call. */
    let read = 0;
    const listFrom = (expression: string, after: number, maxRank: number, count: number) => {
      const rows = slice.all(expression, after, maxRank, count) as number[];
      read += rows.length;
      return rows;
    };
    const viaBitmaps = bitmapAllWords(bitmaps, listFrom, Number.MAX_SAFE_INTEGER);
    // Slices of one row and up, each as long as if every transcript held the common words: the list is
    // read in many slices, each picked up where the last ended.
    const inSlices = bitmapAllWords({ size: bitmaps.size, get: (term) => bitmaps.get(term), share: () => 1 }, listFrom, Number.MAX_SAFE_INTEGER, 1);
    const fts = ftsAllWords(words);
    let answered = 0;
    const views = db.prepare("SELECT view_count FROM videos WHERE id = 150").pluck().get() as number;
    for (const q of [...phrases, "the", "the and", "of a to"]) {
      for (const minViews of [0, views]) {
        const query = tiers(q, minViews).at(-1)!;
        for (const limit of [1, 10, 1001]) {
          const expected = fts.find(request(query, limit));
          expect(expected).toEqual(words(query.countExpression, query.bounds, limit, 0));
          const got = viaBitmaps.find(request(query, limit));
          if (got === undefined) continue;
          answered++;
          expect(got, q).toEqual(expected);
          expect(inSlices.find(request(query, limit)), q).toEqual(expected);
        }
      }
    }
    expect(answered).toBeGreaterThan(3 * 3 * 2);

    // A word with no bitmap beside a word with one that half its transcripts or fewer hold: the slices, sized
    // as if every transcript held that word, come up short, and the next picks up after the last; the list is
    // read only as far as the first matches take.
    const drivers = db
      .prepare("SELECT term FROM term_stats WHERE term NOT IN (SELECT term FROM word_bitmaps) AND df >= 6 AND term GLOB '[a-z]*' AND term NOT GLOB '*[0-9]*' ORDER BY df DESC, term")
      .pluck()
      .all() as string[];
    const withBitmaps = db.prepare("SELECT term FROM word_bitmaps ORDER BY df, term").pluck().all() as string[];
    let mixed: { term: string; common: string; query: ShardQuery; all: number[]; driver: number[] } | undefined;
    search: for (const term of drivers) {
      for (const common of withBitmaps) {
        const query = tiers(`${term} ${common}`).at(-1)!;
        const all = words(query.countExpression, query.bounds, 1001, 0);
        const driver = slice.all(`script : ("${term}")`, 0, query.bounds.maxRank, 1_000_000) as number[];
        if (all.length >= 3 && all.length * 2 <= driver.length && driver.indexOf(all[2]!) < driver.length - 1) {
          mixed = { term, common, query, all, driver };
          break search;
        }
      }
    }
    expect(mixed).toBeDefined();
    read = 0;
    expect(inSlices.find(request(mixed!.query, 3)), `${mixed!.term} ${mixed!.common}`).toEqual(mixed!.all.slice(0, 3));
    expect(read).toBeGreaterThan(3);
    expect(read).toBeLessThan(mixed!.driver.length);
    // firstAnswer takes the first strategy that answers, and tells which.
    const query = tiers("the").at(-1)!;
    expect(firstAnswer([viaBitmaps, fts], request(query, 10))?.by).toBe("word-bitmaps");
    expect(firstAnswer([nearPhrase(words, texts, 0), fts], request(query, 10))?.by).toBe("fts");
    expect(firstAnswer([], request(query, 10))).toBeUndefined();
  });

  it("counts exactly up to the cap and estimates above it, never at or below the cap nor above the rarest term", () => {
    const query = tiers("the and").at(-1)!;
    expect(countMatches(query, 7, 1000, df, { documents, averageLength: 1 })).toEqual({ total: 7, totalExact: true });
    const cap = 5;
    const estimate = countMatches(query, cap + 1, cap, df, { documents, averageLength: 1 });
    expect(estimate.totalExact).toBe(false);
    expect(estimate.total).toBeGreaterThan(cap);
    expect(estimate.total).toBeLessThanOrEqual(Math.min(df("the"), df("and")));
    expect(estimateTotal(query, 10_000, df, { documents, averageLength: 1 })).toBe(10_001);
  });
});
