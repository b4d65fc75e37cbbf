/**
 * The vector index's lists: k-means (pipeline/vectors/kmeans.ts)
 * on vectors of known clusters, and vectors.db written list by list from
 * staged chunks (write-lists.ts): every chunk once, each list a range of
 * ids, rows unchanged.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dotRow, quantizeInt8, readVectorsMeta, STAGED_CHUNKS_DDL, unitVector, vectorBytes } from "../../pipeline/artifact/vectors/index.js";
import { standInVectors } from "../../scripts/bench/semantic.js";
import { listOf, trainLists } from "../../pipeline/vectors/kmeans.js";
import { listCount, MAX_LISTS, writeListedVectors } from "../../pipeline/vectors/write-lists.js";

const DIMS = 16;
const dir = mkdtempSync(join(tmpdir(), "vector-lists-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A vector near axis `cluster` (each cluster its own axis), with a little of a second axis and a small wobble. */
function near(cluster: number, i: number): Float32Array {
  const v = new Float32Array(DIMS);
  v[cluster] = 10;
  v[(cluster + 1 + (i % 3)) % DIMS] = 1 + (i % 5) / 5;
  v[(i * 7) % DIMS]! += 0.3;
  return v;
}

describe("k-means", () => {
  it("puts vectors of separate clusters in lists holding one cluster each", () => {
    const clusters = 6;
    const vectors = Array.from({ length: 600 }, (_, i) => ({ cluster: i % clusters, vector: unitVector(near(i % clusters, i)) }));
    const sample = new Float32Array(vectors.length * DIMS);
    vectors.forEach((v, i) => sample.set(v.vector, i * DIMS));
    const centroids = trainLists(sample, DIMS, 12);
    expect(centroids.leaves.length / DIMS).toBeGreaterThanOrEqual(clusters);
    const clusterOfList = new Map<number, Set<number>>();
    for (const { cluster, vector } of vectors) {
      const list = listOf(centroids, vector);
      clusterOfList.set(list, (clusterOfList.get(list) ?? new Set()).add(cluster));
    }
    expect([...clusterOfList.values()].every((set) => set.size === 1)).toBe(true);
    expect(new Set([...clusterOfList.values()].map((set) => [...set][0])).size).toBe(clusters);
  });

  it("places nearly every vector in its nearest list by cosine, comparing only the lists nearest by sign bits", () => {
    const dims = 512;
    const next = standInVectors(7, 400, 1);
    const sample = new Float32Array(4000 * dims);
    for (let i = 0; i < 4000; i++) unitVector(quantizeInt8(next()), sample.subarray(i * dims, (i + 1) * dims));
    const centroids = trainLists(sample, dims, 144);
    const lists = centroids.leaves.length / dims;
    let nearest = 0;
    const x = new Float32Array(dims);
    for (let i = 0; i < 1000; i++) {
      unitVector(quantizeInt8(next()), x);
      let best = 0;
      for (let l = 1; l < lists; l++) if (dotRow(x, centroids.leaves, l) > dotRow(x, centroids.leaves, best)) best = l;
      if (listOf(centroids, x) === best) nearest++;
    }
    expect(nearest / 1000).toBeGreaterThanOrEqual(0.95);
  });

  it("moves a list onto a group of rows that no centroid was seeded in, where Lloyd's passes alone leave it split", () => {
    // Clusters 0-2 on axes 0, 4 and 8; cluster 3 on axis 12 with part of another cluster's axis, so that its
    // rows split among the other lists and no list moves to it by itself. Evenly spaced seeds (rows 0, 100,
    // 200 and 300) fall twice in cluster 0 and never in cluster 3.
    const clusterOf = (i: number) => (i < 150 ? 0 : i < 250 ? 1 : i < 350 ? 2 : 3);
    const row = (cluster: number, i: number) => {
      const v = new Float32Array(DIMS);
      v[cluster * 4] = 1;
      v[cluster * 4 + 1 + (i % 3)] = 0.1 + (i % 7) / 50;
      if (cluster === 3) v[(i % 3) * 4] = 0.7;
      return unitVector(v);
    };
    const sample = new Float32Array(400 * DIMS);
    for (let i = 0; i < 400; i++) sample.set(row(clusterOf(i), i), i * DIMS);
    const centroids = trainLists(sample, DIMS, 4);
    const axis = (k: number) => unitVector(Float32Array.from({ length: DIMS }, (_, d) => (d === k * 4 ? 1 : 0)));
    for (const cluster of [0, 1, 2, 3]) {
      const best = Math.max(...[0, 1, 2, 3].map((l) => dotRow(axis(cluster), centroids.leaves, l)));
      expect(best, `cluster ${cluster}`).toBeGreaterThan(0.9);
    }
  });

  it("is deterministic: the same sample gives the same centroids", () => {
    const sample = new Float32Array(200 * DIMS);
    for (let i = 0; i < 200; i++) sample.set(unitVector(near(i % 5, i)), i * DIMS);
    expect(trainLists(sample, DIMS, 6)).toEqual(trainLists(sample, DIMS, 6));
  });

  it("makes 2√chunks lists, two for a single chunk, at most MAX_LISTS however many", () => {
    expect(listCount(1)).toBe(2);
    expect(listCount(10_000)).toBe(200);
    expect(listCount(100_000_000)).toBe(MAX_LISTS);
  });
});

describe("vectors.db written list by list", () => {
  for (const threads of [0, 2]) {
    it(`holds every staged chunk once with its row unchanged, each list a range of ids whose chunks are nearest its centroid (${threads === 0 ? "placed on this thread" : "placed by two threads"})`, async () => {
      const staged = new Database(join(dir, `staged-${threads}.db`));
      staged.exec(STAGED_CHUNKS_DDL);
      const insert = staged.prepare("INSERT INTO chunks (video, channel, published, start, seg_from, seg_to, hash, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
      const count = 3000;
      for (let i = 0; i < count; i++) {
        const hash = Buffer.alloc(16);
        hash.writeUInt32BE(i);
        insert.run(1 + Math.floor(i / 10), i % 7, `2020-01-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00.000Z`, (i % 10) * 30, i % 10, i % 10, hash, vectorBytes(quantizeInt8(near(i % 8, i))));
      }
      const rowsBefore = staged.prepare("SELECT video, channel, published, start, seg_from, seg_to, hex(hash), hex(vector) FROM chunks ORDER BY hash").raw().all();
      const meta = { embedder: { kind: "url" as const, model: "m", dimensions: DIMS }, version: "2", chunks: count, transcripts: count / 10 };
      const lines: string[] = [];
      const lists = await writeListedVectors(staged, join(dir, `vectors-${threads}.db`), meta, { log: (line) => lines.push(line), intervalMs: 0, threads });
      staged.close();

      const out = new Database(join(dir, `vectors-${threads}.db`), { readonly: true });
      try {
        expect(readVectorsMeta(out)).toEqual(meta);
        expect(out.prepare("SELECT video, channel, published, start, seg_from, seg_to, hex(hash), hex(vector) FROM chunks ORDER BY hash").raw().all()).toEqual(rowsBefore);
        const ranges = out.prepare("SELECT id, centroid, first, last FROM lists ORDER BY first").all() as { id: number; centroid: Buffer; first: number; last: number }[];
        expect(ranges.length).toBeGreaterThan(1);
        expect(ranges.length).toBeLessThanOrEqual(lists);
        // The ranges tile 1..count with no gap or overlap.
        expect(ranges[0]!.first).toBe(1);
        ranges.forEach((range, i) => expect(range.first).toBe(i === 0 ? 1 : ranges[i - 1]!.last + 1));
        expect(ranges.at(-1)!.last).toBe(count);
        // Each chunk's nearest centroid among the lists is its own list's (the clusters are well apart).
        const centroids = ranges.map((range) => new Float32Array(range.centroid.buffer.slice(range.centroid.byteOffset, range.centroid.byteOffset + range.centroid.byteLength)));
        const vector = out.prepare<[number], Buffer>("SELECT vector FROM chunks WHERE id = ?").pluck();
        for (const range of ranges) {
          for (const id of [range.first, range.last]) {
            const x = unitVector(new Int8Array(vector.get(id)!));
            const scores = centroids.map((c) => c.reduce((s, v, d) => s + v * x[d]!, 0));
            expect(scores.indexOf(Math.max(...scores))).toBe(ranges.indexOf(range));
          }
        }
        expect(out.prepare("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").pluck().all()).toEqual(["chunks_by_channel", "chunks_by_hash", "chunks_by_video"]);
      } finally {
        out.close();
      }
      expect(lines[0]).toMatch(/^vectors: 110 lists trained on 2,640 chunks$/);
      expect(lines.at(-1)).toMatch(/^vectors: placing chunks in lists 3,000\/3,000 \(100%\)/);
    });
  }

  it("is the same file whether the chunks were placed on this thread or by two", () => {
    const dump = (name: string) => {
      const db = new Database(join(dir, name), { readonly: true });
      try {
        return [db.prepare("SELECT hex(centroid), first, last FROM lists ORDER BY id").raw().all(), db.prepare("SELECT id, video, hex(hash) FROM chunks ORDER BY id").raw().all()];
      } finally {
        db.close();
      }
    };
    expect(dump("vectors-2.db")).toEqual(dump("vectors-0.db"));
  });

  it("keeps the previous set's lists given: a carried chunk stays in the list it had there, even where another is nearer now", async () => {
    const staged = new Database(join(dir, "staged-carried.db"));
    staged.exec(STAGED_CHUNKS_DDL);
    const insert = staged.prepare("INSERT INTO chunks (video, channel, published, start, seg_from, seg_to, hash, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    const carry = staged.prepare("INSERT INTO carried_lists (id, list) VALUES (?, ?)");
    const count = 100;
    for (let i = 0; i < count; i++) {
      const hash = Buffer.alloc(16);
      hash.writeUInt32BE(i);
      const id = insert.run(1 + Math.floor(i / 10), 0, "2020-01-01T00:00:00.000Z", 0, 0, 0, hash, vectorBytes(quantizeInt8(near(i % 8, i)))).lastInsertRowid;
      // Three in four carried over, all in the previous set's list 0, whatever their cluster.
      if (i % 4 !== 0) carry.run(id, 0);
    }
    // The previous set's lists: one per axis, so only cluster 0's chunks are nearest list 0.
    const previous = new Float32Array(DIMS * DIMS);
    for (let c = 0; c < DIMS; c++) previous[c * DIMS + c] = 1;
    const previousLists = { centroids: previous, first: Int32Array.from({ length: DIMS }, (_, c) => c * 10 + 1), last: Int32Array.from({ length: DIMS }, (_, c) => c * 10 + 10) };
    const meta = { embedder: { kind: "url" as const, model: "m", dimensions: DIMS }, version: "2", chunks: count, transcripts: count / 10 };
    const lines: string[] = [];
    await writeListedVectors(staged, join(dir, "vectors-carried.db"), meta, { log: (line) => lines.push(line), intervalMs: 0, threads: 2, previousLists });
    staged.close();
    expect(lines[0]).toBe("vectors: the previous set's 16 lists kept; 75 chunks stay in theirs, 25 to place");
    const out = new Database(join(dir, "vectors-carried.db"), { readonly: true });
    try {
      const listOfHash = new Map(
        (out.prepare("SELECT c.hash, l.id FROM chunks c JOIN lists l ON c.id BETWEEN l.first AND l.last").raw().all() as [Buffer, number][]).map(([hash, list]) => [hash.readUInt32BE(0), list]),
      );
      expect(listOfHash.size).toBe(count);
      for (let i = 0; i < count; i++) expect(listOfHash.get(i)).toBe(i % 4 !== 0 ? 0 : i % 8);
    } finally {
      out.close();
    }
  });
});
