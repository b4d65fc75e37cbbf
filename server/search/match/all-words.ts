/**
 * The matches of all the query's words: the list every tier's count comes
 * from and the second tier is read off, and the streams of matches past
 * the ranked heads.
 */
import type { ShardQuery } from "../plan.js";
import type { MatchList } from "./match-list.js";
import { pairsExpression } from "./phrase-strategies.js";
import { firstAnswer, type MatchStrategy } from "./strategy.js";
import { andOfSets, filterBySets, type WordBitmaps } from "./word-bitmaps.js";

/**
 * FTS5's answer for an expression in rowid order: at most `count` rowids
 * above `after` and at most `maxRank`.
 */
export type ListFrom = (expression: string, after: number, maxRank: number, count: number) => number[];

/** The fewest rows of the other groups' list read at once. */
const MIN_SLICE = 256;

/**
 * The list through the word bitmaps (word-bitmaps.ts), where they make it
 * cheaper than FTS5:
 * - every group a word with a bitmap, no channel: the AND of the bitmaps;
 * - else the list of FTS5's answer for the other groups and the channel
 *   filter alone (`listFrom`), filtered by the bitmaps, when that list is
 *   short (at most `driverMaxDf`, going by the document frequencies): FTS5
 *   reads it quickly, where the AND of all the groups walks the common
 *   words' long lists beside it. That list is read in slices, each as long
 *   as the bitmaps' shares say it takes to find the matches still wanted
 *   (and a quarter more), until there are `limit` of them: the list of a
 *   word in thousands of transcripts ANDed with common words yields its
 *   first thousand matches long before its end.
 */
export function bitmapAllWords(bitmaps: Pick<WordBitmaps, "size" | "get" | "share">, listFrom: ListFrom, driverMaxDf: number, minSlice = MIN_SLICE): MatchStrategy {
  return {
    name: "word-bitmaps",
    find({ query, limit, df }) {
      if (bitmaps.size === 0) return undefined;
      const sets: Uint32Array[] = [];
      const rest: string[] = [];
      // The share of transcripts in every bitmap, taking the words as independent.
      let share = 1;
      for (const group of query.parsed.groups) {
        const set = group.includes(" ") ? undefined : bitmaps.get(group);
        if (set) {
          sets.push(set);
          share *= bitmaps.share(group);
        } else rest.push(group);
      }
      if (sets.length === 0) return undefined;
      // A condition on the video row takes part through its row bitmap; without one, FTS5 joins the row.
      const { bounds } = query;
      if (bounds.where !== "") {
        if (!bounds.rows) return undefined;
        sets.push(bounds.rows);
        share *= bounds.rowsShare;
      }
      if (rest.length === 0 && !query.channel) return andOfSets(sets, bounds.maxRank, limit);
      // A group's matches are at most its rarest word's.
      const driverDf = Math.min(
        query.channelTranscripts ?? Number.POSITIVE_INFINITY,
        ...rest.map((group) => Math.min(...group.split(" ").map((term) => df(term)))),
      );
      if (driverDf > driverMaxDf) return undefined;
      const expression = rest.length > 0 ? `${query.filter}script : (${rest.map((group) => `"${group}"`).join(" AND ")})` : query.channel;
      const found: number[] = [];
      let after = 0;
      while (found.length < limit) {
        const wanted = limit - found.length;
        const slice = Math.max(minSlice, Math.ceil((wanted / Math.max(share, 1e-6)) * 1.25));
        const ids = listFrom(expression, after, bounds.maxRank, slice);
        for (const id of filterBySets(ids, sets, bounds.maxRank, wanted)) found.push(id);
        if (ids.length < slice) break;
        after = ids[ids.length - 1]!;
      }
      return found;
    },
  };
}

/** The list from FTS5's AND of the words (`countExpression`); answers every query. */
export function ftsAllWords(matches: MatchList): MatchStrategy {
  return {
    name: "fts",
    find: ({ query, limit }) => matches(query.countExpression, query.bounds, limit, 0),
  };
}

export interface WordMatchOptions {
  exactCountCap: number;
  /** Rowids are popularity ranks and the content never changes (an artifact set): the last lists are kept. */
  popularityOrdered: boolean;
}

export class WordMatches {
  readonly #options: WordMatchOptions;
  readonly #strategies: readonly MatchStrategy[];
  readonly #matches: MatchList;
  readonly #pairs: MatchList | undefined;
  readonly #df: (term: string) => number;
  /** The last list of all words' matches (#all) and the last second tier read off one (#secondTier). */
  #lastAll: { key: string; rows: number[] } | undefined;
  #lastSecond: { key: string; tier: { rows: number[]; complete: boolean } } | undefined;

  /**
   * `strategies` list all the words' matches, tried in order (the last must
   * answer every query); `matches` are the word index's lists, `pairs` the
   * phrase-pair index's where it is used.
   */
  constructor(options: WordMatchOptions, strategies: readonly MatchStrategy[], lists: { matches: MatchList; pairs?: MatchList | undefined }, df: (term: string) => number) {
    this.#options = options;
    this.#strategies = strategies;
    this.#matches = lists.matches;
    this.#pairs = lists.pairs;
    this.#df = df;
  }

  /**
   * The first `exactCountCap + 1` matches of all the query's words
   * (`countExpression`, every tier), in rowid order: the count is their
   * number, and the second tier is read off them (#secondTier), so FTS5
   * walks the words' lists once for both. In a database whose content
   * never changes (an artifact set) the last list is kept, since one search
   * asks for it from its head and from its count.
   */
  all(query: ShardQuery): number[] {
    const key = `${query.countExpression}\u0000${query.filtersKey}`;
    if (this.#lastAll?.key === key) return this.#lastAll.rows;
    const limit = this.#options.exactCountCap + 1;
    // The strategies here answer lists (none confirms in the text); FTS5's AND is the way of last resort.
    const answered = firstAnswer(this.#strategies, { query, limit, df: this.#df, documents: () => 0 })?.matches as number[] | undefined;
    const rows = answered ?? this.#matches(query.countExpression, query.bounds, limit, 0);
    if (this.#options.popularityOrdered) this.#lastAll = { key, rows };
    return rows;
  }

  /**
   * The second tier's matches in rowid order, as far as the list of all
   * words' matches reaches (#all); `complete` when that list holds
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
    if (phrase && !this.#pairs) return undefined;
    const all = this.all(query);
    const complete = all.length <= this.#options.exactCountCap;
    if (!phrase || all.length === 0) return { rows: all, complete };
    // One search reads its second tier for the head and again for each page streamed past it.
    if (this.#lastSecond?.key === query.key) return this.#lastSecond.tier;
    const last = all[all.length - 1]!;
    const inPhrase = new Set(this.#pairs!(pairsExpression(query), { ...query.bounds, maxRank: last }, all.length, 0));
    const tier = { rows: all.filter((id) => !inPhrase.has(id)), complete };
    this.#lastSecond = { key: query.key, tier };
    return tier;
  }

  /** The tier's matches in rowid order from position `from`. */
  stream(query: ShardQuery, from: number, count: number): number[] {
    if (count <= 0) return [];
    // The pair index lists the phrase's matches, in the same order.
    if (query.tier === 0 && this.#pairs) {
      return this.#pairs(pairsExpression(query), query.bounds, count, from);
    }
    const listed = query.tier === 1 ? this.#secondTier(query) : undefined;
    if (listed && (listed.complete || from + count <= listed.rows.length)) return listed.rows.slice(from, from + count);
    return this.#matches(query.expression, query.bounds, count, from);
  }

  /** Drops the kept lists. */
  forget(): void {
    this.#lastAll = undefined;
    this.#lastSecond = undefined;
  }
}
