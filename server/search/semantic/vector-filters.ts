/**
 * The search filters (server/schemas/search-filters.ts) as conditions on a
 * set's chunks (vectors.db): the same filters as keyword search, each with a
 * matcher here over the columns every chunk carries (its channel's row, its
 * video's rank, its date), for both the approximate pass (sqlite-vec's
 * metadata columns) and the exact one. A filter added to the schema needs a
 * matcher here too (the type says so).
 */
import { UNKNOWN_PUBLISHED_AT } from "../../../pipeline/youtube/video-record.js";
import type { SearchFilters } from "../../schemas/search-filters.js";
import type { ShardFacts } from "../filters.js";

/** A condition on the chunk columns `channel`, `video` and `published` (SQL), with its parameters; `none`: nothing can match. */
export interface ChunkCondition {
  sql: string[];
  params: (string | number | bigint)[];
  none?: boolean;
  /** At most this many transcripts can match (a channel's, the videos above minViews): how few chunks the search compares. */
  transcripts?: number;
}

const UNKNOWN_DATE = new Date(UNKNOWN_PUBLISHED_AT).toISOString();

type ChunkMatchers = { [K in keyof SearchFilters]-?: (value: NonNullable<SearchFilters[K]>, facts: Pick<ShardFacts, "channel" | "lastRankWith">) => ChunkCondition };

const MATCHERS: ChunkMatchers = {
  channel(channelId, facts) {
    const channel = facts.channel(channelId);
    return channel ? { sql: ["channel = ?"], params: [BigInt(channel.id)], transcripts: channel.transcripts } : { sql: [], params: [], none: true };
  },
  minViews(minViews, facts) {
    if (minViews <= 0) return { sql: [], params: [] };
    // Video ids are popularity ranks: the last video with minViews bounds them.
    const last = facts.lastRankWith(minViews);
    return last === undefined ? { sql: [], params: [] } : last <= 0 ? { sql: [], params: [], none: true } : { sql: ["video <= ?"], params: [BigInt(last)], transcripts: last };
  },
  // Dates compare as text (stored as Date.toISOString() writes them); an unknown date is left out.
  publishedAfter: (after) => ({ sql: ["published >= ?", "published > ?"], params: [after, UNKNOWN_DATE] }),
  publishedBefore: (before) => ({ sql: ["published <= ?", "published > ?"], params: [before, UNKNOWN_DATE] }),
};

/** Every set filter's condition on chunks, ANDed. */
export function chunkConditions(filters: SearchFilters, facts: Pick<ShardFacts, "channel" | "lastRankWith">): ChunkCondition {
  const out: ChunkCondition = { sql: [], params: [] };
  for (const name of Object.keys(MATCHERS) as (keyof SearchFilters)[]) {
    const value = filters[name];
    if (value === undefined) continue;
    const part = (MATCHERS[name] as (value: unknown, facts: Pick<ShardFacts, "channel" | "lastRankWith">) => ChunkCondition)(value, facts);
    if (part.none) return { sql: [], params: [], none: true };
    out.sql.push(...part.sql);
    out.params.push(...part.params);
    if (part.transcripts !== undefined) out.transcripts = Math.min(out.transcripts ?? part.transcripts, part.transcripts);
  }
  return out;
}
