/**
 * The bench's semantic phase: its options, the paraphrase set's rule (no
 * query shares a content word with its passage), the stand-in set it keeps
 * between runs, and its rows (the vector
 * index against exact search on the phase's stand-in vectors is
 * test/search/vector-index.test.ts).
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_PHASES, parseBenchArgs } from "../../scripts/bench/options.js";
import { DOCUMENTS, PARAPHRASES, passageOf, sharedContentWords } from "../../scripts/bench/paraphrase-corpus.js";
import { keptStandInSet, writeStandInSet, type SemanticFigures } from "../../scripts/bench/semantic.js";
import { semanticRows } from "../../scripts/bench/semantic-rows.js";

describe("the semantic phase's options", () => {
  it("is opt-in, searches the chunk count of 500,000 transcripts unless told a number", () => {
    expect(DEFAULT_PHASES).not.toContain("semantic");
    expect(parseBenchArgs(["--phases", "semantic"], 2)).toMatchObject({ phases: ["semantic"], semanticChunks: undefined, semanticExactSeconds: 120 });
    expect(parseBenchArgs(["--phases", "semantic", "--semantic-chunks", "20000"], 2)).toMatchObject({ semanticChunks: 20_000 });
  });
});

describe("the paraphrase set", () => {
  it("has a query for Brown files of its videos only, none sharing a content word with its passage", () => {
    expect(Object.keys(PARAPHRASES).length).toBeGreaterThanOrEqual(25);
    for (const [file, query] of Object.entries(PARAPHRASES)) {
      expect(DOCUMENTS).toContain(file);
      expect(passageOf(file).split(" ").length).toBeGreaterThan(40);
      expect(sharedContentWords(query, passageOf(file)), `${file}: ${query}`).toEqual([]);
    }
  });

  it("finds shared content words when there are some, whatever their case, and not stop words", () => {
    expect(sharedContentWords("The River and the SEA", "a river runs to the sea")).toEqual(["river", "sea"]);
  });
});

describe("the semantic phase's rows", () => {
  const figures = (quality: Partial<SemanticFigures["quality"]>, recallAt10 = 0.97): SemanticFigures => ({
    embedder: { chunks: 96, seconds: 12, meanWords: 80 },
    scale: { transcripts: 500_000, sampled: 2000, chunksPerTranscript: 12.5, chunks: 6_250_000, built: 6_250_000, buildSeconds: 600, vectorsBytes: 5e9, lists: 2304, probes: 16, queries: 100, p50: 300, p99: 500, exactQueries: 10, exactP50: 4000, recallAt10 },
    quality: { queries: 30, videos: 49, chunks: 500, sharedWords: 0, keyword: 0.2, semantic: 0.5, hybrid: 0.6, moment: 0.4, buildSeconds: 90, ...quality },
  });

  it("says the vectors are stand-ins, and passes recall and hybrid only when they meet their targets", () => {
    const rows = semanticRows(figures({}), "");
    expect(rows.find((r) => r.metric.includes("stand-in vectors"))?.metric).toContain("6,250,000 chunks (the chunk count of 500,000 transcripts");
    expect(rows.map((r) => r.verdict).filter(Boolean)).toEqual(["PASS", "PASS"]);
    expect(semanticRows(figures({ hybrid: 0.45 }, 0.9), "").map((r) => r.verdict).filter(Boolean)).toEqual(["MISS", "MISS"]);
    expect(semanticRows(figures({ semantic: 0.2, hybrid: 0.2 }), "").map((r) => r.verdict).filter(Boolean)).toEqual(["PASS", "MISS"]);
  });

  it("asks hybrid to beat both only on the mixed set, where keyword search has something to add", () => {
    const mixed = (hybrid: number) => semanticRows(figures({ keyword: 0, semantic: 0.97, hybrid: 0.97, mixed: { queries: 60, keyword: 0.5, semantic: 0.83, hybrid } }), "");
    expect(mixed(0.98).map((r) => r.verdict).filter(Boolean)).toEqual(["PASS", "PASS", "PASS"]);
    expect(mixed(0.83).map((r) => r.verdict).filter(Boolean)).toEqual(["PASS", "PASS", "MISS"]);
  });
});

describe("the stand-in set kept between runs", () => {
  it("is reused only when it has the count asked for and lists made as now", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-kept-"));
    try {
      await writeStandInSet(join(dir, "vectors.db"), 2000, 10, { dir, seed: 2, chunks: 2000, exactBudgetSeconds: 1, log: () => {} });
      expect(keptStandInSet(dir, 2000)).toBe(true);
      expect(keptStandInSet(dir, 2001)).toBe(false);
      const db = new Database(join(dir, "vectors.db"));
      db.prepare("UPDATE meta SET value = 'lists of an older build' WHERE key = 'lists'").run();
      db.close();
      expect(keptStandInSet(dir, 2000)).toBe(false);
      expect(keptStandInSet(join(dir, "missing"), 2000)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
