/**
 * Query planning: a parsed query bound to one shard's filters, as one query
 * per tier (the whole query as a phrase first, then all its words otherwise),
 * each with the FTS5 expressions, rank bound and cache key its matches need.
 */
import type Database from "better-sqlite3";
import type { SearchParams } from "../data/catalog.js";
import { Lru } from "../data/lru.js";
import { bindFilters, filtersKey, filtersOf, type MatchBounds, type ShardFacts } from "./filters.js";
import { rowBitmap } from "./match/row-bitmap.js";
import type { ParsedQuery } from "./query.js";

/** A query bound to one shard's filters, for one tier. */
export interface ShardQuery {
  parsed: ParsedQuery;
  /** 0: the whole query as a phrase; 1: all words, not as that phrase (or the only tier of a one-group query). */
  tier: number;
  expression: string;
  /** The filters' FTS5 part of every expression, with its AND (`chan : "c12" AND `), "" without one. */
  filter: string;
  /** The filters' FTS5 part alone, an expression (`chan : "c12"`), "" without one. */
  channel: string;
  /** All tiers together: the plain AND of the query's words (tiers partition its matches), counted once. */
  countExpression: string;
  /** What every list of matches is bounded by (filters.ts). */
  bounds: MatchBounds;
  /** The filters' part of every cache key (filters.ts). */
  filtersKey: string;
  channelTranscripts?: number;
  /**
   * The cache key of the tier's head (and of the snippets and moments kept
   * with it): the parsed query's own key and the tier as well as the
   * expression, since `"white house"` and the phrase tier of `white house`
   * match alike but mark different words.
   */
  key: string;
}

/** Row bitmaps kept per shard, by condition: each is a bit per video. */
const ROW_BITMAPS_KEPT = 16;

export class QueryPlanner {
  readonly #popularityOrdered: boolean;
  readonly #sql;
  readonly #db: Database.Database;
  readonly #facts: ShardFacts;
  /** Row bitmaps of the artifact set's conditions, by condition (its content never changes). */
  readonly #rowBitmaps = new Lru<string, ReturnType<typeof rowBitmap>>(ROW_BITMAPS_KEPT);
  #lastRank: number | undefined;

  /** `popularityOrdered`: rowids are popularity ranks, so `minViews` is a rowid bound (else a join filter). */
  constructor(db: Database.Database, popularityOrdered: boolean) {
    this.#db = db;
    this.#popularityOrdered = popularityOrdered;
    this.#sql = {
      maxRank: db.prepare("SELECT coalesce(max(id), 0) FROM videos").pluck(),
      channel: db.prepare("SELECT id, transcript_count AS transcripts FROM channels WHERE channel_id = ?"),
      rankBelow: db.prepare(
        "SELECT min(id) FROM videos WHERE view_count = (SELECT max(view_count) FROM videos WHERE view_count < ?)",
      ).pluck(),
    };
    this.#facts = {
      popularityOrdered,
      channel: (channelId) => this.#sql.channel.get(channelId) as { id: number; transcripts: number } | undefined,
      lastRankWith: (minViews) => {
        const below = this.#sql.rankBelow.get(minViews) as number | null;
        return below === null ? undefined : below - 1;
      },
    };
  }

  /** The shard's last rowid (its rank bound without filters); read once where rowids are popularity ranks (an artifact set, whose content never changes). */
  lastRank(): number {
    if (!this.#popularityOrdered) return this.#sql.maxRank.get() as number;
    return (this.#lastRank ??= this.#sql.maxRank.get() as number);
  }

  /**
   * Binds the query to this shard's filters, one query per tier (phrase
   * matches first, then the other matches of all words); empty when nothing
   * here can match.
   */
  plan(parsed: ParsedQuery, params: SearchParams): ShardQuery[] {
    const filters = filtersOf(params);
    const bound = bindFilters(filters, this.#facts, this.lastRank());
    if (!bound) return [];
    const bounds = this.#popularityOrdered && bound.bounds.where !== "" ? this.#withRowBitmap(bound.bounds) : bound.bounds;
    const key = filtersKey(filters);
    const channelPart = bound.fts ? `${bound.fts} AND ` : "";
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
        channel: bound.fts,
        countExpression,
        bounds,
        filtersKey: key,
        key: `${parsed.key}\u0002${tier}\u0002${expression}\u0000${key}`,
      };
      if (bound.ftsTranscripts !== undefined) query.channelTranscripts = bound.ftsTranscripts;
      return query;
    });
  }

  /** The bounds with the bitmap of the rows meeting their conditions, where those are few enough for one (match/row-bitmap.ts). */
  #withRowBitmap(bounds: MatchBounds): MatchBounds {
    const key = `${bounds.where}\u0000${JSON.stringify(bounds.params)}`;
    let made = this.#rowBitmaps.get(key);
    if (!made) {
      made = rowBitmap(this.#db, bounds.where, bounds.params, this.lastRank());
      this.#rowBitmaps.set(key, made);
    }
    return { ...bounds, rows: made.rows, rowList: made.list, rowsShare: made.share };
  }
}
