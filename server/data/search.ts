/**
 * Transcript search across shards: the published artifact set and, beside
 * it, the live store of transcripts fetched since the last build.
 *
 * Each shard scores its first `candidates` matches (most viewed first in the
 * artifact set); those heads are merged by score and form the top of the
 * result list. Matches beyond the heads follow in each shard's own order
 * (popularity for the artifact set). So every page is consistent with every
 * other page, and no query sorts all of its matches.
 */
import type { SearchPage, SearchParams } from "./catalog.js";
import { Lru } from "./lru.js";
import { parseSearchQuery } from "./query.js";
import { compareScored, type Scored, type ShardHead, type ShardQuery, type ShardSearch } from "./shard.js";

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
}

export const SEARCH_DEFAULTS: Required<SearchOptions> = {
  candidates: 100,
  exactCountCap: 1000,
  cacheSize: 2000,
  titleBoost: 1.5,
  channelBoost: 1.2,
  snippetChars: 200,
  titleTermMaxShare: 0.1,
};

export interface SearchShard {
  search: ShardSearch;
  /** Changes whenever the shard's content changes, so cached heads of the old content are not reused. */
  generation(): number;
}

interface Bound {
  shard: SearchShard;
  index: number;
  query: ShardQuery;
  head: ShardHead;
}

export class TranscriptSearch {
  readonly #shards: SearchShard[];
  readonly #cache: Lru<string, ShardHead>;

  constructor(shards: SearchShard[], cacheSize = SEARCH_DEFAULTS.cacheSize) {
    this.#shards = shards;
    this.#cache = new Lru(cacheSize);
  }

  search(params: SearchParams): SearchPage {
    const parsed = parseSearchQuery(params.q);
    const empty: SearchPage = { results: [], total: 0, totalExact: true, hasMore: false };
    if (!parsed) return empty;
    const bound: Bound[] = [];
    this.#shards.forEach((shard, index) => {
      const query = shard.search.bind(parsed, params);
      if (query) bound.push({ shard, index, query, head: this.#head(shard, index, query) });
    });
    if (bound.length === 0) return empty;

    const merged: (Scored & { shard: number })[] = bound
      .flatMap((b) => b.head.scored.map((s) => ({ ...s, shard: b.index })))
      .sort((a, b) => compareScored(a, b) || a.shard - b.shard || a.id - b.id);
    const end = params.offset + params.limit;
    const page = merged.slice(params.offset, end).map((s) => ({ shard: s.shard, id: s.id }));
    let hasMore = end < merged.length;
    if (!hasMore) {
      // Past the heads: each shard's remaining matches, in its own order, one shard after another.
      let skip = Math.max(0, params.offset - merged.length);
      let want = end - Math.max(params.offset, merged.length) + 1;
      for (const b of bound) {
        if (b.head.complete || want <= 0) continue;
        const k = b.shard.search.candidates;
        const got = b.shard.search.stream(b.query, k + skip, want);
        if (got.length === 0) {
          skip -= b.shard.search.stream(b.query, k, skip).length;
          continue;
        }
        skip = 0;
        want -= got.length;
        page.push(...got.map((id) => ({ shard: b.index, id })));
      }
      hasMore = page.length > params.limit;
      page.length = Math.min(page.length, params.limit);
    }
    const snippets = new Map(bound.map((b) => [b.index, b.head.snippets]));
    const results = page.map((p) => this.#shards[p.shard]!.search.hit(p.id, parsed, snippets.get(p.shard)!));
    const totalExact = bound.every((b) => b.head.totalExact);
    const counted = bound.reduce((sum, b) => sum + b.head.total, 0);
    // An estimate must never contradict what the pages show.
    const total = totalExact ? counted : Math.max(counted, params.offset + results.length + (hasMore ? 1 : 0));
    return { results, total, totalExact, hasMore };
  }

  clearCache(): void {
    this.#cache.clear();
  }

  #head(shard: SearchShard, index: number, query: ShardQuery): ShardHead {
    const key = `${index}\u0000${shard.generation()}\u0000${query.key}`;
    let head = this.#cache.get(key);
    if (!head) {
      head = shard.search.head(query);
      this.#cache.set(key, head);
    }
    return head;
  }
}
