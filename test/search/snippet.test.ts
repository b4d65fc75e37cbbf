import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FOLD_TABLE_RANGES, foldKeepingOffsets, foldText, tokenize } from "../../pipeline/artifact/text/text.js";
import { FOLD_FIRST_BYTES, findOccurrences, findOccurrencesTokenByToken } from "../../server/search/snippet/occurrences.js";
import { makeSnippet } from "../../server/search/snippet/snippet.js";

const snippet = (text: string, terms: string[], maxChars = 60) => makeSnippet(text, findOccurrences(text, terms), { maxChars });

describe("snippets", () => {
  it("marks whole-word matches only, case-insensitively", () => {
    expect(snippet("The theory of the thesis", ["the"])).toBe("<mark>The</mark> theory of <mark>the</mark> thesis");
  });

  it("picks the window with the most distinct terms and marks cut ends with an ellipsis", () => {
    const text = `${"alpha ".repeat(30)}beta gamma here${" delta".repeat(30)}`;
    const out = snippet(text, ["alpha", "beta", "gamma"]);
    expect(out.startsWith("…")).toBe(true);
    expect(out.endsWith("…")).toBe(true);
    expect(out).toContain("<mark>beta</mark> <mark>gamma</mark>");
    expect(out.replace(/<\/?mark>/g, "").replace(/…/g, "").length).toBeLessThanOrEqual(60);
  });

  it("never splits a word at a cut", () => {
    const text = "supercalifragilistic words around the needle and more supercalifragilistic words after";
    const plain = snippet(text, ["needle"], 30).replace(/<\/?mark>/g, "").replace(/…/g, "");
    for (const word of plain.trim().split(/\s+/)) expect(text.split(/\s+/)).toContain(word);
  });

  it("escapes markup and entities in the transcript, leaving only its own marks", () => {
    const out = snippet(`say <img src=x onerror=alert(1)> & "quote" 'it' needle`, ["needle"], 200);
    expect(out).toBe("say &lt;img src=x onerror=alert(1)&gt; &amp; &quot;quote&quot; &#39;it&#39; <mark>needle</mark>");
  });

  it("matches non-ASCII text the way the index folds it", () => {
    expect(snippet("Der Fluß fließt über Brücken", ["fließt", "brucken"])).toBe("Der Fluß <mark>fließt</mark> über <mark>Brücken</mark>");
    expect(findOccurrences("Café CAFE cafe", ["cafe"]).counts).toEqual([3]);
  });

  it("finds the same with the caller saying whether the text is ASCII as without", () => {
    const ascii = "The needle, a Needle and NEEDLES: needle.";
    expect(findOccurrences(ascii, ["needle"], 64, true)).toEqual(findOccurrences(ascii, ["needle"], 64));
    expect(findOccurrences(ascii, ["needle"], 64, true).counts).toEqual([3]);
    const other = "Der Fluß fließt über Brücken, brucken";
    expect(findOccurrences(other, ["brucken"], 64, false)).toEqual(findOccurrences(other, ["brucken"], 64));
    expect(findOccurrences(other, ["brucken"], 64, false).counts).toEqual([2]);
  });

  it("falls back to the opening words when no term is found in the text", () => {
    expect(snippet("one two three four five six seven eight nine ten eleven twelve", ["zzz"], 20)).toBe("one two three four…");
  });
});

describe("occurrences in text folded whole, offsets kept", () => {
  const token = /^[\p{L}\p{N}\p{M}]$/u;
  const inTable = (code: number) => code < 0x80 || FOLD_TABLE_RANGES.some(([from, to]) => code >= from && code <= to);

  it("holds for every character: a table character folds to one unit and keeps whether it is in a token; any other non-token character keeps its length", () => {
    const broken: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const char = String.fromCodePoint(code);
      if (inTable(code)) {
        const folded = foldText(char);
        if (folded.length !== 1 || token.test(folded) !== token.test(char)) broken.push(`U+${code.toString(16)} → ${folded}`);
      } else if (!token.test(char)) {
        const lower = char.toLowerCase();
        if (lower.length !== char.length || token.test(lower)) broken.push(`U+${code.toString(16)} → ${lower}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("folds only text whose letters are all ASCII or in the table, to the same length", () => {
    expect(foldKeepingOffsets("Über die Brücke, «naïve» café 😀 Ⓐ")).toBe("uber die brucke, «naive» cafe 😀 ⓐ");
    expect(foldKeepingOffsets("Ἑλλάς")).toBeUndefined();
    expect(foldKeepingOffsets("cafe\u0301")).toBeUndefined();
    expect(foldKeepingOffsets("日本語")).toBeUndefined();
  });

  it("finds what folding token by token finds, in any mix of scripts, symbols and emoji", () => {
    // Letters of the fold table, ASCII and non-token characters: the text is folded whole.
    const folded = ["the", "The", "river", "RIVER", "café", "Café", "über", "Brücken", "fließt", "Straße", "naïve", "ŒUVRE", "ø", "İstanbul", "😀", "Ⓐ", "’", "—", "«", "»", " ", " ", ", ", ".", "-", "2", "²"];
    // Letters and marks outside the table: the text is folded token by token.
    const pieces = [...folded, "日本", "ωμέγα", "и", "e\u0301", "𝒳"];
    const text = fc.oneof(fc.array(fc.constantFrom(...folded), { maxLength: 40 }), fc.array(fc.constantFrom(...pieces), { maxLength: 40 })).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 3 }), fc.constantFrom(1, 2, 64, Infinity), (body, words, maxSpans) => {
        const terms = [...new Set(words.flatMap((w) => tokenize(w)))];
        if (terms.length === 0) return;
        const expected = findOccurrencesTokenByToken(body, terms, maxSpans);
        const got = findOccurrences(body, terms, maxSpans);
        expect(got.spans).toEqual(expected.spans);
        expect(got.counts).toEqual(expected.counts);
        // The same from the text's bytes, folded from them where they can be.
        const fromBytes = findOccurrences(body, terms, maxSpans, undefined, Buffer.from(body, "utf8"));
        expect(fromBytes.spans).toEqual(expected.spans);
        expect(fromBytes.counts).toEqual(expected.counts);
      }),
      { numRuns: 3000 },
    );
  });

  it("does not take a term for a whole word where the opening folded first cuts off the letter after it", () => {
    // "en" ends where the opening ends, and the opening's last byte is the first of "é": "ené" is one word, not "en".
    const body = "a ".repeat((FOLD_FIRST_BYTES - 4) / 2) + " ené en";
    expect(Buffer.from(body, "utf8").indexOf("é")).toBe(FOLD_FIRST_BYTES - 1);
    const fromBytes = findOccurrences(body, ["en"], 1, false, Buffer.from(body, "utf8"));
    expect(fromBytes.spans).toEqual([FOLD_FIRST_BYTES + 1, FOLD_FIRST_BYTES + 3, 0]);
    expect(fromBytes).toEqual(findOccurrencesTokenByToken(body, ["en"], 1));
  });

  it("finds from a long text's bytes, with a cap, what the whole text holds, where the cap is reached before the opening's end, at it, or after it", () => {
    // Texts past FOLD_FIRST_BYTES: a term capped in the opening (or near its end, or only later), a rarer term, letters cut at the
    // opening's end, and characters that cannot be folded from bytes (an emoji, other scripts) before or after it.
    const folding = ["en", "EN", "En", "été", "recette", "Recette", "naïve", "x", " ", " ", "’", ", ", "-", "é"];
    const pieces = [...folding, "ﬁn", "日本", "😀"];
    const filler = fc.array(fc.constantFrom("la ", "très ", "bien ", "à ", "l’été "), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(""));
    const text = fc
      .tuple(filler, fc.integer({ min: FOLD_FIRST_BYTES - 1500, max: FOLD_FIRST_BYTES + 300 }), fc.array(fc.constantFrom(...folding), { maxLength: 300 }), fc.array(fc.constantFrom(...pieces), { maxLength: 60 }))
      .map(([fill, length, middle, tail]) => {
        let body = "";
        while (Buffer.byteLength(body) < length) body += fill;
        return body + middle.join(" ") + tail.join("");
      });
    fc.assert(
      fc.property(text, fc.subarray(["en", "ete", "recette", "fin", "naive", "x"], { minLength: 1 }), fc.constantFrom(1, 3, 40, Infinity), (body, terms, maxSpans) => {
        const expected = findOccurrencesTokenByToken(body, terms, maxSpans);
        const fromBytes = findOccurrences(body, terms, maxSpans, false, Buffer.from(body, "utf8"));
        expect(fromBytes.spans).toEqual(expected.spans);
        expect(fromBytes.counts).toEqual(expected.counts);
      }),
      { numRuns: 300 },
    );
  });
});
