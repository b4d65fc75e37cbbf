/**
 * Transcript search over one artifact database.
 *
 * FTS5 finds matches; rowids are popularity ranks, so the first `candidates`
 * matches in rowid order are the most-viewed ones and are found without
 * touching the rest. Those candidates are re-ranked by BM25 (with a boost for
 * a title or channel-name match from the FlexSearch index); matches beyond
 * them follow in popularity order. No query ever sorts all of its matches.
 */
import type Database from "better-sqlite3";
import type { TitleIndex } from "../../pipeline/title-index.js";
import type { SearchHit, SearchPage, SearchParams } from "./catalog.js";
import { bm25, inverseDocumentFrequency, termFrequencies, type CorpusStats } from "./bm25.js";
import { Lru } from "./lru.js";
import { parseSearchQuery, type ParsedQuery } from "./query.js";
import { ELLIPSIS, MARK_CLOSE, MARK_OPEN, renderSnippet } from "./snippet.js";

export interface SearchOptions {
  /** Matches re-ranked by relevance, taken in popularity order (default 100). */
  candidates?: number;
  /** Totals are counted exactly up to this many matches and estimated above (default 1000). */
  exactCountCap?: number;
  /** Ranked candidate lists kept for repeated queries (default 2000). */
  cacheSize?: number;
  /** Score multiplier when the title matches the query (default 1.5). */
  titleBoost?: number;
  /** Score multiplier when the channel name matches the query (default 1.2). */
  channelBoost?: number;
  /** Tokens of context in a snippet (default 32). */
  snippetTokens?: number;
}

interface Ranked {
  ids: number[];
  total: number;
  totalExact: boolean;
}

interface Filter {
  channelRowId?: number;
  channelTranscripts?: number;
  maxRank: number;
}

const EMPTY: SearchPage = { results: [], total: 0, totalExact: true, hasMore: false };

export class TranscriptSearch {
  readonly #db: Database.Database;
  readonly #titles: TitleIndex;
  readonly #stats: CorpusStats;
  readonly #options: Required<SearchOptions>;
  readonly #cache: Lru<string, Ranked>;
  readonly #statements;

  constructor(db: Database.Database, titles: TitleIndex, stats: CorpusStats, options: SearchOptions = {}) {
    this.#db = db;
    this.#titles = titles;
    this.#stats = stats;
    this.#options = {
      candidates: options.candidates ?? 100,
      exactCountCap: options.exactCountCap ?? 1000,
      cacheSize: options.cacheSize ?? 2000,
      titleBoost: options.titleBoost ?? 1.5,
      channelBoost: options.channelBoost ?? 1.2,
      snippetTokens: options.snippetTokens ?? 32,
    };
    this.#cache = new Lru(this.#options.candidates > 0 ? this.#options.cacheSize : 0);
    this.#statements = {
      matches: db.prepare(
        "SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? AND rowid <= ? ORDER BY rowid LIMIT ? OFFSET ?",
      ).pluck(),
      count: db.prepare(
        "SELECT count(*) FROM (SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? AND rowid <= ? LIMIT ?)",
      ).pluck(),
      scoring: db.prepare(
        "SELECT t.word_count AS words, t.script AS script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?",
      ),
      hit: db.prepare(
        `SELECT v.video_id AS videoId, v.title AS title, c.title AS channelTitle, v.view_count AS viewCount,
                t.word_count AS wordCount
         FROM videos v JOIN channels c ON c.id = v.channel JOIN transcripts t ON t.id = v.transcript
         WHERE v.id = ?`,
      ),
      // A range, not `rowid = ?`: with SQLite 3.53.2 FTS5 answers `MATCH ? AND rowid = ?`
      // with the first match instead of the asked row (test/data/search.test.ts guards this).
      snippet: db.prepare(
        `SELECT snippet(transcript_fts, 0, '${MARK_OPEN}', '${MARK_CLOSE}', '${ELLIPSIS}', ?)
         FROM transcript_fts WHERE transcript_fts MATCH ? AND rowid >= ? AND rowid <= ?`,
      ).pluck(),
      df: db.prepare("SELECT df FROM term_stats WHERE term = ?").pluck(),
      channel: db.prepare("SELECT id, transcript_count AS transcripts FROM channels WHERE channel_id = ?"),
      rankBelow: db.prepare(
        "SELECT min(id) FROM videos WHERE view_count = (SELECT max(view_count) FROM videos WHERE view_count < ?)",
      ).pluck(),
      maxRank: db.prepare("SELECT coalesce(max(id), 0) FROM videos").pluck(),
    };
  }

  search(params: SearchParams): SearchPage {
    const parsed = parseSearchQuery(params.q);
    if (!parsed) return { ...EMPTY };
    const filter = this.#filter(params);
    if (!filter) return { ...EMPTY };
    const expression =
      filter.channelRowId === undefined
        ? `script : (${parsed.expression})`
        : `chan : "c${filter.channelRowId}" AND script : (${parsed.expression})`;
    const cacheKey = `${expression}\u0000${filter.maxRank}`;
    let ranked = this.#cache.get(cacheKey);
    if (!ranked) {
      ranked = this.#rank(parsed, expression, filter);
      this.#cache.set(cacheKey, ranked);
    }
    const { ids, hasMore } = this.#page(ranked, expression, filter.maxRank, params.limit, params.offset);
    const snippetExpression = `script : (${parsed.expression})`;
    const results = ids.map((id) => this.#hit(id, snippetExpression));
    // An estimate must never contradict what the page itself shows.
    const shown = params.offset + results.length + (hasMore ? 1 : 0);
    const total = ranked.totalExact && !hasMore ? Math.max(ranked.total, params.offset + results.length) : Math.max(ranked.total, shown);
    return { results, total, totalExact: ranked.totalExact, hasMore };
  }

  /** Drops cached rankings (after the data changed). */
  clearCache(): void {
    this.#cache.clear();
  }

  #filter(params: SearchParams): Filter | undefined {
    const filter: Filter = { maxRank: this.#statements.maxRank.get() as number };
    if (params.channel !== undefined) {
      const channel = this.#statements.channel.get(params.channel) as { id: number; transcripts: number } | undefined;
      if (!channel) return undefined;
      filter.channelRowId = channel.id;
      filter.channelTranscripts = channel.transcripts;
    }
    if (params.minViews !== undefined && params.minViews > 0) {
      // Ranks are in descending view order: the first video below minViews bounds the rowids.
      const below = this.#statements.rankBelow.get(params.minViews) as number | null;
      if (below !== null) filter.maxRank = below - 1;
    }
    return filter.maxRank > 0 ? filter : undefined;
  }

  #rank(parsed: ParsedQuery, expression: string, filter: Filter): Ranked {
    const k = this.#options.candidates;
    const candidates = this.#statements.matches.all(expression, filter.maxRank, k, 0) as number[];
    const idf = parsed.terms.map((term) =>
      inverseDocumentFrequency((this.#statements.df.get(term) as number | undefined) ?? 0, this.#stats.documents),
    );
    const boosts = this.#titleMatches(parsed, candidates);
    const scored = candidates.map((id) => {
      const row = this.#statements.scoring.get(id) as { words: number; script: string };
      const base = bm25(termFrequencies(row.script, parsed.terms), idf, row.words, this.#stats);
      return { id, score: base * (boosts.get(id) ?? 1) };
    });
    scored.sort((a, b) => b.score - a.score || a.id - b.id);
    const ids = scored.map((s) => s.id);
    if (candidates.length < k) return { ids, total: candidates.length, totalExact: true };
    const cap = this.#options.exactCountCap;
    const counted = this.#statements.count.get(expression, filter.maxRank, cap + 1) as number;
    if (counted <= cap) return { ids, total: counted, totalExact: true };
    return { ids, total: this.#estimate(parsed, filter, cap), totalExact: false };
  }

  /** Multipliers for candidates whose title or channel name matches the query (FlexSearch). */
  #titleMatches(parsed: ParsedQuery, candidates: number[]): Map<number, number> {
    const boosts = new Map<number, number>();
    if (candidates.length === 0) return boosts;
    const wanted = new Set(candidates);
    const fields = this.#titles.search(parsed.terms.join(" "), { limit: 1000 }) as unknown as {
      field: string;
      result: number[];
    }[];
    for (const { field, result } of fields) {
      const factor = field === "title" ? this.#options.titleBoost : this.#options.channelBoost;
      for (const id of result) {
        if (wanted.has(id)) boosts.set(id, (boosts.get(id) ?? 1) * factor);
      }
    }
    return boosts;
  }

  /**
   * Above the cap, the total is estimated from document frequencies assuming
   * independent terms, bounded by the rarest term and by the filters, and
   * rounded to two significant digits so it reads as the estimate it is.
   */
  #estimate(parsed: ParsedQuery, filter: Filter, cap: number): number {
    const n = Math.max(1, this.#stats.documents);
    const dfs = parsed.terms.map((t) => (this.#statements.df.get(t) as number | undefined) ?? 0);
    let estimate = dfs.reduce((acc, df) => acc * (df / n), n);
    estimate = Math.min(Math.max(estimate, Math.min(...dfs) * 0.5), Math.min(...dfs));
    if (filter.channelTranscripts !== undefined) estimate = Math.min(estimate * (filter.channelTranscripts / n) * 4, filter.channelTranscripts);
    estimate *= Math.min(1, filter.maxRank / n);
    const magnitude = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(1, estimate))) - 1);
    return Math.max(cap + 1, Math.round(estimate / magnitude) * magnitude);
  }

  #page(ranked: Ranked, expression: string, maxRank: number, limit: number, offset: number): { ids: number[]; hasMore: boolean } {
    const k = this.#options.candidates;
    const end = offset + limit;
    const ids = ranked.ids.slice(offset, end);
    if (ranked.ids.length < k) return { ids, hasMore: end < ranked.ids.length };
    if (end < k) return { ids, hasMore: true };
    // Positions from k on are the match stream in popularity order, read straight from FTS5.
    const from = Math.max(offset, k);
    const tail = this.#statements.matches.all(expression, maxRank, end - from + 1, from) as number[];
    const hasMore = tail.length > end - from;
    return { ids: ids.concat(tail.slice(0, end - from)), hasMore };
  }

  #hit(id: number, snippetExpression: string): SearchHit {
    const row = this.#statements.hit.get(id) as Omit<SearchHit, "snippet">;
    const marked = this.#statements.snippet.get(this.#options.snippetTokens, snippetExpression, id, id) as string | undefined;
    return { ...row, snippet: renderSnippet(marked ?? "") };
  }
}
