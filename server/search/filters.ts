/**
 * The search filters (server/schemas/search-filters.ts) as the engine uses
 * them: the one cache key every cache of results derives from them, and,
 * per filter, its matcher: how it narrows one shard's matches. A matcher
 * gives any of an FTS5 part (ANDed before every expression), a rowid bound
 * (popularity ranks in an artifact set) and a condition on the video row
 * `v`; `bindFilters` folds them into the bounds every list of matches takes
 * (match/match-list.ts).
 */
import { channelToken } from "../../pipeline/artifact/contract/index.js";
import { UNKNOWN_PUBLISHED_AT } from "../../pipeline/youtube/video-record.js";
import { SEARCH_FILTER_NAMES, type SearchFilters } from "../schemas/search-filters.js";

/** A condition on the video row `v` (SQL), with its parameters. */
export interface RowCondition {
  sql: string;
  params: readonly (string | number)[];
}

/** What every list of one shard's matches is bounded by. */
export interface MatchBounds {
  /** Matches have rowids at most this. */
  maxRank: number;
  /** Conditions on the video row `v` that matches meet, ANDed ("" without any). */
  where: string;
  params: readonly (string | number)[];
  /**
   * The rowids up to `maxRank` that meet `where`, as a bitmap (bit i of word
   * i >>> 5 for rowid i), where the shard made one (match/row-bitmap.ts):
   * lists test each rowid in it instead of joining the video row.
   */
  rows?: Uint32Array | undefined;
  /** The same rowids, ascending, where there is a bitmap. */
  rowList?: readonly number[] | undefined;
  /** The share of the shard's videos that meet `where` where it is known, else 1 (for estimates). */
  rowsShare: number;
}

/** What a matcher may ask of the shard it binds a filter to. */
export interface ShardFacts {
  /** Rowids are popularity ranks (an artifact set). */
  popularityOrdered: boolean;
  /** The shard's row of a channel: its rowid and stored transcripts; undefined when it has none. */
  channel(channelId: string): { id: number; transcripts: number } | undefined;
  /** The last rank of videos with at least `minViews` views (popularity-ordered shards); undefined when every video has. */
  lastRankWith(minViews: number): number | undefined;
}

/** One filter's part of the bounds; `none`: nothing in the shard can match. */
export interface FilterPart {
  none?: boolean;
  /** An FTS5 expression ANDed before every expression (`chan : "c12"`). */
  fts?: string;
  /** Transcripts the FTS5 part holds at most (for the strategies' costs and estimates). */
  ftsTranscripts?: number;
  maxRank?: number;
  where?: RowCondition;
}

/** The stored date of a video whose page gave none (pipeline/youtube/video-record.ts). */
const UNKNOWN_DATE = new Date(UNKNOWN_PUBLISHED_AT).toISOString();

type Matchers = { [K in keyof SearchFilters]-?: (value: NonNullable<SearchFilters[K]>, shard: ShardFacts) => FilterPart };

/** Each filter's matcher. */
const MATCHERS: Matchers = {
  channel(channelId, shard) {
    const channel = shard.channel(channelId);
    return channel ? { fts: `chan : "${channelToken(channel.id)}"`, ftsTranscripts: channel.transcripts } : { none: true };
  },
  minViews(minViews, shard) {
    if (minViews <= 0) return {};
    // Ranks are in descending view order: the last video with minViews bounds the rowids.
    if (shard.popularityOrdered) return { maxRank: shard.lastRankWith(minViews) ?? Number.POSITIVE_INFINITY };
    return { where: { sql: "v.view_count >= ?", params: [minViews] } };
  },
  // Dates are stored as Date.toISOString() writes them, so they compare as text; an unknown date is left out.
  publishedAfter: (after) => ({ where: { sql: "v.published_at >= ? AND v.published_at > ?", params: [after, UNKNOWN_DATE] } }),
  publishedBefore: (before) => ({ where: { sql: "v.published_at <= ? AND v.published_at > ?", params: [before, UNKNOWN_DATE] } }),
};

/** The filters of a search's parameters, nothing else: the schema's fields that are set. */
export function filtersOf(params: SearchFilters): SearchFilters {
  const filters: Record<string, unknown> = {};
  for (const name of SEARCH_FILTER_NAMES) if (params[name] !== undefined) filters[name] = params[name];
  return filters as SearchFilters;
}

/**
 * The filters' part of every cache key of search results (the ranked
 * heads, the counts, the lists kept between calls, the warm-up's
 * queries): each filter's validated value, in a fixed order.
 */
export function filtersKey(filters: SearchFilters): string {
  return JSON.stringify(SEARCH_FILTER_NAMES.map((name) => filters[name] ?? null));
}

/** The filters bound to one shard whose last rowid is `lastRank`; undefined when nothing there can match. */
export function bindFilters(filters: SearchFilters, shard: ShardFacts, lastRank: number): { bounds: MatchBounds; fts: string; ftsTranscripts?: number } | undefined {
  let maxRank = lastRank;
  const fts: string[] = [];
  const where: string[] = [];
  const params: (string | number)[] = [];
  let ftsTranscripts: number | undefined;
  for (const name of SEARCH_FILTER_NAMES) {
    const value = filters[name];
    if (value === undefined) continue;
    const part = (MATCHERS[name] as (value: unknown, shard: ShardFacts) => FilterPart)(value, shard);
    if (part.none) return undefined;
    if (part.fts !== undefined) fts.push(part.fts);
    if (part.ftsTranscripts !== undefined) ftsTranscripts = Math.min(ftsTranscripts ?? Number.POSITIVE_INFINITY, part.ftsTranscripts);
    if (part.maxRank !== undefined) maxRank = Math.min(maxRank, part.maxRank);
    if (part.where) {
      where.push(part.where.sql);
      params.push(...part.where.params);
    }
  }
  if (maxRank <= 0) return undefined;
  const bound = { bounds: { maxRank, where: where.join(" AND "), params, rowsShare: 1 }, fts: fts.join(" AND ") };
  return ftsTranscripts === undefined ? bound : { ...bound, ftsTranscripts };
}
