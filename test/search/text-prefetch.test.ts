import Database from "better-sqlite3";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { MIN_PREFETCH, TextPrefetch } from "../../server/search/memory/text-prefetch.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

const VIDEOS = 300;

describe("text prefetch: worker threads read ahead the texts a search reads", () => {
  let set: TempArtifacts;
  let file: string;
  let withTranscript: number[];
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 11, videos: VIDEOS, channels: 5 });
    set = await buildTempArtifacts(Array.from({ length: VIDEOS }, (_, i) => corpus.videoAt(i)));
    file = join(set.dir, ARTIFACT_FILES.database);
    const db = new Database(file, { readonly: true });
    withTranscript = db.prepare("SELECT id FROM videos WHERE transcript IS NOT NULL ORDER BY id").pluck().all() as number[];
    db.close();
  }, 60_000);
  afterAll(() => set?.cleanup());

  it("reads the text of every id it is given that has one, and waits for the reads", async () => {
    const prefetch = new TextPrefetch(file, 3);
    try {
      const ids = withTranscript.slice(0, 40);
      // Until its workers have started it reads nothing rather than wait for them.
      expect(prefetch.read(ids)).toBe(0);
      await prefetch.ready();
      expect(prefetch.read(ids)).toBe(ids.length);
      // With the timings (the page's hits): the same rows, none failing on the second column.
      expect(prefetch.read(ids, true)).toBe(ids.length);
      expect(prefetch.read([...ids.slice(0, 10), VIDEOS + 1], true)).toBe(10);
      // Ids without a transcript (past the last video) are asked for and not found.
      expect(prefetch.read([...ids.slice(0, 10), VIDEOS + 1, VIDEOS + 2])).toBe(10);
      expect(prefetch.read(ids.slice(0, MIN_PREFETCH - 1))).toBe(0);
      prefetch.close();
      expect(prefetch.read(ids)).toBe(0);
    } finally {
      prefetch.close();
    }
  });

  it("reads nothing and does not throw when its workers cannot open the file", async () => {
    const notADatabase = join(set.dir, "not-a-database.db");
    writeFileSync(notADatabase, "this is not an SQLite file, padded past its 100-byte header: ".repeat(4));
    const prefetch = new TextPrefetch(notADatabase, 2);
    try {
      await prefetch.ready();
      const started = performance.now();
      expect(prefetch.read(withTranscript.slice(0, 20))).toBe(0);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      prefetch.close();
    }
  });

  const queries: SearchParams[] = [
    { q: "the", limit: 20, offset: 0 },
    { q: "said the", limit: 10, offset: 15 },
    { q: '"of the" people', limit: 10, offset: 0 },
    { q: "would have been", limit: 10, offset: 0 },
    { q: "house", limit: 50, offset: 100 },
  ];

  it("gives the same answers, reading ahead only texts not held in memory", async () => {
    const plain = openCatalog({ dir: set.dir });
    // A small text budget: the most viewed are held, the rest are read from the database; every read counts as cold.
    const ahead = openCatalog({ dir: set.dir, hotTextBytes: 128 * 1024, readThreads: 2, search: { readAheadColdMicros: 0 } });
    const reads = vi.spyOn(TextPrefetch.prototype, "read");
    try {
      const warmth = await ahead.warm();
      expect(warmth.texts?.outcome).toBe("budget");
      const expected = queries.map((q) => plain.search(q));
      expect(queries.map((q) => ahead.search(q))).toEqual(expected);
      expect(expected.every((page) => page.results.length > 0)).toBe(true);
      const asked = reads.mock.calls.flatMap(([ids]) => [...ids]);
      expect(reads.mock.results.reduce((sum, r) => sum + (r.value as number), 0)).toBeGreaterThan(0);
      // The memory holds the first ranks with a transcript, as many as it reported: none of those was read ahead.
      const heldIds = new Set(withTranscript.slice(0, warmth.texts!.transcripts));
      expect(heldIds.size).toBeGreaterThan(0);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.filter((id) => heldIds.has(id))).toEqual([]);
    } finally {
      reads.mockRestore();
      plain.close();
      ahead.close();
    }
  });

  it("reads nothing ahead where the first text of a batch came quickly, from the operating system's cache", async () => {
    const plain = openCatalog({ dir: set.dir });
    const probe = (micros: number) => openCatalog({ dir: set.dir, hotTextBytes: 128 * 1024, readThreads: 2, search: { readAheadColdMicros: micros } });
    // No read of this small, cached file takes a second: nothing is cold. One microsecond: every read is.
    const [never, always] = [probe(1_000_000), probe(1)];
    await never.warm();
    await always.warm();
    const reads = vi.spyOn(TextPrefetch.prototype, "read");
    try {
      const expected = queries.map((q) => plain.search(q));
      expect(queries.map((q) => never.search(q))).toEqual(expected);
      expect(reads).not.toHaveBeenCalled();
      expect(queries.map((q) => always.search(q))).toEqual(expected);
      expect(reads).toHaveBeenCalled();
      // Only batches of at least MIN_PREFETCH texts are probed, and what is handed over is the batch less its first, read here.
      expect(reads.mock.calls.every(([ids]) => ids.length >= MIN_PREFETCH - 1)).toBe(true);
    } finally {
      reads.mockRestore();
      plain.close();
      never.close();
      always.close();
    }
  });
});
