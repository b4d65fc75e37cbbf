import { describe, expect, it } from "vitest";
import { chunkHash, chunkSegments, CHUNK_MAX_SECONDS, CHUNK_MAX_WORDS } from "../../pipeline/artifact/vectors/index.js";

/** Segments of `words` words each, one every `every` seconds. */
function segments(count: number, words: number, every: number) {
  return Array.from({ length: count }, (_, i) => ({ start: i * every, text: Array.from({ length: words }, (_, w) => `w${i}x${w}`).join(" ") }));
}

describe("chunks: moments as runs of consecutive segments", () => {
  it("cuts speech at about 150 words a minute into chunks of 30 to 60 seconds, each starting at its first segment's start", () => {
    const segs = segments(60, 10, 4); // 4 minutes, 600 words
    const chunks = chunkSegments(segs);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    for (const [i, chunk] of chunks.entries()) {
      expect(chunk.start).toBe(segs[chunk.from]!.start);
      const span = segs[chunk.to]!.start + 4 - chunk.start;
      if (i < chunks.length - 1) expect(span).toBeGreaterThanOrEqual(30);
      expect(span).toBeLessThanOrEqual(CHUNK_MAX_SECONDS + 4);
      expect(chunk.text).toBe(segs.slice(chunk.from, chunk.to + 1).map((s) => s.text).join(" "));
    }
    // Consecutive and covering: every segment in exactly one chunk, in order.
    expect(chunks[0]!.from).toBe(0);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.from).toBe(chunks[i - 1]!.to + 1);
    expect(chunks.at(-1)!.to).toBe(59);
  });

  it("closes a chunk at the word budget when the speech is dense", () => {
    const chunks = chunkSegments(segments(40, 30, 2)); // 30 words every 2 s
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(chunk.words).toBeLessThanOrEqual(CHUNK_MAX_WORDS);
  });

  it("closes a chunk after 60 seconds even when few words were said", () => {
    const segs = segments(10, 2, 20); // two words every 20 s
    const chunks = chunkSegments(segs);
    for (const chunk of chunks.slice(0, -1)) expect(segs[chunk.to]!.start - chunk.start).toBeLessThan(CHUNK_MAX_SECONDS);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it("joins a short last run to the chunk before it, and makes one chunk of a short transcript", () => {
    const segs = [...segments(12, 10, 4), { start: 48, text: "the end" }];
    const chunks = chunkSegments(segs);
    expect(chunks.at(-1)!.to).toBe(12);
    expect(chunks.at(-1)!.text.endsWith("the end")).toBe(true);
    expect(chunkSegments([{ start: 3.5, text: "hello there" }])).toEqual([{ start: 3.5, from: 0, to: 0, text: "hello there", words: 2 }]);
    expect(chunkSegments([])).toEqual([]);
  });

  it("knows a chunk by its text: the same text, the same hash", () => {
    expect(chunkHash("a b c").equals(chunkHash("a b c"))).toBe(true);
    expect(chunkHash("a b c").equals(chunkHash("a b d"))).toBe(false);
  });
});
