/**
 * A search query as users type it, turned into an FTS5 expression.
 *
 * Words are ANDed; `"double quoted words"` form a phrase. Every term is
 * produced by the same tokenizer the index used (pipeline/artifact/text/text.ts) and is
 * quoted in the expression, so FTS5 syntax characters in `q` (`* : ^ ( ) -
 * NEAR AND OR`) are plain text and can never change the query's meaning.
 */
import { tokenize } from "../../pipeline/artifact/text/index.js";

/** Terms beyond this are ignored: each one adds a doclist to intersect. */
export const MAX_QUERY_TERMS = 16;

export interface ParsedQuery {
  /** FTS5 expression over the `script` column, e.g. `"climate" AND "change policy"`. */
  expression: string;
  /**
   * The whole query as one phrase, when it has more than one word group
   * (`"climate change policy"`): transcripts containing it rank first.
   */
  phrase?: string;
  /** The phrase's terms in order, repeats kept (with `phrase`). */
  phraseTerms?: string[];
  /** The ANDed groups of `expression`, unquoted: a word, or a quoted phrase's words joined by spaces. */
  groups: string[];
  /** Distinct terms, in order, for scoring. */
  terms: string[];
  /**
   * Normalized form, part of every cache key: two queries with one key are
   * answered alike, so it holds the groups and the phrase (`white white` has
   * the groups of `white` but a phrase of its own).
   */
  key: string;
}

/** undefined when the query has no searchable term. */
export function parseSearchQuery(q: string): ParsedQuery | undefined {
  const groups: string[][] = [];
  let budget = MAX_QUERY_TERMS;
  const take = (tokens: string[]) => {
    const kept = tokens.slice(0, budget);
    budget -= kept.length;
    if (kept.length > 0) groups.push(kept);
  };
  const parts = q.split('"');
  parts.forEach((part, i) => {
    // Odd parts are inside quotes (an unbalanced last quote just ends the phrase).
    if (i % 2 === 1) take(tokenize(part));
    else for (const token of tokenize(part)) take([token]);
  });
  if (groups.length === 0) return undefined;
  const phrases = dedupe(groups.map((g) => g.join(" ")));
  const parsed: ParsedQuery = {
    expression: phrases.map((p) => `"${p}"`).join(" AND "),
    groups: phrases,
    terms: dedupe(groups.flat()),
    key: phrases.join("\u0000"),
  };
  if (groups.length > 1) {
    parsed.phraseTerms = groups.flat();
    parsed.phrase = `"${parsed.phraseTerms.join(" ")}"`;
    parsed.key += `\u0001${parsed.phraseTerms.join(" ")}`;
  }
  return parsed;
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}
