/**
 * The English sentence source: the Markov chain trained on the Brown corpus,
 * with its rendering tables. Training takes about a second, so it happens
 * once per process and is shared by every corpus (and every test in a file).
 */
import { readBrownSentences } from "./brown.js";
import { trainMarkovChain, type MarkovChain } from "./markov.js";
import { buildVocabulary, type SentenceSource } from "./vocabulary.js";

export interface EnglishSource extends SentenceSource {
  readonly chain: MarkovChain;
  /** Milliseconds spent reading the corpus and training, for reporting. */
  readonly readMs: number;
  readonly trainMs: number;
}

let shared: EnglishSource | undefined;

/** The process-wide English source, trained on first use. */
export function englishSource(): EnglishSource {
  shared ??= trainEnglishSource();
  return shared;
}

export function trainEnglishSource(): EnglishSource {
  const t0 = performance.now();
  const sentences = readBrownSentences();
  const t1 = performance.now();
  const chain = trainMarkovChain(sentences);
  const t2 = performance.now();
  return {
    chain,
    vocabulary: buildVocabulary(chain.words),
    generateSentence: (random, out) => chain.generateSentence(random, out),
    readMs: t1 - t0,
    trainMs: t2 - t1,
  };
}
