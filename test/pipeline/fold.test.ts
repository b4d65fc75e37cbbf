import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countWords, FOLD_TABLE_RANGES, foldByNormalizing, foldText, foldWhitespace } from "../../pipeline/artifact/text/text.js";
import { decodeHtmlEntities } from "../../pipeline/youtube/html-entities.js";
import { cleanCueText } from "../../pipeline/youtube/timedtext.js";

const tableChars = FOLD_TABLE_RANGES.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i)));
/** Characters outside the table: combining marks, the sigmas, İ's dot written apart, other scripts, a letter outside the BMP. */
const others = ["\u0301", "\u0308", "\u0307", "Σ", "ς", "ΟΔΟΣ", "течёт", "ТЕЧЁТ", "日本", "𝒜", "ﬁ", "\u212b", "\u20d0", "9\u20e3"];
const ascii = [..."aZz09 .,;'-\n\t"];

describe("folding a whole text (diacritics and case, as the index folds each token)", () => {
  it("folds a text of ASCII and the table's characters as normalization does, whatever their neighbours", () => {
    const text = fc.array(fc.oneof(fc.constantFrom(...tableChars), fc.constantFrom(...ascii)), { maxLength: 60 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, (sample) => {
        expect(foldText(sample)).toBe(foldByNormalizing(sample));
      }),
      { numRuns: 3000 },
    );
  });

  it("folds any text as normalization does, the table's characters mixed with those it leaves to normalization", () => {
    const text = fc
      .array(fc.oneof(fc.constantFrom(...tableChars), fc.constantFrom(...ascii), fc.constantFrom(...others)), { maxLength: 60 })
      .map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, (sample) => {
        expect(foldText(sample)).toBe(foldByNormalizing(sample));
      }),
      { numRuns: 3000 },
    );
  });

  it("has each of the table's characters alone and next to a letter as normalization folds it, already lower case", () => {
    expect(tableChars.length).toBe(0x24f - 0x80 + 1 + 0x100 + 0x70 + 0x30);
    for (const c of tableChars) {
      for (const sample of [c, `a${c}`, `${c}A`, `É${c}`, `${c}\u0301`]) expect(foldText(sample)).toBe(foldByNormalizing(sample));
      expect(foldText(c).toLowerCase()).toBe(foldText(c));
    }
    expect(foldText("Recette À LA française, Brücken ſtraße İstanbul Việt’s 5 €")).toBe("recette a la francaise, brucken straße istanbul viet’s 5 €");
  });
});

describe("folding whitespace (cue text)", () => {
  // Every character JavaScript's \s matches, and some that it does not.
  const spaces = [" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"];
  const words = ["a", "to", "Ünd", "日本", "\u200b", "&amp;", "<i>", "-"];
  const fold = (text: string) => text.replace(/\s+/g, " ").trim();

  it("gives what replacing every whitespace run and trimming gives, and the same string when nothing changes", () => {
    const text = fc.array(fc.oneof(fc.constantFrom(...spaces), fc.constantFrom(...words)), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (sample) => {
        const folded = foldWhitespace(sample);
        expect(folded).toBe(fold(sample));
        expect(foldWhitespace(folded)).toBe(folded);
      }),
      { numRuns: 5000 },
    );
  });

  it("folds each kind of whitespace, leading, trailing, doubled and alone", () => {
    for (const space of spaces) {
      expect(foldWhitespace(`a${space}b`)).toBe("a b");
      expect(foldWhitespace(`${space}a`)).toBe("a");
      expect(foldWhitespace(`a${space}`)).toBe("a");
      expect(foldWhitespace(`a ${space}b`)).toBe("a b");
    }
    expect(foldWhitespace("a  b")).toBe("a b");
    expect(foldWhitespace("a b")).toBe("a b");
  });
});

describe("cleaning cue text (tags, entities, whitespace, control characters)", () => {
  it("decodes, strips tags, folds and drops control characters, with or without anything to do", () => {
    expect(cleanCueText("plain words")).toBe("plain words");
    expect(cleanCueText("Tom &amp; Jerry&#39;s")).toBe("Tom & Jerry's");
    expect(cleanCueText("<i>so</i>  \n <b>loud</b>")).toBe("so loud");
    expect(cleanCueText("a &lt;b&gt; c")).toBe("a c");
    expect(cleanCueText("x\u0007y\u00a0z")).toBe("xy z");
    expect(cleanCueText("&unknown; 5 < 6")).toBe("&unknown; 5 < 6");
    expect(decodeHtmlEntities("no entities here")).toBe("no entities here");
    expect(decodeHtmlEntities("&hellip;&#x41;&#65;")).toBe("…AA");
  });
});

describe("counting words", () => {
  // Whitespace runs split words; a run counts when it holds a letter or digit (any script, outside the BMP too).
  const byList = (text: string) => text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  const parts = [" ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\ufeff", "a", "Z", "9", "é", "日", "٣", "𝒜", "😀", "\u0301", "-", "'", "…", ".", "\ud800", "\udc00", "\u200b"];

  it("counts as splitting on whitespace and keeping runs with a letter or digit does", () => {
    const text = fc.array(fc.constantFrom(...parts), { maxLength: 50 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, (sample) => {
        expect(countWords(sample)).toBe(byList(sample));
      }),
      { numRuns: 5000 },
    );
  });

  it("counts words around punctuation, marks alone and letters outside the BMP", () => {
    expect(countWords("")).toBe(0);
    expect(countWords("  Hello, world!  -- 42 ")).toBe(3);
    expect(countWords("- — … \u0301")).toBe(0);
    expect(countWords("𝒜𝒜 😀 x")).toBe(2);
    expect(countWords("naïve\u00a0café\u3000日本語")).toBe(3);
  });
});
