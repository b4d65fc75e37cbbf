import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FOLD_TABLE_RANGES, foldKeepingOffsets, tokenize } from "../../pipeline/artifact/text/text.js";
import { findOccurrences } from "../../server/search/snippet/occurrences.js";
import { foldedBytes } from "../../pipeline/artifact/text/folded-bytes.js";
import { countTerms } from "../../server/search/rank/term-counts.js";

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

  it("counts in text that is not ASCII exactly the tokens the tokenizer folds to each term", () => {
    // Words of several scripts, diacritics precomposed and written apart, letters outside the BMP, and separators.
    const words = ["Brücken", "brucken", "e\u0301te\u0301", "été", "ÉTÉ", "течёт", "ТЕЧЁТ", "Ἑλλάς", "ΟΔΟΣ", "ſtraße", "İstanbul", "ﬁn", "日本語", "𝒜b", "b𝒜", "𝒜en", "en𝒜", "x\u0301", "\u0301x", "en", "EN", "recette", "Recette", "tiếng", "Việt", "naïve", "9\u20e3", "a1"];
    const separators = [" ", ", ", ".\n", " — ", "\u00a0", "’", "-", "😀", "\u200b"];
    const text = fc.array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...separators)), { minLength: 1, maxLength: 40 }).map((parts) => parts.flat().join(""));
    fc.assert(
      fc.property(text, fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }), (sample, picked) => {
        const tokens = tokenize(sample);
        const terms = [...new Set(picked.flatMap((w) => tokenize(w)))];
        if (terms.length === 0) return;
        const expected = terms.map((term) => tokens.filter((t) => t === term).length);
        expect(countTerms(utf8(sample), terms, Infinity)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("counts in a prefix cut inside a character as in the prefix decoded, in text of Latin letters beyond ASCII", () => {
    const words = ["été", "ÉTÉ", "ete", "Brücken", "brucken", "tiếng", "TIẾNG", "tieng", "œuvre", "naïve", "ß", "en", "EN", "Én", "x²"];
    const separators = [" ", "’", "\u00a0", " — ", "\u200b", "«", "»", "-"];
    const text = fc.array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...separators)), { minLength: 1, maxLength: 30 }).map((parts) => parts.flat().join(""));
    fc.assert(
      fc.property(text, fc.subarray(["ete", "brucken", "tieng", "en", "naive", "x"], { minLength: 1 }), fc.nat(400), (sample, terms, cut) => {
        const bytes = utf8(sample);
        const scan = Math.max(1, Math.min(bytes.length, cut + 1));
        const tokens = tokenize(bytes.subarray(0, scan).toString("utf8"));
        const scale = bytes.length / scan;
        const expected = terms.map((term) => tokens.filter((t) => t === term).length * (scale === 1 ? 1 : scale));
        expect(countTerms(bytes, terms, scan)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("counts in ASCII text exactly the whole words in the term's lower, Capitalized or UPPER form", () => {
    // Repeated letters ("aaa"), words inside words ("alala", "lala"), digits ("x86"), and mixed case that is not counted ("tHe").
    const words = ["a", "aa", "aaa", "aaaa", "A", "AA", "AAA", "Aaa", "aAa", "la", "lala", "alala", "Lala", "LALA", "laLa", "the", "The", "THE", "tHe", "then", "other", "x86", "X86", "3dx", "3DX", "3Dx", "level", "Level", "LEVEL", "bevel", "levels"];
    const separators = [" ", ", ", ".\n", "-", "'", "  "];
    const text = fc.array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...separators)), { minLength: 1, maxLength: 40 }).map((parts) => parts.flat().join(""));
    const terms = ["a", "aa", "aaa", "la", "lala", "the", "x86", "3dx", "level"];
    fc.assert(
      fc.property(text, fc.subarray(terms, { minLength: 1 }), (sample, picked) => {
        const tokens = sample.split(/[^A-Za-z0-9]+/);
        const expected = picked.map((term) => {
          const forms = new Set([term, term[0]!.toUpperCase() + term.slice(1), term.toUpperCase()]);
          return tokens.filter((t) => forms.has(t)).length;
        });
        expect(countTerms(utf8(sample), picked, Infinity)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it("folds bytes as the text folds keeping offsets, one byte per UTF-16 unit, whatever the runs of ASCII between other letters", () => {
    // Every ASCII character (the case edges "@", "[", "`", "{" included) and every fold-table character, in runs of any length,
    // so the four-bytes-at-a-time path meets a letter beyond ASCII at every alignment.
    const ascii = fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code));
    const table = fc.constantFrom(...FOLD_TABLE_RANGES).chain(([from, to]) => fc.integer({ min: from, max: to })).map((code) => String.fromCharCode(code));
    const text = fc.array(fc.oneof(fc.array(ascii, { maxLength: 13 }).map((run) => run.join("")), table), { maxLength: 60 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (sample) => {
        const folded = foldKeepingOffsets(sample)!;
        const expected = [...folded].map((char, at) => {
          const code = char.charCodeAt(0);
          if (code < 0x80) return code;
          return /[\p{L}\p{N}\p{M}]/u.test(sample[at]!) ? 0x80 : 0x20;
        });
        expect([...foldedBytes(utf8(sample))!]).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
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
