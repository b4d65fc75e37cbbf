/**
 * The matched moment of a search hit, over a real artifact set: the start
 * given is the one of the segment holding the snippet's first match, for
 * words, quoted phrases and multi-word queries, at segment boundaries, and
 * in text with characters outside the BMP before the match.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SegmentRecord } from "../../pipeline/artifact/contract/contract.js";
import { encodeSegments } from "../../pipeline/artifact/segments/segments.js";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchHit } from "../../server/data/catalog.js";
import { compactTimings, indexFromCompact, indexFromTimings, segmentAt } from "../../server/search/snippet/segment-index.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { makeVideo, videoId } from "../helpers/records.js";

const seg = (start: number, text: string, duration = 4): SegmentRecord => ({ start, duration, text });

const BOUNDARIES = [
  seg(0, "welcome to the show about rivers"),
  seg(4.2, "today the zebra crossing river story"),
  seg(9.75, "walrus begins this line"),
  seg(14.5, "and this line ends with narwhal"),
  seg(20, "we saw a green"),
  seg(24.125, "river whiskey bottle on the shelf"),
  seg(3725.5, "a zebra again near the end"),
];

const NON_ASCII = [seg(0, "😀😀 crème brûlée 😀"), seg(2.5, "über straße 🎉 ok"), seg(5, "the ångström unit")];

/** "alpha" alone early; "alpha beta" together past the snippet's reach: the snippet shows the second. */
const FAR = [
  seg(1, "alpha starts here"),
  ...Array.from({ length: 30 }, (_, i) => seg(5 + i * 3, `filler words number ${i} keep going`)),
  seg(200, "then alpha beta together"),
];

let set: TempArtifacts;
let catalog: ArtifactCatalog;

beforeAll(async () => {
  const track = (segments: SegmentRecord[]) => [{ language: "English", languageCode: "en", isGenerated: false, segments }];
  set = await buildTempArtifacts([
    makeVideo(1, { transcripts: track(BOUNDARIES) }),
    makeVideo(2, { transcripts: track(NON_ASCII) }),
    makeVideo(3, { transcripts: track(FAR) }),
  ]);
  catalog = openCatalog({ dir: set.dir });
});
afterAll(() => {
  catalog.close();
  set?.cleanup();
});

function hit(q: string, n: number): SearchHit {
  const found = catalog.search({ q, limit: 20, offset: 0 }).results.find((r) => r.videoId === videoId(n));
  expect(found, `a hit for ${q}`).toBeDefined();
  return found!;
}

describe("the moment of a hit", () => {
  it("is the start of the segment holding a single word, with a watch link at its whole second", () => {
    const zebra = hit("zebra", 1);
    expect(zebra.startSeconds).toBe(4.2);
    expect(zebra.url).toBe(`https://www.youtube.com/watch?v=${videoId(1)}&t=4s`);
    expect(zebra.channelId).toBe("UCaaaaaaaaaaaaaaaaaaaaaa");
  });

  it("is right for the first and the last word of a segment", () => {
    expect(hit("walrus", 1).startSeconds).toBe(9.75);
    expect(hit("narwhal", 1).startSeconds).toBe(14.5);
    expect(hit("welcome", 1).startSeconds).toBe(0);
    expect(hit("shelf", 1).startSeconds).toBe(24.125);
  });

  it("is where a quoted phrase spanning two segments starts, not a stray word of it before", () => {
    // "river" alone is in the segment at 4.2; "green river" runs from the segment at 20 into the one at 24.125.
    const phrase = hit('"green river"', 1);
    expect(phrase.snippet).toContain("<mark>green</mark> <mark>river</mark>");
    expect(phrase.startSeconds).toBe(20);
    expect(phrase.url).toBe(`https://www.youtube.com/watch?v=${videoId(1)}&t=20s`);
  });

  it("is the whole query as a phrase for several words when the text has it, else their first match", () => {
    expect(hit("green river", 1).startSeconds).toBe(20);
    expect(hit("whiskey walrus", 1).startSeconds).toBe(9.75);
    expect(hit("river zebra", 1).startSeconds).toBe(4.2);
  });

  it("is in the snippet: the window with the most query words, not the first occurrence of one", () => {
    const far = hit("alpha beta", 3);
    expect(far.snippet).toContain("<mark>alpha</mark> <mark>beta</mark>");
    expect(far.snippet).not.toContain("starts here");
    expect(far.startSeconds).toBe(200);
    expect(far.moments).toEqual([{ startSeconds: 1, text: "<mark>alpha</mark> starts here" }]);
  });

  it("counts offsets in UTF-16 units, so characters outside the BMP before a match do not shift it", () => {
    expect(hit("ångström", 2).startSeconds).toBe(5);
    expect(hit("straße", 2).startSeconds).toBe(2.5);
    expect(hit("brûlée", 2).startSeconds).toBe(0);
  });
});

describe("other moments", () => {
  it("lists the other segments holding matches, in time order, with their text marked, hours past the first included", () => {
    const zebra = hit("zebra", 1);
    expect(zebra.moments).toEqual([{ startSeconds: 3725.5, text: "a <mark>zebra</mark> again near the end" }]);
  });

  it("puts segments with more of the query's words first and gives at most three", () => {
    const many = hit("river zebra whiskey", 1);
    expect(many.startSeconds).toBe(4.2);
    // Matching segments besides the own one: 20 has none, 24.125 (river, whiskey), 3725.5 (zebra).
    expect(many.moments.map((m) => m.startSeconds)).toEqual([24.125, 3725.5]);
    const words = hit("the", 1);
    expect(words.moments).toHaveLength(3);
    expect(words.moments.map((m) => m.startSeconds)).toEqual([...words.moments.map((m) => m.startSeconds)].sort((a, b) => a - b));
    expect(words.moments.map((m) => m.startSeconds)).not.toContain(words.startSeconds);
  });

  it("escapes the segment text like the snippet", async () => {
    const markup = await buildTempArtifacts([
      makeVideo(9, { transcripts: [{ language: "English", languageCode: "en", isGenerated: false, segments: [seg(0, "kiwi first"), seg(3, "<b>kiwi</b> & co")] }] }),
    ]);
    const own = openCatalog({ dir: markup.dir });
    try {
      const [only] = own.search({ q: "kiwi", limit: 1, offset: 0 }).results;
      expect(only!.moments).toEqual([{ startSeconds: 3, text: "&lt;b&gt;<mark>kiwi</mark>&lt;/b&gt; &amp; co" }]);
    } finally {
      own.close();
      markup.cleanup();
    }
  });
});

describe("the segment index", () => {
  it("maps every character of every segment, and the space after it, to that segment", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" }), { minLength: 1, maxLength: 30 }), (texts) => {
        const { script, timings } = encodeSegments(texts.map((text, i) => seg(i * 1.5, text)));
        const index = indexFromTimings(timings);
        let offset = 0;
        texts.forEach((text, i) => {
          for (let at = offset; at <= offset + text.length && at < script.length; at++) expect(segmentAt(index, at)).toBe(i);
          expect(index.startMs[i]).toBe(Math.round(i * 1.5 * 1000));
          offset += text.length + 1;
        });
      }),
      { numRuns: 50 },
    );
  });

  it("is the same from the compact form held in memory as from the stored timings, in a fraction of the bytes", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            start: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
            duration: fc.integer({ min: 0, max: 100_000 }),
            length: fc.integer({ min: 0, max: 5000 }),
          }),
          { maxLength: 60 },
        ),
        (segments) => {
          const timings = new Uint8Array(segments.length * 12);
          const view = new DataView(timings.buffer);
          segments.forEach((s, i) => {
            view.setInt32(i * 12, s.start, true);
            view.setInt32(i * 12 + 4, s.duration, true);
            view.setInt32(i * 12 + 8, s.length, true);
          });
          expect(indexFromCompact(compactTimings(timings))).toEqual(indexFromTimings(timings));
        },
      ),
      { numRuns: 200 },
    );
    // Typical captions: a few seconds apart, a few dozen characters each.
    const { timings } = encodeSegments(Array.from({ length: 400 }, (_, i) => seg(i * 3.2, "x".repeat(30 + (i % 40)))));
    expect(indexFromCompact(compactTimings(timings))).toEqual(indexFromTimings(timings));
    expect(compactTimings(timings).byteLength).toBeLessThan(timings.byteLength / 3);
  });
});
