/** HTML entities in caption text: every named entity of the standard, numeric references, and text already decoded left alone. */
import { describe, expect, it } from "vitest";
import { decodeHtmlEntities } from "../../pipeline/youtube/html-entities.js";
import { cleanCueText, parseTimedtext } from "../../pipeline/youtube/timedtext.js";

describe("decodeHtmlEntities", () => {
  it("decodes named entities with their case kept", () => {
    expect(decodeHtmlEntities("&Eacute;cole")).toBe("École");
    expect(decodeHtmlEntities("&eacute;cole")).toBe("école");
    expect(decodeHtmlEntities("canci&oacute;n")).toBe("canción");
    expect(decodeHtmlEntities("5&nbsp;&euro;")).toBe("5\u00a0€");
    expect(decodeHtmlEntities("&Omega; &alpha; &hearts; &rarr;")).toBe("Ω α ♥ →");
    expect(decodeHtmlEntities("Tom &amp; Jerry &lt;3 &quot;hi&quot; &apos;x&apos;")).toBe("Tom & Jerry <3 \"hi\" 'x'");
  });

  it("decodes decimal and hexadecimal character references", () => {
    expect(decodeHtmlEntities("&#65;&#x42;&#X43;")).toBe("ABC");
    expect(decodeHtmlEntities("&#233;t&#xE9;")).toBe("été");
    expect(decodeHtmlEntities("&#128512;")).toBe("😀");
    expect(decodeHtmlEntities("&#39;quoted&#39;")).toBe("'quoted'");
  });

  it("leaves text that is already decoded as it is", () => {
    for (const text of ["École", "canción 5 €", "AT&T", "R&D and Q&A", "see &notes", "fish & chips", "5 < 6 > 4", "100% sure", "&unknown; thing", "a && b", "&", "&;", "&#;"]) {
      expect(decodeHtmlEntities(text), text).toBe(text);
    }
  });

  it("decodes once: an escaped entity becomes the entity's text, not its character", () => {
    expect(decodeHtmlEntities("&amp;eacute;")).toBe("&eacute;");
  });
});

describe("caption text through the timedtext parser (the path of the pipeline's fetch and the live fetch)", () => {
  it("undoes the XML layer, then the HTML layer, once each", () => {
    // As YouTube sends it: the caption's HTML escaped again for XML.
    const xml =
      '<?xml version="1.0" encoding="utf-8" ?><transcript>' +
      '<text start="0" dur="1.5">&amp;Eacute;cole &amp;amp; canci&amp;oacute;n</text>' +
      '<text start="1.5" dur="2">5 &amp;euro; &amp;#65;&amp;#x42; &amp;quot;ok&amp;quot;</text>' +
      '<text start="3.5" dur="1">AT&amp;T</text>' +
      "</transcript>";
    expect(parseTimedtext(xml).map((s) => s.text)).toEqual(["École & canción", '5 € AB "ok"', "AT&T"]);
  });

  it("cleanCueText decodes then strips tags, so an escaped tag never survives as markup", () => {
    expect(cleanCueText("&lt;i&gt;&Eacute;t&eacute;&lt;/i&gt;")).toBe("Été");
  });
});
