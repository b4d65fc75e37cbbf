import { describe, expect, it } from "vitest";
import { BOUNDARY, trainMarkovChain } from "../../pipeline/corpus/markov.js";
import { createRandom } from "../../pipeline/corpus/random.js";
import { TokenBuffer } from "../../pipeline/corpus/token-buffer.js";

const SENTENCES = [
  ["The", "cat", "sat", "on", "the", "mat", "."],
  ["The", "dog", "sat", "on", "the", "rug", "."],
  ["A", "cat", "saw", "the", "dog", "on", "the", "mat", "."],
  ["The", "dog", "saw", "a", "bird", "."],
];

function sentences(backoff: number, seed: number, count: number): string[][] {
  const chain = trainMarkovChain(SENTENCES, { backoff });
  const random = createRandom(seed);
  const out: string[][] = [];
  const buffer = new TokenBuffer(8);
  for (let k = 0; k < count; k++) {
    buffer.clear();
    chain.generateSentence(random, buffer);
    out.push([...buffer.ids.subarray(0, buffer.length)].map((id) => chain.words[id] as string));
  }
  return out;
}

describe("the Markov chain", () => {
  it("generates the same sentences from the same seed and different ones from another", () => {
    expect(sentences(0.35, 1, 50)).toEqual(sentences(0.35, 1, 50));
    expect(sentences(0.35, 2, 50)).not.toEqual(sentences(0.35, 1, 50));
  });

  it("without backoff only follows order-2 transitions seen in training", () => {
    const seen = new Set<string>();
    for (const s of SENTENCES) {
      const padded = ["", "", ...s, ""];
      for (let i = 0; i + 2 < padded.length; i++) seen.add(padded.slice(i, i + 3).join(" "));
    }
    for (const s of sentences(0, 3, 200)) {
      const padded = ["", "", ...s, ""];
      for (let i = 0; i + 2 < padded.length; i++) expect(seen).toContain(padded.slice(i, i + 3).join(" "));
    }
  });

  it("with backoff also makes sentences that are not in the training set", () => {
    const training = new Set(SENTENCES.map((s) => s.join(" ")));
    const novel = sentences(1, 4, 200).filter((s) => !training.has(s.join(" ")));
    expect(novel.length).toBeGreaterThan(0);
  });

  it("never emits the boundary id and closes over-long sentences with a period", () => {
    const loop = [["a", "b", "a", "b", "a", "b", "a", "b", "."]];
    const chain = trainMarkovChain(loop, { backoff: 1, maxSentenceTokens: 5 });
    const buffer = new TokenBuffer(2);
    const random = createRandom(5);
    for (let k = 0; k < 100; k++) {
      buffer.clear();
      chain.generateSentence(random, buffer);
      const ids = [...buffer.ids.subarray(0, buffer.length)];
      expect(ids).not.toContain(BOUNDARY);
      expect(ids.length).toBeLessThanOrEqual(5);
      expect(chain.words[ids[ids.length - 1] as number]).toBe(".");
    }
  });

  it("rejects an out-of-range backoff with an exact message", () => {
    expect(() => trainMarkovChain(SENTENCES, { backoff: 2 })).toThrow('Expected the "backoff" option to be a number from 0 to 1, got 2');
  });
});
