/**
 * Text processing shared by index time and query time.
 *
 * `tokenize` mirrors the FTS5 `unicode61 remove_diacritics 2` tokenizer of
 * the transcript index (lower case, diacritics removed, runs of letters and
 * digits), so the terms a query is parsed into are the terms FTS5 indexed.
 */

/** A token: a run of letters, digits and marks (use with `matchAll`, which does not share its state). */
export const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;
/** One character that belongs to a token. */
export const TOKEN_CHARACTER = /[\p{L}\p{N}\p{M}]/u;
/** Combining marks on a Latin letter: FTS5 removes diacritics from Latin script characters only. */
const LATIN_DIACRITICS = /(?<=\p{Script=Latin})\p{M}+/gu;
/** Where case folding (FTS5's) and lower-casing (JavaScript's) differ: final sigma, long s. */
const CASE_FOLD_OF: Record<string, string> = { "ς": "σ", "ſ": "s" };
const CASE_FOLDS = /[ςſ]/g;

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Folds case and removes diacritics, as the FTS5 tokenizer does: diacritics
 * from Latin letters only ("Brücken" is "brucken", "течёт" stays "течёт"),
 * and case as folding does, not lower-casing ("Ἑλλάς" is "ἑλλάσ"). An ASCII
 * token has no diacritics to remove: it is only lower-cased, several times
 * faster (most tokens of most languages' text are ASCII).
 */
export function foldTerm(token: string): string {
  if (ASCII.test(token)) return token.toLowerCase();
  return foldText(token);
}

/**
 * A whole text folded as `foldTerm` folds each of its tokens: the tokens of
 * the result are the folded tokens of `text`, in order, and what lies between
 * them stays outside any token. Offsets are not kept (a diacritic written as
 * its own character is removed, and lower-casing can change a length).
 * Where only counts matter, this folds a text in a few native passes
 * instead of one call per token.
 */
export function foldText(text: string): string {
  if (NOT_IN_TABLE.test(text)) return foldByNormalizing(text);
  return text.replace(NON_ASCII, (c) => FOLD_OF.get(c)!).toLowerCase();
}

/** `foldText` by Unicode normalization, for any text. */
export function foldByNormalizing(text: string): string {
  return text.normalize("NFD").replace(LATIN_DIACRITICS, "").normalize("NFC").toLowerCase().replace(CASE_FOLDS, (c) => CASE_FOLD_OF[c]!);
}

/**
 * Characters that fold alone as they fold in any text, so a text of them
 * and ASCII is folded a character at a time from a table, several times
 * faster than by normalization (by hand, 300 French and German texts:
 * 56 ms normalized, 8.5 ms from the table): Latin-1, Latin Extended-A
 * and -B and Latin Extended Additional (precomposed letters, whose
 * diacritics go), general punctuation and currency signs. None is a
 * combining mark, which would fold with the letter before it, or a capital
 * sigma, which lower-cases by its neighbours.
 */
export const FOLD_TABLE_RANGES: readonly (readonly [number, number])[] = [
  [0x80, 0x24f],
  [0x1e00, 0x1eff],
  [0x2000, 0x206f],
  [0x20a0, 0x20cf],
];
const hex = (code: number) => `\\u${code.toString(16).padStart(4, "0")}`;
// eslint-disable-next-line no-control-regex
const NOT_IN_TABLE = new RegExp(`[^\\x00-\\x7f${FOLD_TABLE_RANGES.map(([from, to]) => `${hex(from)}-${hex(to)}`).join("")}]`);
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/g;
const FOLD_OF = new Map<string, string>();
for (const [from, to] of FOLD_TABLE_RANGES) {
  for (let code = from; code <= to; code++) FOLD_OF.set(String.fromCharCode(code), foldByNormalizing(String.fromCharCode(code)));
}
/** A letter, digit or mark that is neither ASCII nor in the fold table. */
const NON_TABLE_TOKEN_CHARACTER = new RegExp(`(?![\\x00-\\x7f${FOLD_TABLE_RANGES.map(([from, to]) => `${hex(from)}-${hex(to)}`).join("")}])[\\p{L}\\p{N}\\p{M}]`, "u");

/**
 * `text` folded as `foldText` folds it, every character kept at its offset,
 * when that can be done: when no letter, digit or mark of the text lies
 * outside ASCII and the fold table. Each table character folds to one UTF-16
 * unit, a letter or digit to a letter or digit and anything else to
 * something else; every other character is in no token and keeps its length
 * lower-cased (test/search/snippet.test.ts checks all three over every
 * character). Undefined for other texts, whose tokens are folded one by one.
 * So a term found in the result at some offset is a token of `text` there.
 */
export function foldKeepingOffsets(text: string): string | undefined {
  if (NOT_IN_TABLE.test(text) && NON_TABLE_TOKEN_CHARACTER.test(text)) return undefined;
  return text.replace(NON_ASCII, (c) => FOLD_OF.get(c) ?? c).toLowerCase();
}

/** The folded tokens of `text`, in order, one at a time (as `tokenize`, without building the list). */
export function* foldedTokens(text: string): Generator<string> {
  for (const match of text.matchAll(TOKEN)) {
    const term = foldTerm(match[0]);
    if (term.length > 0) yield term;
  }
}

/** Splits text into index terms, in order, repeats kept. */
export function tokenize(text: string): string[] {
  return [...foldedTokens(text)];
}

const WHITESPACE = /\s/;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Words as a reader counts them: whitespace-separated runs that contain a
 * letter or digit. One pass over the text's characters, ASCII decided
 * without a regular expression, instead of splitting the text into a list
 * of words: that took a fifth of the build's staging of 500,000
 * transcripts (a CPU profile, by hand).
 */
export function countWords(text: string): number {
  let count = 0;
  /** The current run already holds a letter or digit (and was counted). */
  let counted = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let space: boolean;
    let word: boolean;
    if (code < 0x80) {
      space = code === 0x20 || (code >= 0x09 && code <= 0x0d);
      const lower = code | 0x20;
      word = (code >= 0x30 && code <= 0x39) || (lower >= 0x61 && lower <= 0x7a);
    } else {
      const point = text.codePointAt(i)!;
      const char = String.fromCodePoint(point);
      if (point > 0xffff) i++;
      space = WHITESPACE.test(char);
      word = !space && LETTER_OR_DIGIT.test(char);
    }
    if (space) counted = false;
    else if (word && !counted) {
      count++;
      counted = true;
    }
  }
  return count;
}

/** Whitespace that folding changes: any but a single inner space. */
const UNFOLDED = /[^\S ]| {2}|^ | $/;

/** Folds whitespace runs (including newlines inside a caption line) to single spaces and trims. */
export function foldWhitespace(text: string): string {
  // Most cue texts are folded already: one test, no new string.
  if (!UNFOLDED.test(text)) return text;
  return text.replace(/\s+/g, " ").trim();
}

/** Characters that the snippet code uses as match markers must never occur in stored text. */
export function stripControlCharacters(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "");
}
