import { describe, expect, it } from "vitest";
import { findOccurrences } from "../../server/data/occurrences.js";
import { countTerms } from "../../server/data/term-counts.js";

const utf8 = (text: string) => Buffer.from(text, "utf8");

describe("term counting for BM25", () => {
  it("counts whole words in lower, Capitalized and UPPER case", () => {
    expect(countTerms(utf8("The theory: the THE, then other the."), ["the", "theory"])).toEqual([4, 1]);
  });

  it("counts accented spellings of a term, as the index folds them, and not a match glued to another letter", () => {
    expect(countTerms(utf8("café cafe écafe"), ["cafe"])).toEqual([2]);
  });

  it("folds diacritics for non-ASCII terms like the index does", () => {
    expect(countTerms(utf8("Brücken und brucken und BRÜCKEN"), ["brucken", "und"])).toEqual([3, 2]);
  });

  it("scales counts over a scanned prefix to the whole length", () => {
    const text = "word ".repeat(1000); // 5,000 bytes
    expect(countTerms(utf8(text), ["word"], 1000)).toEqual([1000]);
    expect(countTerms(utf8(text), ["word"])).toEqual([1000]);
  });
});

describe("occurrences for snippets", () => {
  it("keeps, with a span cap, exactly the occurrences of a prefix of the text", () => {
    const text = "a b a b a b c a b";
    const all = findOccurrences(text, ["a", "b", "c"]);
    const capped = findOccurrences(text, ["a", "b", "c"], 2);
    expect(all.spans.length / 3).toBe(9);
    // "a" reaches its cap at offset 4: an uncollected "a" could follow, so nothing after 4 is kept.
    const starts = [];
    for (let i = 0; i < capped.spans.length; i += 3) starts.push(capped.spans[i]);
    expect(starts).toEqual([0, 2, 4]);
  });
});
