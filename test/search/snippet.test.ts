import { describe, expect, it } from "vitest";
import { findOccurrences } from "../../server/search/snippet/occurrences.js";
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
