/**
 * Query planning: a parsed query bound to one shard's filters, as one query
 * per tier (the whole query as a phrase first, then all its words otherwise),
 * each with the FTS5 expressions, rank bound and cache key its matches need.
 */
import type Database from "better-sqlite3";
import { channelToken } from "../../pipeline/artifact/contract.js";
import type { SearchParams } from "../data/catalog.js";
import type { ParsedQuery } from "./query.js";

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
  /**
   * The cache key of the tier's head (and of the snippets and moments kept
   * with it): the parsed query's own key and the tier as well as the
   * expression, since `"white house"` and the phrase tier of `white house`
   * match alike but mark different words.
   */
  key: string;
}

export class QueryPlanner {
  readonly #popularityOrdered: boolean;
  readonly #sql;
  #lastRank: number | undefined;

  /** `popularityOrdered`: rowids are popularity ranks, so `minViews` is a rowid bound (else a join filter). */
  constructor(db: Database.Database, popularityOrdered: boolean) {
    this.#popularityOrdered = popularityOrdered;
    this.#sql = {
      maxRank: db.prepare("SELECT coalesce(max(id), 0) FROM videos").pluck(),
      channel: db.prepare("SELECT id, transcript_count AS transcripts FROM channels WHERE channel_id = ?"),
      rankBelow: db.prepare(
        "SELECT min(id) FROM videos WHERE view_count = (SELECT max(view_count) FROM videos WHERE view_count < ?)",
      ).pluck(),
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
    let maxRank = this.lastRank();
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
    if (minViews > 0 && this.#popularityOrdered) {
      // Ranks are in descending view order: the first video below minViews bounds the rowids.
      const below = this.#sql.rankBelow.get(minViews) as number | null;
      if (below !== null) maxRank = below - 1;
    }
    if (maxRank <= 0) return [];
    const effectiveMinViews = this.#popularityOrdered ? 0 : minViews;
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
        key: `${parsed.key}\u0002${tier}\u0002${expression}\u0000${maxRank}\u0000${effectiveMinViews}`,
      };
      if (channelTranscripts !== undefined) query.channelTranscripts = channelTranscripts;
      return query;
    });
  }
}
