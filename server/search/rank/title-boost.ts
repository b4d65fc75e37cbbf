/**
 * The title and channel boost: multipliers for candidates whose title or
 * channel name holds every one of the query's (not too common) terms, from
 * the FlexSearch title index.
 */
import type { TitleIndex } from "../../../pipeline/artifact/title-index.js";
import type { ParsedQuery } from "../query.js";

/** What a FlexSearch Document search answers: the matching ids per field. */
type TitleFields = { field: string; result: number[] }[];

export class TitleBoosts {
  readonly #titles: TitleIndex | undefined;
  readonly #titleBoost: number;
  readonly #channelBoost: number;
  /** The last query's title lookups, by term. */
  #last: { parsed: ParsedQuery; byTerm: Map<string, TitleFields> } | undefined;

  constructor(titles: TitleIndex | undefined, boosts: { titleBoost: number; channelBoost: number }) {
    this.#titles = titles;
    this.#titleBoost = boosts.titleBoost;
    this.#channelBoost = boosts.channelBoost;
  }

  /**
   * Multipliers for those of `candidates` whose title or channel name
   * matches: holds every one of `terms`. Each term is looked up on its own,
   * all its matches, and only the candidates are checked against them:
   * FlexSearch's own intersection of a query with a short word in it costs
   * tens of times more (docs/search.md). The tiers of one query look up the
   * same words: the lookups are kept for the query they were made for (one
   * parsed query per search).
   */
  boosts(parsed: ParsedQuery, terms: string[], candidates: number[]): Map<number, number> {
    const boosts = new Map<number, number>();
    if (candidates.length === 0 || terms.length === 0 || !this.#titles) return boosts;
    if (this.#last?.parsed !== parsed) this.#last = { parsed, byTerm: new Map() };
    const byTerm = this.#last.byTerm;
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
      const factor = field === "title" ? this.#titleBoost : this.#channelBoost;
      for (const [id, count] of counts) if (count === terms.length) boosts.set(id, (boosts.get(id) ?? 1) * factor);
    }
    return boosts;
  }

  /** Drops the kept lookups. */
  forget(): void {
    this.#last = undefined;
  }
}
