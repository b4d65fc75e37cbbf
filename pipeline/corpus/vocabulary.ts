/**
 * Per-token rendering tables shared by every transcript, title and
 * description drawn from one word source.
 *
 * Rendering is the hot loop of generation, so everything that depends only
 * on the token (its written and spoken form, whether it hugs the previous
 * token, whether it counts as a word, how long it takes to say) is computed
 * once per vocabulary, not once per occurrence.
 */
import { attachesLeft } from "./detokenize.js";
import type { Random } from "./random.js";
import type { TokenBuffer } from "./token-buffer.js";

export interface Vocabulary {
  /** Token as written in a manual (human-made) caption track. */
  readonly written: readonly string[];
  /** Token as an auto-generated (speech recognition) track shows it; "" for punctuation, which ASR does not emit. */
  readonly spoken: readonly string[];
  /** 1 when the written token follows the previous one without a space. */
  readonly attach: Uint8Array;
  /** 1 when the token contains a letter or digit, i.e. counts as a word. */
  readonly isWord: Uint8Array;
  /** 1 for `.`, `?`, `!`: the speaker pauses after it. */
  readonly endsSentence: Uint8Array;
  /** Seconds a speaker at the reference pace needs for the token (0 for punctuation). */
  readonly speakingTime: Float32Array;
}

export interface BuildVocabularyOptions {
  /** Lower-case spoken forms, as English speech recognition does (keeping "I"). Default true. */
  lowerCaseSpoken?: boolean;
  /** Spoken form by token id, overriding the derived one where given (e.g. a capitalized sentence-initial variant speaks as its base word). */
  spokenOverrides?: ReadonlyMap<number, number>;
}

const WORD = /[\p{L}\p{N}]/u;
// Speech recognition drops surrounding punctuation ("Mr." → "mr", "$5" → "5") but keeps inner marks ("don't", "1/2").
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
const PRONOUN_I = /^i(?:'(?:m|ll|ve|d))?$/;
/**
 * About 150 words a minute for average-length English words: a fixed cost
 * per word plus a cost per letter, so long words take longer to say.
 */
const SECONDS_PER_WORD = 0.17;
const SECONDS_PER_LETTER = 0.045;

export function buildVocabulary(tokens: readonly string[], options: BuildVocabularyOptions = {}): Vocabulary {
  const lowerCaseSpoken = options.lowerCaseSpoken ?? true;
  const n = tokens.length;
  const spoken: string[] = new Array<string>(n);
  const attach = new Uint8Array(n);
  const isWord = new Uint8Array(n);
  const endsSentence = new Uint8Array(n);
  const speakingTime = new Float32Array(n);
  for (let id = 0; id < n; id++) {
    const token = tokens[id] as string;
    attach[id] = attachesLeft(token) ? 1 : 0;
    endsSentence[id] = token === "." || token === "?" || token === "!" ? 1 : 0;
    if (!WORD.test(token)) {
      spoken[id] = "";
      continue;
    }
    isWord[id] = 1;
    let form = token.replace(EDGE_PUNCTUATION, "");
    if (lowerCaseSpoken) {
      form = form.toLowerCase();
      if (PRONOUN_I.test(form)) form = "I" + form.slice(1);
    }
    spoken[id] = form;
    speakingTime[id] = SECONDS_PER_WORD + SECONDS_PER_LETTER * form.length;
  }
  for (const [id, base] of options.spokenOverrides ?? []) spoken[id] = spoken[base] as string;
  return { written: tokens, spoken, attach, isWord, endsSentence, speakingTime };
}

/** Anything that can write sentences as token ids of one vocabulary: the Markov chain, a foreign word list. */
export interface SentenceSource {
  readonly vocabulary: Vocabulary;
  /** Appends one sentence's token ids to `out`; returns how many of them are words (not punctuation). */
  generateSentence(random: Random, out: TokenBuffer): number;
}

/** Written text of `ids[from … to)`: single spaces, none before punctuation and clitics. */
export function writeTokens(vocabulary: Vocabulary, ids: Int32Array, from: number, to: number): string {
  const { written, attach } = vocabulary;
  let out = "";
  for (let i = from; i < to; i++) {
    const id = ids[i] as number;
    const form = written[id] as string;
    if (form.length === 0) continue;
    out = out.length === 0 ? form : attach[id] === 1 ? out + form : out + " " + form;
  }
  return out;
}
