/**
 * The title and channel boost: multipliers for candidates whose title or
 * channel name holds every one of the query's (not too common) terms, from
 * the FlexSearch title index.
 */
import type { TitleIndex } from "../../../pipeline/artifact/search-index/index.js";
import { Lru } from "../../data/lru.js";
import type { ParsedQuery } from "../query.js";

/** What a FlexSearch Document search answers: the matching ids per field. */
type TitleFields = { field: string; result: number[] }[];

/** A term's matches in one field: the ids, or (for a term in many titles) a bitset over them. */
type FieldMatches = { field: string; ids: number[]; bits?: undefined } | { field: string; ids?: undefined; bits: Uint8Array };

/** A term in at least this many titles or channel names is kept across queries as bitsets, where the index never changes. */
export const KEPT_TERM_MIN_MATCHES = 4096;

/** Bytes of bitsets kept across queries (the least recently used go first). */
const KEPT_BYTES = 16 * 2 ** 20;

export class TitleBoosts {
  readonly #titles: TitleIndex | undefined;
  readonly #titleBoost: number;
  readonly #channelBoost: number;
  /** The last query's title lookups, by term. */
  #last: { parsed: ParsedQuery; byTerm: Map<string, FieldMatches[]> } | undefined;
  /** Lookups of terms in many titles, across queries; only where the index never changes (an artifact set). */
  readonly #kept: Lru<string, FieldMatches[]> | undefined;

  /** `immutable`: the title index never changes (an artifact set's), so lookups may be kept across queries. */
  constructor(titles: TitleIndex | undefined, boosts: { titleBoost: number; channelBoost: number }, immutable = false) {
    this.#titles = titles;
    this.#titleBoost = boosts.titleBoost;
    this.#channelBoost = boosts.channelBoost;
    this.#kept = immutable ? new Lru(KEPT_BYTES, (fields) => fields.reduce((sum, f) => sum + (f.bits?.length ?? 0), 0)) : undefined;
  }

  /**
   * Multipliers for those of `candidates` whose title or channel name
   * matches: holds every one of `terms`. Each term is looked up on its own,
   * all its matches, and only the candidates are checked against them:
   * FlexSearch's own intersection of a query with a short word in it costs
   * tens of times more (docs/search.md). The tiers of one query look up the
   * same words: the lookups are kept for the query they were made for (one
   * parsed query per search). A term in many titles (a short word's prefix
   * list: "en" starts tens of thousands) costs most to walk: where the index
   * never changes, its matches are kept across queries as a bitset, which
   * the candidates are checked against instead.
   */
  boosts(parsed: ParsedQuery, terms: string[], candidates: number[]): Map<number, number> {
    const boosts = new Map<number, number>();
    if (candidates.length === 0 || terms.length === 0 || !this.#titles) return boosts;
    if (this.#last?.parsed !== parsed) this.#last = { parsed, byTerm: new Map() };
    const byTerm = this.#last.byTerm;
    let wanted: Set<number> | undefined;
    /** Per field, how many of the terms each candidate's field holds. */
    const held = new Map<string, Map<number, number>>();
    for (const term of terms) {
      let fields = byTerm.get(term);
      if (!fields) byTerm.set(term, (fields = this.#lookUp(term)));
      for (const { field, ids, bits } of fields) {
        let counts = held.get(field);
        if (!counts) held.set(field, (counts = new Map()));
        if (bits) {
          for (const id of candidates) if (((bits[id >>> 3] ?? 0) & (1 << (id & 7))) !== 0) counts.set(id, (counts.get(id) ?? 0) + 1);
        } else {
          wanted ??= new Set(candidates);
          for (const id of ids) if (wanted.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
        }
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
    this.#kept?.clear();
  }

  #lookUp(term: string): FieldMatches[] {
    const kept = this.#kept?.get(term);
    if (kept) return kept;
    const fields = this.#titles!.search(term, { limit: Number.MAX_SAFE_INTEGER }) as unknown as TitleFields;
    if (!this.#kept || fields.reduce((sum, f) => sum + f.result.length, 0) < KEPT_TERM_MIN_MATCHES) {
      return fields.map(({ field, result }) => ({ field, ids: result }));
    }
    const asBits = fields.map(({ field, result }) => ({ field, bits: bitset(result) }));
    this.#kept.set(term, asBits);
    return asBits;
  }
}

/** The ids (non-negative integers) as a bitset: bit `id & 7` of byte `id >>> 3`. */
function bitset(ids: readonly number[]): Uint8Array {
  let max = 0;
  for (const id of ids) if (id > max) max = id;
  const bits = new Uint8Array((max >>> 3) + 1);
  for (const id of ids) bits[id >>> 3]! |= 1 << (id & 7);
  return bits;
}
