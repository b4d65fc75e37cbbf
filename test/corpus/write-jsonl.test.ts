import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { writeCorpusJsonl } from "../../pipeline/corpus/write-jsonl.js";

const dir = mkdtempSync(join(tmpdir(), "corpus-jsonl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("writing a corpus as JSONL", () => {
  it("writes one valid record a line, equal to the records in memory", async () => {
    const corpus = createSyntheticCorpus({ seed: 3, videos: 60, channels: 4 });
    const path = join(dir, "slice.jsonl");
    const result = await writeCorpusJsonl(corpus, path, { from: 10, to: 35 });
    const text = readFileSync(path, "utf8");
    const lines = text.trimEnd().split("\n");
    expect(result).toEqual({ records: 25, bytes: Buffer.byteLength(text) });
    expect(lines).toHaveLength(25);
    lines.forEach((line, k) => {
      const record = VideoRecord.parse(JSON.parse(line));
      expect(record).toEqual(corpus.videoAt(10 + k));
    });
  });

  it("writes slices that concatenate to the whole corpus", async () => {
    const corpus = createSyntheticCorpus({ seed: 4, videos: 30, channels: 3 });
    await writeCorpusJsonl(corpus, join(dir, "all.jsonl"));
    await writeCorpusJsonl(corpus, join(dir, "a.jsonl"), { to: 12 });
    await writeCorpusJsonl(corpus, join(dir, "b.jsonl"), { from: 12 });
    const parts = readFileSync(join(dir, "a.jsonl"), "utf8") + readFileSync(join(dir, "b.jsonl"), "utf8");
    expect(parts).toBe(readFileSync(join(dir, "all.jsonl"), "utf8"));
  });

  it("rejects a slice outside the corpus and a path it cannot write", async () => {
    const corpus = createSyntheticCorpus({ seed: 4, videos: 5, channels: 1 });
    await expect(writeCorpusJsonl(corpus, join(dir, "x.jsonl"), { from: 3, to: 9 })).rejects.toThrow(
      'Expected the "to" option to be an integer from "from" (3) to 5, got 9',
    );
    await expect(writeCorpusJsonl(corpus, join(dir, "missing", "x.jsonl"))).rejects.toThrow(/ENOENT/);
  });
});
