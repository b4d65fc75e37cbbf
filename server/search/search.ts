/**
 * Transcript search across shards: the published artifact set and, beside
 * it, the live store of transcripts fetched since the last build.
 *
 * A query of several words is answered in two tiers: transcripts containing
 * the words as the exact phrase first, then those containing all the words
 * otherwise. In each tier, each shard scores its first `candidates` matches
 * (most viewed first in the artifact set); those heads are merged by score,
 * and the matches beyond them follow in each shard's own order (popularity
 * for the artifact set). So every page is consistent with every other page,
 * and no query sorts all of its matches.
 */
import { TERM_COUNTS_MAX_SHARE, TERM_COUNTS_MIN_DF } from "../../pipeline/artifact/search-index/index.js";
import type { SearchPage, SearchParams } from "../data/catalog.js";
import { Lru } from "../data/lru.js";
import { parseSearchQuery } from "./query.js";
import { compareScored, type ShardCount, type ShardHead, type ShardQuery, type ShardSearch } from "./shard.js";

export interface SearchOptions {
  /** Matches re-ranked by relevance per shard, taken in popularity order (default 100). */
  candidates?: number;
  /** Totals are counted exactly up to this many matches and estimated above (default 1000). */
  exactCountCap?: number;
  /** Ranked heads kept for repeated queries (default 2000). */
  cacheSize?: number;
  /** Score multiplier when the title matches the query (default 1.5). */
  titleBoost?: number;
  /** Score multiplier when the channel name matches the query (default 1.2). */
  channelBoost?: number;
  /** Length of a snippet in characters (default 200). */
  snippetChars?: number;
  /** Terms in more than this share of transcripts are not looked up in titles (default 0.1). */
  titleTermMaxShare?: number;
  /** Terms in more than this share of transcripts are scored as present, not counted (default 0.3). */
  countTermMaxShare?: number;
  /** Phrases whose two rarest terms are in at most this share of transcripts are found through NEAR and confirmed in the text (default 0.3). */
  nearTermMaxShare?: number;
  /** Terms in at most this many transcripts are counted from the FTS5 index, not in each candidate's text (default 4000). */
  indexCountMaxDf?: number;
  /**
   * Where some of a query's words have bitmaps (word-bitmaps.ts) and others
   * do not, the others' FTS5 list is filtered by the bitmaps only when their
   * rarest is in at most this many transcripts (default 20000); else FTS5
   * answers the AND of all of them.
   */
  bitmapDriverMaxDf?: number;
  /** Phrase matches are found through the artifact set's phrase-pair index when it has one (default true). */
  phrasePairs?: boolean;
  /**
   * Texts are read ahead in parallel (text-prefetch.ts) only when the first
   * of them took at least this many microseconds to read in the search's own
   * thread (default 200): a quicker read means the operating system's cache
   * holds them, and handing them to the read-ahead threads costs more than
   * it saves. 0: always read ahead.
   */
  readAheadColdMicros?: number;
}

export const SEARCH_DEFAULTS: Required<SearchOptions> = {
  candidates: 100,
  exactCountCap: 1000,
  cacheSize: 2000,
  titleBoost: 1.5,
  channelBoost: 1.2,
  snippetChars: 200,
  titleTermMaxShare: 0.1,
  // The build counts in every transcript the words between these two (pipeline/artifact/search-index/term-counts.ts).
  countTermMaxShare: TERM_COUNTS_MAX_SHARE,
  nearTermMaxShare: 0.3,
  indexCountMaxDf: TERM_COUNTS_MIN_DF,
  bitmapDriverMaxDf: 20000,
  phrasePairs: true,
  readAheadColdMicros: 200,
};

export interface SearchShard {
  search: ShardSearch;
  /** Changes whenever the shard's content changes, so cached heads of the old content are not reused. */
  generation(): number;
}

interface Source {
  shard: SearchShard;
  index: number;
  query: ShardQuery;
}

export class TranscriptSearch {
  readonly #shards: SearchShard[];
  readonly #heads: Lru<string, ShardHead>;
  readonly #counts: Lru<string, ShardCount>;

  constructor(shards: SearchShard[], cacheSize = SEARCH_DEFAULTS.cacheSize) {
    this.#shards = shards;
    this.#heads = new Lru(cacheSize);
    this.#counts = new Lru(cacheSize * 2);
  }

  search(params: SearchParams): SearchPage {
    const parsed = parseSearchQuery(params.q);
    const empty: SearchPage = { results: [], total: 0, totalExact: true, hasMore: false };
    if (!parsed) return empty;
    const sources: Source[] = this.#shards.flatMap((shard, index) =>
      shard.search.bind(parsed, params).map((query) => ({ shard, index, query })),
    );
    if (sources.length === 0) return empty;
    // Each head once per search, even when the cache keeps none.
    const headOf = new Map<Source, ShardHead>();
    const head = (source: Source): ShardHead => {
      let found = headOf.get(source);
      if (!found) headOf.set(source, (found = this.#head(source)));
      return found;
    };

    // The result list, in order: per tier, the shards' heads merged by score, then each shard's
    // remaining matches in its own order. Walk it to cut out [offset, offset + limit], plus one to know hasMore.
    const page: { source: Source; id: number }[] = [];
    let skip = params.offset;
    let want = params.limit + 1;
    const tiers = [...new Set(sources.map((s) => s.query.tier))].sort((a, b) => a - b);
    for (const tier of tiers) {
      if (want <= 0) break;
      const inTier = sources.filter((s) => s.query.tier === tier);
      const heads = inTier.map((source) => ({ source, head: head(source) }));
      const merged = heads
        .flatMap(({ source, head }) => head.scored.map((scored) => ({ source, scored })))
        .sort((a, b) => compareScored(a.scored, b.scored) || a.source.index - b.source.index || a.scored.id - b.scored.id);
      if (skip >= merged.length) skip -= merged.length;
      else {
        const taken = merged.slice(skip, skip + want);
        page.push(...taken.map(({ source, scored }) => ({ source, id: scored.id })));
        want -= taken.length;
        skip = 0;
      }
      for (const { source, head } of heads) {
        if (head.complete || want <= 0) continue;
        const k = source.shard.search.candidates;
        const got = source.shard.search.stream(source.query, k + skip, want);
        if (got.length === 0) {
          skip -= source.shard.search.stream(source.query, k, skip).length;
          continue;
        }
        skip = 0;
        want -= got.length;
        page.push(...got.map((id) => ({ source, id })));
      }
    }
    // One count per shard covers all its tiers; when every tier's head holds all its matches, the heads are the count.
    const counts = [...new Set(sources.map((s) => s.index))].map((index) => {
      const tiers = sources.filter((s) => s.index === index);
      const heads = tiers.map((s) => headOf.get(s) ?? this.#heads.get(this.#key(s)));
      if (heads.every((h) => h?.complete)) return { total: heads.reduce((sum, h) => sum + h!.scored.length, 0), totalExact: true };
      return this.#count(tiers[0]!);
    });
    const hasMore = page.length > params.limit;
    page.length = Math.min(page.length, params.limit);
    // The page's texts are read for snippets: the ones not read yet are read ahead together, per source.
    for (const source of new Set(page.map((p) => p.source))) {
      source.shard.search.prefetch(page.filter((p) => p.source === source).map((p) => p.id), head(source).snippets);
    }
    const results = page.map(({ source, id }) => source.shard.search.hit(id, parsed, head(source).snippets));
    const totalExact = counts.every((c) => c.totalExact);
    const counted = counts.reduce((sum, c) => sum + c.total, 0);
    // An estimate must never contradict what the pages show.
    const total = totalExact ? counted : Math.max(counted, params.offset + results.length + (hasMore ? 1 : 0));
    return { results, total, totalExact, hasMore };
  }

  /** Empties the result cache: the ranked heads, the counts and what each shard keeps of its last query. */
  clearCache(): void {
    this.#heads.clear();
    this.#counts.clear();
    for (const shard of this.#shards) shard.search.forget();
  }

  #key(source: Source): string {
    return `${source.index}\u0000${source.shard.generation()}\u0000${source.query.key}`;
  }

  #head(source: Source): ShardHead {
    const key = this.#key(source);
    let head = this.#heads.get(key);
    if (!head) {
      head = source.shard.search.head(source.query);
      this.#heads.set(key, head);
    }
    return head;
  }

  #count(source: Source): ShardCount {
    const key = `${source.index}\u0000${source.shard.generation()}\u0000count\u0000${source.query.countExpression}\u0000${source.query.filtersKey}`;
    let count = this.#counts.get(key);
    if (!count) {
      count = source.shard.search.count(source.query);
      this.#counts.set(key, count);
    }
    return count;
  }
}
