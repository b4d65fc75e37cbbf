import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TermVectors } from "../../pipeline/artifact/search-index/term-vectors.js";
import { countTerms, SCAN_BYTES } from "../../server/search/rank/term-counts.js";

const ascii = (text: string) => Buffer.from(text, "latin1");

/** What the vector of `bytes` answers for `terms`, as countTerms answers it. */
function scaled(vectors: TermVectors, bytes: Buffer, terms: string[], scanBytes: number): number[] | undefined {
  const vector = vectors.vectorOf(bytes, scanBytes);
  if (!vector) return undefined;
  return TermVectors.termCounts(vector, vectors.idsOf(terms), bytes.length, scanBytes);
}

/** Over texts of `words` joined by `separators`, cut anywhere: the vectors count what countTerms counts, for any of `terms`. */
function expectCountsOfCountTerms(words: string[], separators: string[], terms: string[], encode: (text: string) => Buffer, maxLength: number, maxCut: number): void {
  const text = fc.array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...separators)), { minLength: 1, maxLength }).map((parts) => parts.flat().join(""));
  const vectors = new TermVectors();
  fc.assert(
    fc.property(text, fc.subarray(terms, { minLength: 1 }), fc.nat(maxCut), (sample, picked, cut) => {
      const bytes = encode(sample);
      const scan = Math.max(1, Math.min(bytes.length, cut + 1));
      expect(scaled(vectors, bytes, picked, scan)).toEqual(countTerms(bytes, picked, scan));
    }),
    { numRuns: 3000 },
  );
}

describe("term vectors of the transcripts held in memory", () => {
  it("count whole words in lower, Capitalized and UPPER case, and nothing for a term the text lacks", () => {
    const vectors = new TermVectors();
    const vector = vectors.vectorOf(ascii("The theory: the THE, tHe then other the. X86 x86"))!;
    expect(TermVectors.counts(vector, vectors.idsOf(["the", "theory", "x86", "absent", "then"]))).toEqual([4, 1, 2, 0, 1]);
  });

  it("count the folded tokens of text beyond ASCII, folded byte by byte or decoded", () => {
    const vectors = new TermVectors();
    const vector = vectors.vectorOf(Buffer.from("Café cafe écafe CAFÉ naïve", "utf8"))!;
    expect(TermVectors.counts(vector, vectors.idsOf(["cafe", "naive", "ecafe"]))).toEqual([3, 1, 1]);
    // Characters foldedBytes leaves to the decoded text (other scripts, a mark written apart).
    const decoded = Buffer.from("течёт und so, Und x\u0301 x 日本語x so", "utf8");
    const terms = ["und", "so", "x", "absent"];
    expect(TermVectors.counts(vectors.vectorOf(decoded)!, vectors.idsOf(terms))).toEqual(countTerms(decoded, terms));
    // "x\u0301" folds to "x"; "日本語x" is one token.
    expect(countTerms(decoded, terms)).toEqual([2, 2, 2, 0]);
  });

  it("count exactly what countTerms counts in text of any script, over any prefix cut", () => {
    // Words of several scripts, diacritics precomposed and written apart, letters outside the BMP, and separators.
    const words = ["Brücken", "brucken", "e\u0301te\u0301", "été", "ÉTÉ", "течёт", "ТЕЧЁТ", "Ἑλλάς", "ſtraße", "Straße", "İstanbul", "ﬁn", "日本語", "𝒜b", "b𝒜", "en𝒜", "x\u0301", "\u0301x", "en", "EN", "recette", "Recette", "naïve", "9\u20e3", "a1", "x", "und"];
    const separators = [" ", ", ", ".\n", " — ", "\u00a0", "’", "-", "😀", "\u200b"];
    const terms = ["brucken", "ete", "en", "recette", "naive", "a1", "x", "und", "fin", "strasse", "istanbul", "b", "absent"];
    expectCountsOfCountTerms(words, separators, terms, (text) => Buffer.from(text, "utf8"), 40, 400);
  });

  it("count exactly what countTerms counts in Latin text beyond ASCII, over any prefix cut", () => {
    const words = ["été", "ÉTÉ", "ete", "Été", "Brücken", "brucken", "BRÜCKEN", "tiếng", "TIẾNG", "tieng", "naïve", "en", "EN", "Én", "x²", "a1", "A1", "l’été", "café", "recette"];
    const separators = [" ", "’", "\u00a0", " — ", "\u200b", "«", "»", "-", ", "];
    const terms = ["ete", "brucken", "tieng", "en", "naive", "x", "a1", "l", "cafe", "recette", "absent"];
    expectCountsOfCountTerms(words, separators, terms, (text) => Buffer.from(text, "utf8"), 40, 400);
  });

  it("count over the text's first SCAN_BYTES, as countTerms does, with many terms", () => {
    const vectors = new TermVectors();
    // Thousands of distinct words, so the dictionary grows and rehashes; longer than the scan, cut inside a word.
    const text = Array.from({ length: 9000 }, (_, i) => (i % 3 === 0 ? `Word${i % 4000}` : `w${(i * 7919) % 5000}x`)).join(" ");
    const bytes = ascii(text);
    expect(bytes.length).toBeGreaterThan(SCAN_BYTES);
    const terms = ["word0", "word3999", "w0x", "w4999x", "w17x", "word1", "absent"];
    expect(scaled(vectors, bytes, terms, SCAN_BYTES)).toEqual(countTerms(bytes, terms));
    expect(vectors.terms).toBeGreaterThan(4000);
  });

  it("count exactly what countTerms counts, over any prefix cut, for any ASCII terms", () => {
    // Repeated letters, words inside words, digits, mixed case that is not counted, and separators of all kinds.
    const words = ["a", "aa", "aaa", "A", "AA", "Aaa", "aAa", "la", "lala", "alala", "Lala", "LALA", "laLa", "the", "The", "THE", "tHe", "then", "x86", "X86", "3dx", "3DX", "3Dx", "1st", "1St", "1ST", "level", "Level", "LEVEL", "levels", "q"];
    const separators = [" ", ", ", ".\n", "-", "'", "  ", "_", "\t", "~"];
    const terms = ["a", "aa", "aaa", "la", "lala", "alala", "the", "then", "x86", "3dx", "1st", "level", "levels", "q", "absent"];
    expectCountsOfCountTerms(words, separators, terms, ascii, 60, 500);
  });
});
