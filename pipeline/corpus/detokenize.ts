/**
 * Joins word tokens back into running text.
 *
 * The Brown corpus (and so the Markov chain) works on tokens where
 * punctuation stands alone; readers expect "said, then" rather than
 * "said , then". The renderer precomputes `attachesLeft` once per vocabulary
 * entry, so the rule lives here and nowhere else.
 */

// Punctuation runs and clitics that the Brown tokenizer (or others) split off.
const ATTACHES_LEFT = /^(?:[,.;:!?%]+|'s|'re|'ve|'ll|'d|'m|n't)$/i;

/** True when the token is written without a space before it. */
export function attachesLeft(token: string): boolean {
  return ATTACHES_LEFT.test(token);
}

/** Joins tokens with single spaces, except before punctuation and clitics. */
export function detokenize(tokens: readonly string[]): string {
  let out = "";
  for (const token of tokens) {
    if (out.length === 0) out = token;
    else out += attachesLeft(token) ? token : " " + token;
  }
  return out;
}
