/**
 * The vector index as the server searches it (server/search/semantic/
 * vector-index.ts) on 20,000 clustered stand-in vectors put in lists as the
 * build does: the lists read against exact search, with and without filters,
 * and a vectors.db of another format refused by name.
 */
import Database from "better-sqlite3";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { standInClusters, standInVectors, writeStandInSet } from "../../scripts/bench/semantic.js";
import { SEMANTIC_CHUNKS } from "../../server/search/semantic/semantic-set.js";
import type { ChunkCondition } from "../../server/search/semantic/vector-filters.js";
import { VectorIndex, VectorsFormatError, type NearChunk } from "../../server/search/semantic/vector-index.js";

const CHUNKS = 20_000;
const dir = mkdtempSync(join(tmpdir(), "vector-index-"));
let index: VectorIndex;
let queries: Float32Array[];
beforeAll(async () => {
  // 10 chunks a video; a video's channel is video % 707 and its date 2016-01-01 plus video % 3650 days (semantic.ts).
  await writeStandInSet(join(dir, "vectors.db"), CHUNKS, 10, { dir, seed: 5, chunks: CHUNKS, exactBudgetSeconds: 1, log: () => {} });
  index = VectorIndex.open(dir)!;
  const next = standInVectors(5, standInClusters(CHUNKS), 2);
  queries = Array.from({ length: 12 }, () => Float32Array.from(next()));
});
afterAll(() => {
  index.close();
  rmSync(dir, { recursive: true, force: true });
});

const none: ChunkCondition = { sql: [], params: [] };
const ids = (chunks: NearChunk[]) => chunks.map((c) => c.id);

describe("the lists read for a query", () => {
  it("puts the chunks in lists, and the lists read find at least 95% of exact search's 10 nearest", () => {
    expect(index.lists).toBeGreaterThan(50);
    let hits = 0;
    for (const q of queries) {
      const exact = new Set(ids(index.nearest(q, 10, none, true)));
      const approximate = index.nearest(q, SEMANTIC_CHUNKS, none, false);
      expect(approximate).toHaveLength(SEMANTIC_CHUNKS);
      expect(approximate.map((c) => c.score)).toEqual([...approximate.map((c) => c.score)].sort((a, b) => b - a));
      hits += approximate.slice(0, 10).filter((c) => exact.has(c.id)).length;
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it("reads more lists when a filter leaves fewer chunks than asked for: a channel's every chunk, ranked as exact search ranks them", () => {
    // Channel 5: videos 5, 712, 1419 (of 2,000), 30 chunks, scattered over the lists.
    const channel: ChunkCondition = { sql: ["channel = ?"], params: [5n], transcripts: 3 };
    for (const q of queries.slice(0, 4)) {
      const approximate = index.nearest(q, SEMANTIC_CHUNKS, channel, false);
      expect(approximate).toHaveLength(30);
      expect(approximate).toEqual(index.nearest(q, SEMANTIC_CHUNKS, channel, true));
    }
  });

  it("keeps every hit within a date filter that leaves a third of the chunks, and still finds exact search's nearest", () => {
    const after = new Date(Date.UTC(2016, 0, 1) + 1334 * 86_400_000).toISOString();
    const dated: ChunkCondition = { sql: ["published >= ?"], params: [after] };
    const db = new Database(join(dir, "vectors.db"), { readonly: true });
    const published = db.prepare<[number], string>("SELECT published FROM chunks WHERE id = ?").pluck();
    try {
      let hits = 0;
      for (const q of queries) {
        const approximate = index.nearest(q, SEMANTIC_CHUNKS, dated, false);
        expect(approximate).toHaveLength(SEMANTIC_CHUNKS);
        expect(approximate.every((c) => published.get(c.id)! >= after)).toBe(true);
        const exact = new Set(ids(index.nearest(q, 10, dated, true)));
        hits += approximate.slice(0, 10).filter((c) => exact.has(c.id)).length;
      }
      expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.9);
    } finally {
      db.close();
    }
  });

  it("searches exactly by default where the filters leave few chunks, and where the set is small", () => {
    const channel: ChunkCondition = { sql: ["channel = ?"], params: [9n], transcripts: 3 };
    expect(index.nearest(queries[0]!, 50, channel)).toEqual(index.nearest(queries[0]!, 50, channel, true));
    expect(index.nearest(queries[1]!, 50, none)).toEqual(index.nearest(queries[1]!, 50, none, true));
  });
});

describe("a vectors.db of another format", () => {
  it("is refused by name, saying to build the set again", () => {
    const old = join(dir, "old");
    mkdirSync(old);
    copyFileSync(join(dir, "vectors.db"), join(old, "vectors.db"));
    const db = new Database(join(old, "vectors.db"));
    db.prepare("UPDATE meta SET value = '1' WHERE key = 'version'").run();
    db.close();
    expect(() => VectorIndex.open(old)).toThrow(VectorsFormatError);
    expect(() => VectorIndex.open(old)).toThrow("vectors are of format 1, this server reads 2: build the set again");
  });
});
