/**
 * Search inside one database of the artifact schema: the published artifact
 * set (rowids are popularity ranks) or the live store (rowids in insertion
 * order). FTS5 finds matches in rowid order and stops after `candidates`;
 * those are scored with BM25 (plus a title/channel boost); the remaining
 * matches are read later as a stream, never sorted.
 */
import type Database from "better-sqlite3";
import { channelToken } from "../../pipeline/artifact/contract.js";
import { phrasePairs } from "../../pipeline/artifact/phrase-pairs.js";
import type { TitleIndex } from "../../pipeline/artifact/title-index.js";
import type { SearchHit, SearchParams } from "./catalog.js";
import { bm25, inverseDocumentFrequency, type CorpusStats } from "./bm25.js";
import type { HotTranscripts } from "./hot-transcripts.js";
import { containsPhrase } from "./phrase.js";
import { countTerms } from "./term-counts.js";
import type { ParsedQuery } from "./query.js";
import { hitText, watchUrl, type HitText } from "./moments.js";
import { MIN_PREFETCH, type TextPrefetch } from "./text-prefetch.js";
import { andOfSets, filterBySets, type WordBitmaps } from "./word-bitmaps.js";

/** Occurrences per term considered for a snippet window: the best window among the first few dozen is good enough. */
const SNIPPET_SPANS = 64;

/** What a FlexSearch Document search answers: the matching ids per field. */
type TitleFields = { field: string; result: number[] }[];

/** What scoring reads of a transcript: its length in words, its views and its text's UTF-8 bytes. */
type ScoringRow = { words: number; views: number; bytes: Buffer };

/** A full-text query's matches with rowid ≤ `maxRank` (and views ≥ `minViews` where that is not the same), in rowid order, `limit` of them from position `offset`. */
export type MatchList = (expression: string, maxRank: number, minViews: number, limit: number, offset: number) => number[];

/**
 * The matches of FTS5 table `table`, whose rowids are popularity ranks.
 * Below a bound, the rows are read one at a time and the reading stops at
 * the first past it: given the bound as a constraint (`rowid <= ?`), FTS5
 * went on through the words' lists past it when fewer than `limit` matches
 * lay below (by hand, 500,000 videos: `the as rough want` below rank 4,901,
 * 160 matches, 30 ms with the constraint and 0.7 ms read this way; `the
 * rough`, 297 matches, 18.6 and 0.6 ms). With no bound below `lastRank`,
 * `LIMIT` and `OFFSET` do it in one call.
 */
export function rankOrderedMatches(db: Database.Database, table: string, lastRank: number): MatchList {
  const open = db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`).pluck();
  const limited = db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid LIMIT ? OFFSET ?`).pluck();
  return (expression, maxRank, _minViews, limit, offset) => {
    if (maxRank >= lastRank) return limited.all(expression, limit, offset) as number[];
    const rows: number[] = [];
    if (limit <= 0) return rows;
    let position = 0;
    for (const id of open.iterate(expression) as Iterable<number>) {
      if (id > maxRank) break;
      if (position++ < offset) continue;
      rows.push(id);
      if (rows.length === limit) break;
    }
    return rows;
  };
}

/** The matches of the live store's FTS5 table, whose rowids are in insertion order: `minViews` is a join filter. */
function joinedMatches(db: Database.Database): MatchList {
  const joined = db.prepare(
    `SELECT f.rowid FROM transcript_fts f JOIN videos v ON v.id = f.rowid
     WHERE transcript_fts MATCH ? AND f.rowid <= ? AND v.view_count >= ? ORDER BY f.rowid LIMIT ? OFFSET ?`,
  ).pluck();
  return (expression, maxRank, minViews, limit, offset) => joined.all(expression, maxRank, minViews, limit, offset) as number[];
}

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
   * The database has a phrase-pair index (pipeline/artifact/phrase-pairs.ts): a
   * phrase's matches are those of the phrase of its consecutive pairs there.
   * Popularity-ordered shards only.
   */
  phrasePairs: boolean;
}

/** A query bound to one shard's filters, for one tier. */
export interface ShardQuery {
  parsed: ParsedQuery;
  /** 0: the whole query as a phrase; 1: all words, not as that phrase (or the only tier of a one-group query). */
  tier: number;
  expression: string;
  /** The channel filter's part of every expression ("" without one). */
  filter: string;
  /** The channel filter alone, an expression (`chan : "c12"`), "" without one. */
  channel: string;
  /** All tiers together: the plain AND of the query's words (tiers partition its matches), counted once. */
  countExpression: string;
  maxRank: number;
  minViews: number;
  channelTranscripts?: number;
  key: string;
}

export interface Scored {
  id: number;
  score: number;
  views: number;
}

export interface ShardHead {
  /** The first `candidates` matches, best first. */
  scored: Scored[];
  /** Snippets and moments made so far for this query, by rowid (kept with the cached head). */
  snippets: Map<number, HitText>;
  /** True when `scored` holds every match. */
  complete: boolean;
}

export interface ShardCount {
  total: number;
  totalExact: boolean;
}

export interface DocumentFrequencies {
  df(term: string): number;
  stats(): CorpusStats;
}

export class ShardSearch {
  readonly #titles: TitleIndex | undefined;
  readonly #options: ShardOptions;
  readonly #frequencies: DocumentFrequencies;
  readonly #hot: HotTranscripts | undefined;
  readonly #prefetch: TextPrefetch | undefined;
  readonly #bitmaps: WordBitmaps | undefined;
  /** The last query's title lookups, by term (#titleMatches). */
  #lastTitles: { parsed: ParsedQuery; byTerm: Map<string, TitleFields> } | undefined;
  /** The last list of all words' matches (#allMatches) and the last second tier read off one (#secondTier), kept where the content never changes. */
  #lastAll: { key: string; rows: number[] } | undefined;
  #lastSecond: { key: string; tier: { rows: number[]; complete: boolean } } | undefined;
  readonly #sql;

  /**
   * `memory.index` answers the full-text queries (FTS5 and its vocabulary),
   * `db` everything else: two connections to one file when the index is held
   * in its own page cache (index-memory.ts), else the same one.
   * `memory.hot` holds the text of the most viewed transcripts
   * (hot-transcripts.ts), read instead of the database where it has them.
   * `memory.prefetch` reads in parallel the other texts a query is about to
   * read one by one (text-prefetch.ts). `memory.bitmaps` holds the common
   * words' sets (word-bitmaps.ts), through which the list of all the words'
   * matches is read where it can be; popularity-ordered shards only.
   */
  constructor(
    db: Database.Database,
    titles: TitleIndex | undefined,
    frequencies: DocumentFrequencies,
    options: ShardOptions,
    memory: { index?: Database.Database; hot?: HotTranscripts; prefetch?: TextPrefetch; bitmaps?: WordBitmaps } = {},
  ) {
    const index = memory.index ?? db;
    this.#hot = memory.hot;
    this.#bitmaps = options.popularityOrdered ? memory.bitmaps : undefined;
    this.#prefetch = memory.prefetch;
    this.#titles = titles;
    this.#options = options;
    this.#frequencies = frequencies;
    // Without popularity order, minViews is a join filter and the rowid bound is the table's end;
    // the popularity-ordered matches take the same parameters and ignore minViews (the rank bound does its work).
    const maxRank = db.prepare("SELECT coalesce(max(id), 0) FROM videos").pluck();
    // The artifact set's content never changes: its last rank is read once.
    const lastRank = options.popularityOrdered ? (maxRank.get() as number) : 0;
    // Each occurrence of a term, by document: term frequencies straight from the index (temp: nothing is written to the file).
    index.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.transcript_fts_instances USING fts5vocab(main, transcript_fts, instance)");
    this.#sql = {
      pairs: options.phrasePairs && options.popularityOrdered ? rankOrderedMatches(index, "phrase_pairs", lastRank) : undefined,
      // Counted and filtered to the candidates inside SQLite: each of the term's occurrences is a row of
      // the vocabulary table, and stepping through them one by one from JavaScript cost several times more.
      instances: index.prepare(
        `SELECT doc, count(*) FROM temp.transcript_fts_instances
         WHERE term = ? AND col = 'script' AND doc IN (SELECT value FROM json_each(?)) GROUP BY doc`,
      ).raw(),
      matches: options.popularityOrdered
        ? rankOrderedMatches(index, "transcript_fts", lastRank)
        : joinedMatches(index),
      // All of a short list at once, for the word bitmaps to filter (#bitmapMatches).
      wholeList: index.prepare("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? ORDER BY rowid").pluck(),
      // The text as a BLOB: UTF-8 bytes, counted without decoding (term-counts.ts).
      scoring: db.prepare(
        `SELECT t.word_count AS words, CAST(t.script AS BLOB) AS bytes, v.view_count AS views
         FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?`,
      ),
      scoringWithoutText: db.prepare(
        `SELECT t.word_count AS words, v.view_count AS views
         FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?`,
      ),
      script: db.prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck(),
      timings: db.prepare("SELECT t.timings FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck(),
      // Reads the text's pages without making a string of it (the read-ahead's probe).
      textLength: db.prepare("SELECT length(CAST(t.script AS BLOB)) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck(),
      // A result's word count is its transcript's: from memory where it is held there (hot-transcripts.ts), else `scoringWithoutText`.
      hit: db.prepare(
        `SELECT v.video_id AS videoId, v.title AS title, c.channel_id AS channelId, c.title AS channelTitle, v.view_count AS viewCount
         FROM videos v JOIN channels c ON c.id = v.channel WHERE v.id = ?`,
      ),
      channel: db.prepare("SELECT id, transcript_count AS transcripts FROM channels WHERE channel_id = ?"),
      rankBelow: db.prepare(
        "SELECT min(id) FROM videos WHERE view_count = (SELECT max(view_count) FROM videos WHERE view_count < ?)",
      ).pluck(),
      maxRank,
    };
  }

  /**
   * Binds the query to this shard's filters, one query per tier (phrase
   * matches first, then the other matches of all words); empty when nothing
   * here can match.
   */
  bind(parsed: ParsedQuery, params: SearchParams): ShardQuery[] {
    let maxRank = this.#sql.maxRank.get() as number;
    let channelOnly = "";
    let channelTranscripts: number | undefined;
    if (params.channel !== undefined) {
      const channel = this.#sql.channel.get(params.channel) as { id: number; transcripts: number } | undefined;
      if (!channel) return [];
      channelOnly = `chan : "${channelToken(channel.id)}"`;
      channelTranscripts = channel.transcripts;
    }
    const channelPart = channelOnly ? `${channelOnly} AND ` : "";
    const minViews = params.minViews ?? 0;
    if (minViews > 0 && this.#options.popularityOrdered) {
      // Ranks are in descending view order: the first video below minViews bounds the rowids.
      const below = this.#sql.rankBelow.get(minViews) as number | null;
      if (below !== null) maxRank = below - 1;
    }
    if (maxRank <= 0) return [];
    const effectiveMinViews = this.#options.popularityOrdered ? 0 : minViews;
    const expressions = parsed.phrase
      ? [
          `${channelPart}script : (${parsed.phrase})`,
          `${channelPart}script : (${parsed.expression}) NOT script : (${parsed.phrase})`,
        ]
      : [`${channelPart}script : (${parsed.expression})`];
    const countExpression = `${channelPart}script : (${parsed.expression})`;
    return expressions.map((expression, tier) => {
      const query: ShardQuery = {
        parsed,
        tier: expressions.length === 1 ? 1 : tier,
        expression,
        filter: channelPart,
        channel: channelOnly,
        countExpression,
        maxRank,
        minViews: effectiveMinViews,
        key: `${expression}\u0000${maxRank}\u0000${effectiveMinViews}`,
      };
      if (channelTranscripts !== undefined) query.channelTranscripts = channelTranscripts;
      return query;
    });
  }

  head(query: ShardQuery): ShardHead {
    const k = this.#options.candidates;
    const corpus = this.#frequencies.stats();
    const terms = query.parsed.terms;
    const dfs = terms.map((term) => this.#frequencies.df(term));
    const dfOf = new Map(terms.map((term, i) => [term, dfs[i]!]));
    const phrase = query.tier === 0 ? this.#phraseMatches(query, k, dfOf, corpus.documents) : undefined;
    const confirmed = phrase instanceof Map ? phrase : undefined;
    // The tier's first k matches, where the phrase tier did not find them its own way.
    const candidates = phrase instanceof Map ? [...phrase.keys()] : (phrase ?? this.stream(query, 0, k));
    const idf = dfs.map((df) => inverseDocumentFrequency(df, corpus.documents));
    const titleTerms = terms.filter((_, i) => dfs[i]! <= corpus.documents * this.#options.titleTermMaxShare);
    const boosts = this.#titleMatches(query.parsed, titleTerms, candidates);
    // Every candidate contains every term (the tiers AND them), so tf ≥ 1. Terms in most transcripts
    // ("the", "i") carry almost no idf and are costly to count: they are scored as present, tf = 1.
    const counted = terms.flatMap((term, i) => (dfs[i]! <= corpus.documents * this.#options.countTermMaxShare ? [i] : []));
    // Rare terms are counted from the index (their few occurrences), the others in each candidate's text.
    const fromIndex = new Map<number, Map<number, number>>();
    for (const i of counted) {
      if (dfs[i]! <= this.#options.indexCountMaxDf) fromIndex.set(i, this.#occurrencesInIndex(terms[i]!, candidates));
    }
    const inText = counted.filter((i) => !fromIndex.has(i));
    const inTextTerms = inText.map((i) => terms[i]!);
    if (inText.length > 0 && !confirmed) this.prefetch(candidates);
    const scored = candidates.map((id) => {
      const frequencies = new Array<number>(terms.length).fill(1);
      for (const [i, counts] of fromIndex) frequencies[i] = Math.max(1, counts.get(id) ?? 1);
      let row: { words: number; views: number; bytes?: Buffer };
      if (inText.length === 0) row = confirmed?.get(id) ?? this.#hot?.get(id) ?? (this.#sql.scoringWithoutText.get(id) as typeof row);
      else {
        row = confirmed?.get(id) ?? this.#scoringRow(id);
        countTerms(row.bytes!, inTextTerms).forEach((tf, j) => (frequencies[inText[j]!] = Math.max(1, tf)));
      }
      const base = bm25(frequencies, idf, row.words, corpus);
      return { id, score: base * (boosts.get(id) ?? 1), views: row.views };
    });
    scored.sort(compareScored);
    return { scored, snippets: new Map(), complete: candidates.length < k };
  }

  /**
   * Occurrences of `term` in each of `ids`, from the FTS5 index itself (one
   * row per occurrence in fts5vocab's instance table): for a rare term that
   * is a few thousand index entries at most, where counting in the text
   * would read each candidate's whole transcript from disk. Exact, like the
   * index: no prefix, no case forms.
   */
  #occurrencesInIndex(term: string, ids: readonly number[]): Map<number, number> {
    if (ids.length === 0) return new Map();
    return new Map(this.#sql.instances.all(term, JSON.stringify(ids)) as [number, number][]);
  }

  /**
   * The first `k` matches of the phrase tier without FTS5's phrase query of
   * its terms, or undefined when that query is the way:
   * - with a phrase-pair index, the matches of the phrase of its pairs there
   *   (a list of rowids, exact);
   * - else, candidates from NEAR(rarest, second rarest, their distance in
   *   the phrase), each confirmed in its text, when those two terms are not
   *   too common to make NEAR cheap; confirmed matches come with their text
   *   and scoring inputs (a Map), kept for scoring.
   */
  #phraseMatches(
    query: ShardQuery,
    k: number,
    dfOf: ReadonlyMap<string, number>,
    documents: number,
  ): number[] | Map<number, ScoringRow> | undefined {
    const terms = query.parsed.phraseTerms;
    if (!terms || terms.length < 2) return undefined;
    // The phrase's terms are the query's terms (repeats kept), whose frequencies the caller looked up once.
    const ranked = terms.map((term, position) => ({ term, position, df: dfOf.get(term) ?? 0 })).sort((a, b) => a.df - b.df);
    const rarest = ranked[0]!;
    // Confirming costs a read of the text for each candidate that fails: past k/2 of them, an exact query is cheaper.
    const maxFailures = Math.max(8, Math.floor(k / 2));
    if (this.#sql.pairs) {
      const pairs = this.#sql.pairs;
      const exact = () => pairs(this.#pairsExpression(query), query.maxRank, query.minViews, k, 0);
      const near = this.#pairsWithoutCommonPair(query, dfOf, documents);
      if (near === undefined) return exact();
      const candidates = pairs(near, query.maxRank, query.minViews, k + maxFailures + 1, 0);
      return this.#confirmPhrase(candidates, terms, rarest.position, k, maxFailures) ?? exact();
    }
    const second = ranked.find((r) => r.term !== rarest.term);
    if (!second || second.df > documents * this.#options.nearTermMaxShare) return undefined;
    const [left, right] = rarest.position < second.position ? [rarest, second] : [second, rarest];
    const near = `${query.filter}script : NEAR("${left.term}" "${right.term}", ${right.position - left.position - 1})`;
    // NEAR is unordered and allows up to the distance: often, but not always, its candidates are the phrase.
    // Running out of these before k are confirmed means more than maxFailures failed, so this many always suffice.
    const candidates = this.#sql.matches(near, query.maxRank, query.minViews, k + maxFailures + 1, 0);
    return this.#confirmPhrase(candidates, terms, rarest.position, k, maxFailures);
  }

  /**
   * The first `k` of `candidates` (rowid order) that contain the phrase,
   * each read and checked in its text; undefined once more than
   * `maxFailures` do not.
   */
  #confirmPhrase(candidates: number[], terms: readonly string[], anchor: number, k: number, maxFailures: number): Map<number, ScoringRow> | undefined {
    const confirmed = new Map<number, ScoringRow>();
    let failures = 0;
    // The first k are read whatever happens; the rest only as far as failures make room for them.
    this.prefetch(candidates.slice(0, k));
    for (const [at, id] of candidates.entries()) {
      if (confirmed.size === k) break;
      if (at === k) this.prefetch(candidates.slice(k));
      const row = this.#scoringRow(id);
      if (containsPhrase(row.bytes, terms, anchor)) confirmed.set(id, row);
      else if (++failures > maxFailures) return undefined;
    }
    return confirmed;
  }

  /**
   * A pair of two very common words inside a phrase (`to_the` in "led to
   * the appropriate") has a list nearly as long as its words': the phrase
   * of pairs walks it through every transcript holding the other pairs. Its
   * neighbours hold both its words, so it can be left out: the query is
   * then the pairs before it and the pairs after it, NEAR at a distance of
   * one token, a superset of the phrase's matches to confirm in the text.
   * undefined when the phrase has no such interior pair (its first and last
   * pairs are never left out).
   */
  #pairsWithoutCommonPair(query: ShardQuery, dfOf: ReadonlyMap<string, number>, documents: number): string | undefined {
    const terms = query.parsed.phraseTerms!;
    const pairs = phrasePairs(terms);
    const ceiling = documents * this.#options.nearTermMaxShare;
    let skip = -1;
    let skipDf = 0;
    for (let i = 1; i < pairs.length - 1; i++) {
      const df = Math.min(dfOf.get(terms[i]!) ?? 0, dfOf.get(terms[i + 1]!) ?? 0);
      if (df > ceiling && df > skipDf) [skip, skipDf] = [i, df];
    }
    if (skip < 0) return undefined;
    return `${query.filter}pairs : NEAR("${pairs.slice(0, skip).join(" ")}" "${pairs.slice(skip + 1).join(" ")}", 1)`;
  }

  /** The phrase tier's query on the phrase-pair index: the phrase of the phrase's pairs, and the channel filter. */
  #pairsExpression(query: ShardQuery): string {
    return `${query.filter}pairs : "${phrasePairs(query.parsed.phraseTerms!).join(" ")}"`;
  }

  /** Matches of all tiers (`countExpression`), counted exactly up to the cap, estimated above it. */
  count(query: ShardQuery): ShardCount {
    const cap = this.#options.exactCountCap;
    const counted = this.#allMatches(query).length;
    if (counted <= cap) return { total: counted, totalExact: true };
    return { total: this.#estimate(query, cap), totalExact: false };
  }

  /**
   * The first `exactCountCap + 1` matches of all the query's words
   * (`countExpression`, every tier), in rowid order: the count is their
   * number, and the second tier is read off them (#secondTier), so FTS5
   * walks the words' lists once for both. In a database whose content
   * never changes (an artifact set) the last list is kept, since one search
   * asks for it from its head and from its count.
   */
  #allMatches(query: ShardQuery): number[] {
    const key = `${query.countExpression}\u0000${query.maxRank}\u0000${query.minViews}`;
    if (this.#lastAll?.key === key) return this.#lastAll.rows;
    const limit = this.#options.exactCountCap + 1;
    const rows = this.#bitmapMatches(query, limit) ?? this.#sql.matches(query.countExpression, query.maxRank, query.minViews, limit, 0);
    if (this.#options.popularityOrdered) this.#lastAll = { key, rows };
    return rows;
  }

  /**
   * What `#allMatches` asks FTS5 for, through the word bitmaps
   * (word-bitmaps.ts), or undefined where they do not make it cheaper:
   * - every group a word with a bitmap, no channel: the AND of the bitmaps;
   * - else the list of FTS5's answer for the other groups and the channel
   *   filter alone, filtered by the bitmaps, when that list is short (at
   *   most `bitmapDriverMaxDf`, going by the document frequencies): FTS5
   *   reads it quickly, where the AND of all the groups walked the common
   *   words' long lists beside it.
   */
  #bitmapMatches(query: ShardQuery, limit: number): number[] | undefined {
    if (!this.#bitmaps || this.#bitmaps.size === 0) return undefined;
    const sets: Uint32Array[] = [];
    const rest: string[] = [];
    for (const group of query.parsed.groups) {
      const set = group.includes(" ") ? undefined : this.#bitmaps.get(group);
      if (set) sets.push(set);
      else rest.push(group);
    }
    if (sets.length === 0) return undefined;
    if (rest.length === 0 && !query.channel) return andOfSets(sets, query.maxRank, limit);
    // A group's matches are at most its rarest word's.
    const driverDf = Math.min(
      query.channelTranscripts ?? Number.POSITIVE_INFINITY,
      ...rest.map((group) => Math.min(...group.split(" ").map((term) => this.#frequencies.df(term)))),
    );
    if (driverDf > this.#options.bitmapDriverMaxDf) return undefined;
    const expression = rest.length > 0 ? `${query.filter}script : (${rest.map((group) => `"${group}"`).join(" AND ")})` : query.channel;
    return filterBySets(this.#sql.wholeList.all(expression) as number[], sets, query.maxRank, limit);
  }

  /**
   * The second tier's matches in rowid order, as far as the list of all
   * words' matches reaches (#allMatches); `complete` when that list holds
   * every match. That tier is all the words without the phrase: where the
   * phrase-pair index lists the phrase's matches (which are among all the
   * words' matches), it is that list less those up to its last rowid,
   * instead of FTS5's `NOT "phrase"`, which checks the words' positions
   * in every transcript holding them all. A query of one word group has a
   * single tier: the list itself. undefined where neither applies (the
   * live store, or pairs off): the tier is FTS5's query of `expression`.
   */
  #secondTier(query: ShardQuery): { rows: number[]; complete: boolean } | undefined {
    if (!this.#options.popularityOrdered) return undefined;
    const phrase = query.parsed.phraseTerms !== undefined;
    if (phrase && !this.#sql.pairs) return undefined;
    const all = this.#allMatches(query);
    const complete = all.length <= this.#options.exactCountCap;
    if (!phrase || all.length === 0) return { rows: all, complete };
    // One search reads its second tier for the head and again for each page streamed past it.
    if (this.#lastSecond?.key === query.key) return this.#lastSecond.tier;
    const last = all[all.length - 1]!;
    const inPhrase = new Set(this.#sql.pairs!(this.#pairsExpression(query), last, query.minViews, all.length, 0));
    const tier = { rows: all.filter((id) => !inPhrase.has(id)), complete };
    this.#lastSecond = { key: query.key, tier };
    return tier;
  }

  /** Matches in rowid order from position `from`: the head reads positions below `candidates` here, the pages past it read on. */
  stream(query: ShardQuery, from: number, count: number): number[] {
    if (count <= 0) return [];
    // The pair index lists the phrase's matches, in the same order.
    if (query.tier === 0 && this.#sql.pairs) {
      return this.#sql.pairs(this.#pairsExpression(query), query.maxRank, query.minViews, count, from);
    }
    const listed = query.tier === 1 ? this.#secondTier(query) : undefined;
    if (listed && (listed.complete || from + count <= listed.rows.length)) return listed.rows.slice(from, from + count);
    return this.#sql.matches(query.expression, query.maxRank, query.minViews, count, from);
  }

  /**
   * Has the text of those of `ids` not held in memory read ahead in parallel
   * (text-prefetch.ts), when the first of them, read here, came from disk
   * (`readAheadColdMicros`).
   */
  prefetch(ids: readonly number[], snippets?: ReadonlyMap<number, unknown>): void {
    if (!this.#prefetch) return;
    const wanted = ids.filter((id) => !this.#hot?.get(id) && !snippets?.has(id));
    if (wanted.length < MIN_PREFETCH) return;
    // The first is read here, as it would be anyway: from the operating system's cache that takes tens of
    // microseconds, from disk hundreds or more (by hand, 500,000 videos: cached p50 75, p90 123 µs; from a
    // dropped cache min 245 µs, p50 8 ms). A cache is mostly filled or emptied as a whole, so the rest are
    // taken to be where the first was.
    const cold = this.#options.readAheadColdMicros;
    if (cold > 0) {
      const started = performance.now();
      this.#sql.textLength.get(wanted[0]);
      if ((performance.now() - started) * 1000 < cold) return;
    }
    this.#prefetch.read(cold > 0 ? wanted.slice(1) : wanted);
  }

  /** A result row, with its snippet and moments (moments.ts) made once per query and kept in `snippets`. */
  hit(id: number, parsed: ParsedQuery, snippets: Map<number, HitText>): SearchHit {
    const hot = this.#hot?.get(id);
    const words = hot?.words ?? (this.#sql.scoringWithoutText.get(id) as { words: number }).words;
    const row = { ...(this.#sql.hit.get(id) as Omit<SearchHit, keyof HitText | "url" | "wordCount">), wordCount: words };
    let text = snippets.get(id);
    if (text === undefined) {
      const script = hot?.bytes.toString("utf8") ?? (this.#sql.script.get(id) as string);
      const timings = this.#sql.timings.get(id) as Buffer;
      text = hitText(script, timings, parsed, { maxChars: this.#options.snippetChars, maxSpans: SNIPPET_SPANS });
      // Bounded: a page is at most 100 hits, and a query's head is evicted with its cache entry.
      if (snippets.size < 1000) snippets.set(id, text);
    }
    return { ...row, ...text, url: watchUrl(row.videoId, text.startSeconds) };
  }

  /** Word count, views and text of a transcript, from memory when it is held there. */
  #scoringRow(id: number): ScoringRow {
    return this.#hot?.get(id) ?? (this.#sql.scoring.get(id) as ScoringRow);
  }

  /** Drops what is kept of the last query (title lookups, the list of all words' matches, the second tier). */
  forget(): void {
    this.#lastTitles = undefined;
    this.#lastAll = undefined;
    this.#lastSecond = undefined;
  }

  get candidates(): number {
    return this.#options.candidates;
  }

  /**
   * Multipliers for candidates whose title or channel name matches the query
   * (FlexSearch): a title (or channel name) matches when it holds every one
   * of `terms`. Each term is looked up on its own, all its matches, and only
   * the candidates are checked against them: FlexSearch's own intersection
   * of a query with a short word in it took 35-90 ms at 500,000 titles
   * ("en" is the start of 88,105 of them), where each term alone takes a
   * millisecond or two. The tiers of one query look up the same words: the
   * lookups are kept for the query they were made for (one parsed query per
   * search).
   */
  #titleMatches(parsed: ParsedQuery, terms: string[], candidates: number[]): Map<number, number> {
    const boosts = new Map<number, number>();
    if (candidates.length === 0 || terms.length === 0 || !this.#titles) return boosts;
    if (this.#lastTitles?.parsed !== parsed) this.#lastTitles = { parsed, byTerm: new Map() };
    const byTerm = this.#lastTitles.byTerm;
    const wanted = new Set(candidates);
    /** Per field, how many of the terms each candidate's field holds. */
    const held = new Map<string, Map<number, number>>();
    for (const term of terms) {
      let fields = byTerm.get(term);
      if (!fields) byTerm.set(term, (fields = this.#titles.search(term, { limit: Number.MAX_SAFE_INTEGER }) as unknown as TitleFields));
      for (const { field, result } of fields) {
        let counts = held.get(field);
        if (!counts) held.set(field, (counts = new Map()));
        for (const id of result) if (wanted.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
    }
    for (const [field, counts] of held) {
      const factor = field === "title" ? this.#options.titleBoost : this.#options.channelBoost;
      for (const [id, count] of counts) if (count === terms.length) boosts.set(id, (boosts.get(id) ?? 1) * factor);
    }
    return boosts;
  }

  /**
   * Above the cap, the total is estimated from document frequencies assuming
   * independent terms, bounded by the rarest term and by the filters, and
   * rounded to two significant digits so it reads as the estimate it is.
   */
  #estimate(query: ShardQuery, cap: number): number {
    const n = Math.max(1, this.#frequencies.stats().documents);
    const dfs = query.parsed.terms.map((t) => this.#frequencies.df(t));
    const rarest = Math.min(...dfs);
    let estimate = Math.min(Math.max(dfs.reduce((acc, df) => acc * (df / n), n), rarest * 0.5), rarest);
    if (query.channelTranscripts !== undefined) estimate = Math.min(estimate * (query.channelTranscripts / n) * 4, query.channelTranscripts);
    estimate *= Math.min(1, query.maxRank / n);
    const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(1, estimate))) - 1);
    return Math.max(cap + 1, Math.round(estimate / magnitude) * magnitude);
  }
}

/** Best score first; on equal scores, more views first. */
export function compareScored(a: Scored, b: Scored): number {
  return b.score - a.score || b.views - a.views;
}
