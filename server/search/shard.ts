/**
 * Search inside one database of the artifact schema: the published artifact
 * set (rowids are popularity ranks) or the live store (rowids in insertion
 * order). FTS5 finds matches in rowid order and stops after `candidates`;
 * those are scored with BM25 (plus a title/channel boost); the remaining
 * matches are read later as a stream, never sorted.
 *
 * This class wires the parts together: planning (plan.ts), the match
 * strategies (match/), scoring (rank/), counting (count.ts), where texts
 * are read from (texts.ts) and snippets (snippet/).
 */
import type Database from "better-sqlite3";
import type { TitleIndex } from "../../pipeline/artifact/search-index/index.js";
import type { SearchHit, SearchParams } from "../data/catalog.js";
import { countMatches, type ShardCount } from "./count.js";
import { bitmapAllWords, ftsAllWords, WordMatches } from "./match/all-words.js";
import { joinedMatches, rankOrderedMatches, type MatchList } from "./match/match-list.js";
import { nearPhrase, pairIndexPhrase } from "./match/phrase-strategies.js";
import { firstAnswer, type MatchStrategy } from "./match/strategy.js";
import type { WordBitmaps } from "./match/word-bitmaps.js";
import type { HotTranscripts } from "./memory/hot-transcripts.js";
import type { TextPrefetch } from "./memory/text-prefetch.js";
import { QueryPlanner, type ShardQuery } from "./plan.js";
import type { ParsedQuery } from "./query.js";
import type { CorpusStats } from "./rank/bm25.js";
import { IndexTermCounts } from "./rank/index-term-counts.js";
import { compareScored, scoreCandidates, type Scored } from "./rank/score.js";
import { TitleBoosts } from "./rank/title-boost.js";
import { hitText, watchUrl, type HitText } from "./snippet/moments.js";
import { ShardTexts } from "./texts.js";
import type { StoredTermCounts } from "./memory/stored-term-counts.js";

export { compareScored, rankOrderedMatches, type MatchList, type Scored, type ShardCount, type ShardQuery };

/** Occurrences per term considered for a snippet window: the best window among the first few dozen is good enough. */
const SNIPPET_SPANS = 64;

export interface ShardOptions {
  candidates: number;
  exactCountCap: number;
  titleBoost: number;
  channelBoost: number;
  snippetChars: number;
  /** Terms in more than this share of transcripts are not looked up in titles: a title match on them says nothing. */
  titleTermMaxShare: number;
  /** Terms in more than this share of transcripts are scored as present (tf = 1) instead of counted. */
  countTermMaxShare: number;
  /**
   * A phrase whose two rarest terms are both in at most this share of
   * transcripts is found through a NEAR query of those two terms, each
   * candidate confirmed in its text, instead of FTS5's phrase query.
   */
  nearTermMaxShare: number;
  /** Terms in at most this many transcripts are counted from the FTS5 index rather than in the candidates' text. */
  indexCountMaxDf: number;
  /** The word bitmaps filter an FTS5 list of the query's other words only when it holds at most this many transcripts (SearchOptions). */
  bitmapDriverMaxDf: number;
  /** Texts are read ahead only when the first of them took at least this long (µs) to read here; 0: always (SearchOptions). */
  readAheadColdMicros: number;
  /** True when rowids are popularity ranks, so `minViews` is a rowid bound. */
  popularityOrdered: boolean;
  /**
   * The database has a phrase-pair index (pipeline/artifact/search-index/phrase-pairs.ts): a
   * phrase's matches are those of the phrase of its consecutive pairs there.
   * Popularity-ordered shards only.
   */
  phrasePairs: boolean;
}

export interface ShardHead {
  /** The first `candidates` matches, best first. */
  scored: Scored[];
  /** Snippets made so far for this query, by rowid (kept with the cached head). */
  snippets: Map<number, HitText>;
  /** True when `scored` holds every match. */
  complete: boolean;
}

export interface DocumentFrequencies {
  df(term: string): number;
  stats(): CorpusStats;
}

export class ShardSearch {
  readonly #options: ShardOptions;
  readonly #frequencies: DocumentFrequencies;
  readonly #planner: QueryPlanner;
  readonly #texts: ShardTexts;
  readonly #titles: TitleBoosts;
  readonly #indexCounts: IndexTermCounts;
  /** The ways of finding the phrase tier's first matches, tried in order; without an answer the tier's own list is read. */
  readonly #phraseStrategies: MatchStrategy[];
  readonly #words: WordMatches;
  readonly #hit;

  /**
   * `memory.index` answers the full-text queries (FTS5 and its vocabulary),
   * `db` everything else: two connections to one file when the index is held
   * in its own page cache (memory/index-memory.ts), else the same one.
   * `memory.hot` and `memory.prefetch` are where texts come from (texts.ts).
   * `memory.bitmaps` holds the common words' sets (match/word-bitmaps.ts),
   * through which the list of all the words' matches is read where it can
   * be; popularity-ordered shards only.
   */
  constructor(
    db: Database.Database,
    titles: TitleIndex | undefined,
    frequencies: DocumentFrequencies,
    options: ShardOptions,
    memory: { index?: Database.Database; hot?: HotTranscripts; counts?: StoredTermCounts; prefetch?: TextPrefetch; bitmaps?: WordBitmaps } = {},
  ) {
    const index = memory.index ?? db;
    this.#options = options;
    this.#frequencies = frequencies;
    this.#planner = new QueryPlanner(db, options.popularityOrdered);
    this.#texts = new ShardTexts(db, options.readAheadColdMicros, memory);
    this.#titles = new TitleBoosts(titles, options, options.popularityOrdered);
    this.#indexCounts = new IndexTermCounts(index);
    // The artifact set's content never changes: its last rank is read once. Without popularity order,
    // every filter on the video row is a join filter and the rowid bound is the table's end (filters.ts).
    const lastRank = options.popularityOrdered ? this.#planner.lastRank() : 0;
    const matches = options.popularityOrdered ? rankOrderedMatches(index, "transcript_fts", lastRank) : joinedMatches(index);
    const pairs = options.phrasePairs && options.popularityOrdered ? rankOrderedMatches(index, "phrase_pairs", lastRank) : undefined;
    this.#phraseStrategies = [pairs ? pairIndexPhrase(pairs, this.#texts, options.nearTermMaxShare) : nearPhrase(matches, this.#texts, options.nearTermMaxShare)];
    const bitmaps = options.popularityOrdered ? memory.bitmaps : undefined;
    // A short list, a slice at a time, for the word bitmaps to filter (FTS5 seeks to the rowid bound).
    const listFrom = index.prepare("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? AND rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?").pluck();
    this.#words = new WordMatches(
      options,
      [...(bitmaps ? [bitmapAllWords(bitmaps, (expression, after, maxRank, count) => listFrom.all(expression, after, maxRank, count) as number[], options.bitmapDriverMaxDf)] : []), ftsAllWords(matches)],
      { matches, pairs },
      (term) => frequencies.df(term),
    );
    // A result's word count is its transcript's (texts.ts).
    this.#hit = db.prepare(
      `SELECT v.video_id AS videoId, v.title AS title, c.channel_id AS channelId, c.title AS channelTitle, v.view_count AS viewCount
       FROM videos v JOIN channels c ON c.id = v.channel WHERE v.id = ?`,
    );
  }

  /**
   * Binds the query to this shard's filters, one query per tier (phrase
   * matches first, then the other matches of all words); empty when nothing
   * here can match (plan.ts).
   */
  bind(parsed: ParsedQuery, params: SearchParams): ShardQuery[] {
    return this.#planner.plan(parsed, params);
  }

  /** The tier's first `candidates` matches, scored, best first. */
  head(query: ShardQuery): ShardHead {
    const k = this.#options.candidates;
    const corpus = this.#frequencies.stats();
    const terms = query.parsed.terms;
    const dfs = terms.map((term) => this.#frequencies.df(term));
    const dfOf = new Map(terms.map((term, i) => [term, dfs[i]!]));
    const request = { query, limit: k, df: (term: string) => dfOf.get(term) ?? 0, documents: () => corpus.documents };
    const phrase = query.tier === 0 ? firstAnswer(this.#phraseStrategies, request)?.matches : undefined;
    const confirmed = phrase instanceof Map ? phrase : undefined;
    // The tier's first k matches, where the phrase tier did not find them its own way.
    const candidates = phrase instanceof Map ? [...phrase.keys()] : (phrase ?? this.stream(query, 0, k));
    const titleTerms = terms.filter((_, i) => dfs[i]! <= corpus.documents * this.#options.titleTermMaxShare);
    const boosts = this.#titles.boosts(query.parsed, titleTerms, candidates);
    const scored = scoreCandidates({ terms, dfs, corpus, candidates, confirmed, boosts }, this.#options, this.#texts, this.#indexCounts);
    return { scored, snippets: new Map(), complete: candidates.length < k };
  }

  /** Matches of all tiers (`countExpression`), counted exactly up to the cap, estimated above it (count.ts). */
  count(query: ShardQuery): ShardCount {
    const cap = this.#options.exactCountCap;
    return countMatches(query, this.#words.all(query).length, cap, (term) => this.#frequencies.df(term), this.#frequencies.stats());
  }

  /** Matches in rowid order from position `from`: the head reads positions below `candidates` here, the pages past it read on. */
  stream(query: ShardQuery, from: number, count: number): number[] {
    return this.#words.stream(query, from, count);
  }

  /**
   * Has the text and timings of those of `ids` not held in memory nor in
   * `snippets` read ahead in parallel (texts.ts), when the first of them came
   * from disk: the page's hits, whose snippets and moments read both.
   */
  prefetch(ids: readonly number[], snippets?: ReadonlyMap<number, unknown>): void {
    this.#texts.prefetch(ids, snippets, true);
  }

  /** A result row, with its snippet and moments (snippet/moments.ts) made once per query and kept in `snippets`. */
  hit(id: number, parsed: ParsedQuery, snippets: Map<number, HitText>): SearchHit {
    const words = this.#texts.counts(id).words;
    const row = { ...(this.#hit.get(id) as Omit<SearchHit, keyof HitText | "url" | "wordCount">), wordCount: words };
    let text = snippets.get(id);
    if (text === undefined) {
      const { script, ascii, bytes, segments } = this.#texts.text(id);
      text = hitText(script, segments, parsed, { maxChars: this.#options.snippetChars, maxSpans: SNIPPET_SPANS, ascii, bytes });
      // Bounded: a page is at most 100 hits, and a query's head is evicted with its cache entry.
      if (snippets.size < 1000) snippets.set(id, text);
    }
    return { ...row, ...text, url: watchUrl(row.videoId, text.startSeconds) };
  }

  /** Drops what is kept of the last query (title lookups, the list of all words' matches, the second tier). */
  forget(): void {
    this.#titles.forget();
    this.#words.forget();
  }

  get candidates(): number {
    return this.#options.candidates;
  }
}
