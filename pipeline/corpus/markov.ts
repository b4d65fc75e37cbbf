/**
 * A word-level Markov chain of order 2 with an order-1 fallback, stored in a
 * few typed arrays.
 *
 * Layout: the training sentences are interned to integer ids and laid end to
 * end in `stream`, each preceded by two boundary ids (0), so the pair
 * (boundary, boundary) is the start state and emitting a boundary ends a
 * sentence. Every position p is an occurrence of the state
 * (stream[p], stream[p+1]) followed by stream[p+2]. The occurrences are
 * sorted by (second word, first word), so one contiguous slice holds all
 * occurrences of a state (order 2) and a wider slice all occurrences of its
 * last word (order 1). Picking a uniform occurrence samples the successor in
 * proportion to its training frequency. After training, each sorted
 * occurrence keeps only its successor word and the state that follows, so
 * generation never hashes a pair and touches about two cache lines a word.
 */
import type { Random } from "./random.js";
import type { TokenBuffer } from "./token-buffer.js";

export const BOUNDARY = 0;

export interface TrainMarkovOptions {
  /**
   * Probability of taking an order-1 step where the order-2 state has a single
   * training occurrence (so order 2 could only copy the source verbatim).
   * Higher values make more novel word sequences and less grammatical ones.
   * Default 0.35.
   */
  backoff?: number;
  /** Sentences longer than this many tokens are cut and closed with a period. Default 60. */
  maxSentenceTokens?: number;
}

export interface MarkovChain {
  /** Token text by id; id 0 is the sentence boundary (""). */
  readonly words: readonly string[];
  /** 1 where the token contains a letter or digit (counts as a word), 0 for punctuation. */
  readonly isWord: Uint8Array;
  /** Number of training sentences and tokens, for reporting. */
  readonly sentences: number;
  readonly tokens: number;
  /** Number of distinct order-2 states. */
  readonly states: number;
  /** Bytes held by the typed arrays (excludes the word strings). */
  readonly byteLength: number;
  /** Appends one sentence's token ids (no boundaries) to `out`; returns the number of words (not punctuation) appended. */
  generateSentence(random: Random, out: TokenBuffer): number;
}

export function trainMarkovChain(sentences: readonly (readonly string[])[], options: TrainMarkovOptions = {}): MarkovChain {
  const backoff = options.backoff ?? 0.35;
  const maxTokens = options.maxSentenceTokens ?? 60;
  if (!(backoff >= 0 && backoff <= 1)) throw new Error(`Expected the "backoff" option to be a number from 0 to 1, got ${backoff}`);
  if (!Number.isInteger(maxTokens) || maxTokens < 2) throw new Error(`Expected the "maxSentenceTokens" option to be an integer of at least 2, got ${maxTokens}`);
  if (sentences.length === 0) throw new Error("Expected at least one training sentence");

  const { ids, words, stream } = internSentences(sentences);
  const length = stream.length;
  const vocabulary = words.length;

  // Positions 0 … length-3 have a successor. Two stable counting sorts (by
  // first word, then by second) order them by (second, first) in O(n + V).
  const positions = length - 2;
  const byFirst = countingSort(stream, positions, 0, vocabulary, undefined);
  const wordStart = new Int32Array(vocabulary + 1);
  const occurrences = countingSort(stream, positions, 1, vocabulary, byFirst, wordStart);
  const { stateAt, stateStart, startState } = numberStates(stream, occurrences);
  const transitions = interleaveTransitions(stream, occurrences, stateAt);
  const isWord = new Uint8Array(vocabulary);
  for (let id = 0; id < vocabulary; id++) isWord[id] = /[\p{L}\p{N}]/u.test(words[id] as string) ? 1 : 0;
  const period = ids.get(".") ?? words.length - 1;

  // Thresholds on uint32 draws avoid a float multiply in the hot loop.
  const backoffThreshold = Math.floor(backoff * 4294967296);

  return {
    words,
    isWord,
    sentences: sentences.length,
    tokens: length,
    states: stateStart.length - 1,
    byteLength: transitions.byteLength + stateStart.byteLength + wordStart.byteLength + isWord.byteLength,
    generateSentence(random: Random, out: TokenBuffer): number {
      out.reserve(maxTokens + 1);
      const buffer = out.ids;
      let n = out.length;
      const limit = n + maxTokens;
      let state = startState;
      let last = BOUNDARY;
      let wordCount = 0;
      for (;;) {
        let lo = stateStart[state] as number;
        let hi = stateStart[state + 1] as number;
        // A state seen once can only replay its source; sometimes step by the last word alone instead.
        // Never from the start state: "after a boundary" would include sentence ends and make empty sentences.
        if (hi - lo <= 1 && last !== BOUNDARY && (hi === lo || random.uint32() < backoffThreshold)) {
          lo = wordStart[last] as number;
          hi = wordStart[last + 1] as number;
        }
        const at = 2 * (lo + Math.floor(random.float() * (hi - lo)));
        const next = transitions[at] as number;
        if (next === BOUNDARY) break;
        if (n === limit) {
          // Over-long: close the sentence rather than let it run on.
          buffer[n - 1] = period;
          if (isWord[last] === 1) wordCount--;
          break;
        }
        buffer[n++] = next;
        wordCount += isWord[next] as number;
        last = next;
        state = transitions[at + 1] as number;
      }
      out.length = n;
      return wordCount;
    },
  };
}

/** Interns the tokens to ids and lays the sentences end to end: B B s1… B B s2… B B. */
function internSentences(sentences: readonly (readonly string[])[]): { ids: Map<string, number>; words: string[]; stream: Int32Array } {
  const ids = new Map<string, number>([["", BOUNDARY]]);
  const words: string[] = [""];
  let length = 2;
  for (const sentence of sentences) length += sentence.length + 2;
  const stream = new Int32Array(length);
  let at = 2;
  for (const sentence of sentences) {
    for (const token of sentence) {
      let id = ids.get(token);
      if (id === undefined) {
        id = words.length;
        ids.set(token, id);
        words.push(token);
      }
      stream[at++] = id;
    }
    at += 2; // the two boundaries after the sentence are already 0
  }
  return { ids, words, stream };
}

/**
 * Numbers the states in sorted order: `stateStart[s]` is the first sorted
 * occurrence of state s, and `stateAt[p]` the state at stream position p;
 * stateAt covers the last pair too (the final B B, same as the start state).
 */
function numberStates(stream: Int32Array, occurrences: Int32Array): { stateAt: Int32Array; stateStart: Int32Array; startState: number } {
  const length = stream.length;
  const positions = occurrences.length;
  const stateAt = new Int32Array(length - 1);
  const stateStartList: number[] = [];
  let previousFirst = -1;
  let previousSecond = -1;
  for (let i = 0; i < positions; i++) {
    const p = occurrences[i] as number;
    const first = stream[p] as number;
    const second = stream[p + 1] as number;
    if (first !== previousFirst || second !== previousSecond) {
      stateStartList.push(i);
      previousFirst = first;
      previousSecond = second;
    }
    stateAt[p] = stateStartList.length - 1;
  }
  stateStartList.push(positions);
  const startState = stateAt[0] as number;
  stateAt[length - 2] = startState;
  return { stateAt, stateStart: Int32Array.from(stateStartList), startState };
}

/**
 * What generation needs per occurrence, interleaved so one step touches one cache line:
 * [2i] the word that follows, [2i+1] the state after it. The stream itself can then be dropped.
 */
function interleaveTransitions(stream: Int32Array, occurrences: Int32Array, stateAt: Int32Array): Int32Array {
  const positions = occurrences.length;
  const transitions = new Int32Array(positions * 2);
  for (let i = 0; i < positions; i++) {
    const p = occurrences[i] as number;
    transitions[2 * i] = stream[p + 2] as number;
    transitions[2 * i + 1] = stateAt[p + 1] as number;
  }
  return transitions;
}

/**
 * Stable counting sort of positions by `stream[p + offset]`. With `order`
 * given, sorts that permutation (LSD radix step); `starts`, when given,
 * receives the bucket boundaries.
 */
function countingSort(
  stream: Int32Array,
  positions: number,
  offset: number,
  vocabulary: number,
  order: Int32Array | undefined,
  starts: Int32Array = new Int32Array(vocabulary + 1),
): Int32Array {
  starts.fill(0);
  for (let p = 0; p < positions; p++) {
    const bucket = (stream[p + offset] as number) + 1;
    starts[bucket] = (starts[bucket] as number) + 1;
  }
  for (let w = 0; w < vocabulary; w++) starts[w + 1] = (starts[w + 1] as number) + (starts[w] as number);
  const next = starts.slice(0, vocabulary);
  const sorted = new Int32Array(positions);
  for (let i = 0; i < positions; i++) {
    const p = order === undefined ? i : (order[i] as number);
    const key = stream[p + offset] as number;
    const slot = next[key] as number;
    next[key] = slot + 1;
    sorted[slot] = p;
  }
  return sorted;
}
