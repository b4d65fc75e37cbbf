/**
 * Whether a transcript contains a phrase: its terms as consecutive tokens,
 * tokenized as the FTS5 index does (pipeline/artifact/text/text.ts). Used to confirm the
 * candidates of a cheap NEAR query, so a phrase of common words ("led to the
 * appropriate") never makes FTS5 walk the position lists of "to" and "the"
 * (or of the pair "to_the") through every transcript holding the rest: NEAR
 * of the phrase's two rarest terms, or, with the phrase-pair index, of the
 * pairs around a very common one (server/search/shard.ts).
 *
 * ASCII text and terms are checked around each occurrence of the anchor term
 * without tokenizing the whole text; anything else is tokenized as far as
 * the phrase's first occurrence.
 */
import { isAscii } from "node:buffer";
import { foldedTokens } from "../../../pipeline/artifact/text/index.js";

const ASCII_TERM = /^[a-z0-9]+$/;

function isAsciiWord(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 97 && code <= 122);
}

/** `terms` in order; `anchor` is the index of the term to look for first (the rarest). */
export function containsPhrase(bytes: Buffer, terms: readonly string[], anchor: number): boolean {
  if (terms.length === 0) return false;
  if (terms.every((t) => ASCII_TERM.test(t)) && isAscii(bytes)) return containsAsciiPhrase(bytes.toString("latin1").toLowerCase(), terms, anchor);
  return containsTokens(bytes.toString("utf8"), terms);
}

function containsAsciiPhrase(text: string, terms: readonly string[], anchor: number): boolean {
  const term = terms[anchor]!;
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
    const end = at + term.length;
    if ((at > 0 && isAsciiWord(text.charCodeAt(at - 1))) || (end < text.length && isAsciiWord(text.charCodeAt(end)))) continue;
    if (matchesBefore(text, at, terms, anchor) && matchesAfter(text, end, terms, anchor)) return true;
  }
  return false;
}

/** The tokens before `from`, nearest first, are terms[anchor - 1], terms[anchor - 2], … terms[0]. */
function matchesBefore(text: string, from: number, terms: readonly string[], anchor: number): boolean {
  let i = from - 1;
  for (let t = anchor - 1; t >= 0; t--) {
    while (i >= 0 && !isAsciiWord(text.charCodeAt(i))) i--;
    const end = i + 1;
    while (i >= 0 && isAsciiWord(text.charCodeAt(i))) i--;
    if (end === i + 1 || text.slice(i + 1, end) !== terms[t]) return false;
  }
  return true;
}

/** The tokens from `from` on are terms[anchor + 1], … the last term. */
function matchesAfter(text: string, from: number, terms: readonly string[], anchor: number): boolean {
  let i = from;
  for (let t = anchor + 1; t < terms.length; t++) {
    while (i < text.length && !isAsciiWord(text.charCodeAt(i))) i++;
    const start = i;
    while (i < text.length && isAsciiWord(text.charCodeAt(i))) i++;
    if (start === i || text.slice(start, i) !== terms[t]) return false;
  }
  return true;
}

/** Tokenizes `text` only as far as the first occurrence of the phrase: the last terms.length tokens are compared after each one. */
function containsTokens(text: string, terms: readonly string[]): boolean {
  const window: string[] = [];
  for (const token of foldedTokens(text)) {
    window.push(token);
    if (window.length > terms.length) window.shift();
    if (window.length === terms.length && window.every((t, j) => t === terms[j])) return true;
  }
  return false;
}
