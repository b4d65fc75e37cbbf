import { describe, expect, it } from "vitest";
import { parseLine, readBrownSentences } from "../../pipeline/corpus/brown.js";
import { detokenize } from "../../pipeline/corpus/detokenize.js";

describe("reading the Brown corpus", () => {
  it("strips tags, drops quote tokens and keeps words that contain slashes", () => {
    const tokens = parseLine("\tHe/pps said/vbd ``/`` 1-1/2/cd miles/nns ''/'' ,/, then/rb left/vbd ./.");
    expect(tokens).toEqual(["He", "said", "1-1/2", "miles", ",", "then", "left", "."]);
  });

  it("skips headlines, fragments and formula notation", () => {
    expect(parseLine("\tMerger/nn-hl proposed/vbn-hl")).toBeUndefined();
    expect(parseLine("\tYes/rb ./.")).toBeUndefined();
    expect(parseLine("\tLet/vb **zg be/be the/at value/nn ./.")).toBeUndefined();
    expect(parseLine("")).toBeUndefined();
  });

  it("ends a sentence closed by a semicolon with a period and capitalizes its first word", () => {
    expect(parseLine("\tand/cc so/rb it/pps went/vbd ;/.")).toEqual(["And", "so", "it", "went", "."]);
  });

  it("reads thousands of sentences of real English from the installed package", () => {
    const sentences = readBrownSentences({ maxFiles: 5 });
    expect(sentences.length).toBeGreaterThan(300);
    expect(detokenize(sentences[0] as string[])).toBe(
      "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced no evidence that any irregularities took place.",
    );
    for (const sentence of sentences) {
      for (const token of sentence) {
        expect(token).not.toMatch(/^(``|''|\(|\))$/);
        expect(token).toMatch(/^[\x21-\x7e]+$/);
      }
    }
  });

  it("detokenizes without a space before punctuation and clitics", () => {
    expect(detokenize(["Well", ",", "it", "is", "n't", "mine", ";", "is", "it", "?"])).toBe("Well, it isn't mine; is it?");
  });
});
