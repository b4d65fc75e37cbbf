import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FOLD_TABLE_RANGES, foldByNormalizing, foldText } from "../../pipeline/text.js";

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
