import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { ARTIFACT_FILES, ARTIFACT_MAPPED_BYTES } from "../../pipeline/artifact/contract/contract.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { HotTranscripts } from "../../server/search/memory/hot-transcripts.js";
import { openIndexConnection, warmIndex } from "../../server/search/memory/index-memory.js";
import { SearchMemory } from "../../server/search/memory/search-memory.js";
import { TermVectors } from "../../pipeline/artifact/search-index/term-vectors.js";
import { tokenize } from "../../pipeline/artifact/text/text.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

const require = createRequire(import.meta.url);
const VIDEOS = 300;

/** Maps the database file given and reads its full-text index, then says so and waits to be killed. */
const OTHER_READER = `
const Database = require(${JSON.stringify(require.resolve("better-sqlite3"))});
const db = new Database(process.argv[1], { readonly: true });
db.pragma("mmap_size = ${ARTIFACT_MAPPED_BYTES}");
db.prepare("SELECT sum(length(block)) FROM transcript_fts_data").get();
process.stdout.write("read\\n");
setInterval(() => {}, 1000);
`;

/** Resident and proportional KiB of this process's mappings of `file` (/proc/self/smaps). */
function mappedKiB(file: string): { rss: number; pss: number } {
  const mappings = readFileSync("/proc/self/smaps", "utf8").split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/).filter((block) => block.split("\n")[0]!.endsWith(file));
  const sum = (field: string) => mappings.reduce((total, block) => total + Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(block)?.[1] ?? 0), 0);
  return { rss: sum("Rss"), pss: sum("Pss") };
}

describe("search memory: the full-text index and the most viewed transcripts", () => {
  let set: TempArtifacts;
  let channelId: string;
  let indexBytes: number;
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 7, videos: VIDEOS, channels: 6 });
    const records = Array.from({ length: VIDEOS }, (_, i) => corpus.videoAt(i));
    channelId = corpus.channels[0]!.channelId;
    set = await buildTempArtifacts(records);
    const db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    indexBytes = db.prepare("SELECT sum(length(block)) FROM transcript_fts_data").pluck().get() as number;
    db.close();
  }, 60_000);
  afterAll(() => set?.cleanup());

  it("reads the whole index from the mapped start of the file, pages a second process shares, a slice per turn of the event loop", async () => {
    const file = join(set.dir, ARTIFACT_FILES.database);
    // Another process serving the same set: it maps the file and reads the index the same way.
    const other = spawn(process.execPath, ["-e", OTHER_READER, file], { stdio: ["ignore", "pipe", "inherit"] });
    const db = openIndexConnection(file, 64 * 2 ** 20);
    try {
      await new Promise<void>((resolve, reject) => {
        other.stdout.once("data", () => resolve());
        other.once("exit", (code) => reject(new Error(`the other reader exited (${code})`)));
      });
      expect(db.pragma("mmap_size", { simple: true })).toBe(ARTIFACT_MAPPED_BYTES);
      const before = mappedKiB(file);
      let pauses = 0;
      const warmth = await warmIndex(db, { budgetBytes: 64 * 2 ** 20, sliceRows: 16, pause: async () => void pauses++ });
      expect(warmth.outcome).toBe("complete");
      expect(warmth.bytes).toBe(indexBytes);
      expect(pauses).toBeGreaterThan(2);
      const after = mappedKiB(file);
      // Read through the mapping: the index's pages are mapped in this process, and shared with the other.
      expect(after.rss - before.rss).toBeGreaterThanOrEqual(indexBytes / 1024);
      expect(after.pss).toBeLessThan(after.rss * 0.75);
    } finally {
      db.close();
      other.kill();
    }
  });

  it("stops at the budget and says so", async () => {
    const db = openIndexConnection(join(set.dir, ARTIFACT_FILES.database), 1);
    try {
      const warmth = await warmIndex(db, { budgetBytes: 1, sliceRows: 16 });
      expect(warmth.outcome).toBe("budget");
      expect(warmth.bytes).toBeGreaterThan(0);
      expect(warmth.bytes).toBeLessThan(indexBytes);
    } finally {
      db.close();
    }
  });

  it("stops when the connection is closed while it warms (a set switched away)", async () => {
    const db = openIndexConnection(join(set.dir, ARTIFACT_FILES.database), 64 * 2 ** 20);
    let pauses = 0;
    const warmth = await warmIndex(db, {
      budgetBytes: 64 * 2 ** 20,
      sliceRows: 16,
      pause: async () => {
        if (++pauses === 2) db.close();
      },
    });
    expect(warmth.outcome).toBe("closed");
    expect(warmth.bytes).toBeLessThan(indexBytes);
  });

  it("holds the most viewed transcripts' rows as the database has them, in rank order, up to the budget", async () => {
    const db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    try {
      const expected = db
        .prepare(
          `SELECT v.id AS id, t.word_count AS words, v.view_count AS views, CAST(t.script AS BLOB) AS bytes
           FROM videos v JOIN transcripts t ON t.id = v.transcript ORDER BY v.id`,
        )
        .all() as { id: number; words: number; views: number; bytes: Buffer }[];
      const all = new HotTranscripts();
      const full = await all.load(db, { budgetBytes: 1e9, sliceRows: 32 });
      expect(full).toMatchObject({ outcome: "complete", transcripts: expected.length });
      for (const row of expected) {
        const held = all.get(row.id);
        expect({ words: held?.words, views: held?.views, same: held?.bytes.equals(row.bytes) }).toEqual({ words: row.words, views: row.views, same: true });
      }

      const budget = (full.bytes / expected.length) * 20;
      const some = new HotTranscripts();
      const part = await some.load(db, { budgetBytes: budget, sliceRows: 32 });
      expect(part.outcome).toBe("budget");
      expect(part.bytes).toBeLessThanOrEqual(budget);
      expect(part.transcripts).toBeGreaterThan(10);
      expect(part.transcripts).toBeLessThan(30);
      // The most viewed first: exactly the first `transcripts` rows are held.
      expected.forEach((row, i) => expect(some.get(row.id) !== undefined).toBe(i < part.transcripts));

      // Timings given room of their own: the texts fill the budget as they would alone, so more are held.
      const wide = (full.bytes / expected.length) * 150;
      const shared = await new HotTranscripts().load(db, { budgetBytes: wide, sliceRows: 32 });
      const roomy = new HotTranscripts();
      const withRoom = await roomy.load(db, { budgetBytes: wide, timingsBytes: 1e9, sliceRows: 32 });
      expect(withRoom.transcripts).toBeGreaterThan(shared.transcripts);
      expect(withRoom.bytes - withRoom.timingsBytes).toBeLessThanOrEqual(wide);
      const heldTimings = expected.slice(0, withRoom.transcripts).reduce((sum, row) => sum + roomy.get(row.id)!.starts.length, 0);
      expect(withRoom.timingsBytes).toBe(heldTimings);
      // A little room: the timings take all of it, and the rest of theirs counts in the budget.
      const tight = await new HotTranscripts().load(db, { budgetBytes: wide, timingsBytes: 100, sliceRows: 32 });
      expect(tight.timingsBytes).toBe(100);
      expect(tight.bytes - 100).toBeLessThanOrEqual(wide);
      expect(tight.transcripts).toBeGreaterThanOrEqual(shared.transcripts);
      expect(tight.transcripts).toBeLessThanOrEqual(withRoom.transcripts);

      const closing = new HotTranscripts();
      const other = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
      let pauses = 0;
      const closed = await closing.load(other, { budgetBytes: 1e9, sliceRows: 32, pause: async () => void (++pauses === 2 && other.close()) });
      expect(closed.outcome).toBe("closed");
    } finally {
      db.close();
    }
  });

  it("holds the texts' timings in what the index left of its share, and caps the index's cache lower by as much", async () => {
    const file = join(set.dir, ARTIFACT_FILES.database);
    const db = new Database(file, { readonly: true });
    const share = 64 * 2 ** 20;
    const memory = new SearchMemory(file, { indexBytes: share, pairBytes: 0, hotTextBytes: 2 ** 20 });
    try {
      const cacheBefore = memory.index!.pragma("cache_size", { simple: true }) as number;
      const warmth = await memory.warm(db);
      expect(warmth.index?.bytes).toBe(indexBytes);
      expect(warmth.texts!.timingsBytes).toBeGreaterThan(0);
      expect(warmth.texts!.bytes - warmth.texts!.timingsBytes).toBeLessThanOrEqual(2 ** 20);
      const pageSize = db.pragma("page_size", { simple: true }) as number;
      const cacheAfter = memory.index!.pragma("cache_size", { simple: true }) as number;
      expect((cacheBefore - cacheAfter) * pageSize).toBeGreaterThanOrEqual(warmth.texts!.timingsBytes - pageSize);
      expect((cacheBefore - cacheAfter) * pageSize).toBeLessThanOrEqual(warmth.texts!.timingsBytes + pageSize);
    } finally {
      memory.close();
      db.close();
    }
  });

  it("answers every search exactly as the database alone does, before, during and after warming", async () => {
    const plain = openCatalog({ dir: set.dir, wordBitmaps: false });
    const held = openCatalog({ dir: set.dir, indexBytes: 64 * 2 ** 20, pairBytes: 64 * 2 ** 20, hotTextBytes: 64 * 2 ** 20 });
    // Only part of the text fits: the rest is read from the database, side by side with what is held.
    const partly = openCatalog({ dir: set.dir, indexBytes: 64 * 2 ** 20, hotTextBytes: 256 * 1024 });
    try {
      const queries: SearchParams[] = [
        { q: "the", limit: 20, offset: 0 },
        { q: "said the", limit: 10, offset: 15 },
        { q: '"of the" people', limit: 10, offset: 0 },
        { q: "time", limit: 5, offset: 0, channel: channelId },
        { q: "would have been", limit: 10, offset: 0, minViews: 1000 },
        { q: "house", limit: 100, offset: 100 },
        { q: "zzzznotaword", limit: 10, offset: 0 },
      ];
      const expected = queries.map((q) => plain.search(q));
      expect(queries.map((q) => held.search(q))).toEqual(expected);
      const warmth = await held.warm();
      expect(warmth.index).toMatchObject({ outcome: "complete", bytes: indexBytes });
      expect(warmth.texts).toMatchObject({ outcome: "complete" });
      // No pair list of this small set is four pages long: the warm-up reads the pair index's structure and stops.
      expect(warmth.pairs).toMatchObject({ outcome: "complete", lists: 0 });
      const fresh = openCatalog({ dir: set.dir, indexBytes: 64 * 2 ** 20, hotTextBytes: 64 * 2 ** 20 });
      const reads = vi.spyOn(HotTranscripts.prototype, "get");
      try {
        await fresh.warm();
        expect(queries.map((q) => fresh.search(q))).toEqual(expected);
        // Ranking and snippets took their rows from memory.
        expect(reads.mock.results.filter((r) => r.value !== undefined).length).toBeGreaterThan(100);
      } finally {
        reads.mockRestore();
        fresh.close();
      }
      const partlyWarmth = await partly.warm();
      expect(partlyWarmth.texts?.outcome).toBe("budget");
      expect(partlyWarmth.pairs).toBeUndefined();
      expect(queries.map((q) => partly.search(q))).toEqual(expected);
      expect(expected[0]!.results.length).toBe(20);
      expect(expected.slice(1, -1).every((page) => page.total > 0)).toBe(true);
      // Nothing held in memory; the warm-up searches run all the same.
      expect(await plain.warm()).toEqual({ searches: expect.any(Number), searchesMs: expect.any(Number) });
    } finally {
      plain.close();
      held.close();
      partly.close();
    }
  });

  it("scores with the term counts held in memory exactly as by counting in the text, with some or all of the texts counted", async () => {
    // Every term not in most transcripts counted in the candidates' text (none from the index), so the counts are used.
    const search = { indexCountMaxDf: 0, cacheSize: 0 };
    const plain = openCatalog({ dir: set.dir, wordBitmaps: false, search });
    const all = openCatalog({ dir: set.dir, hotTextBytes: 64 * 2 ** 20, termVectorBytes: 64 * 2 ** 20, search });
    const some = openCatalog({ dir: set.dir, hotTextBytes: 64 * 2 ** 20, termVectorBytes: 40 * 1024, search });
    const lookups = vi.spyOn(TermVectors, "counts");
    try {
      const allWarmth = await all.warm();
      const someWarmth = await some.warm();
      // Every text of this set is ASCII or Latin text folded byte by byte, so each has its counts.
      expect(allWarmth.texts).toMatchObject({ outcome: "complete", vectors: allWarmth.texts!.transcripts });
      expect(someWarmth.texts!.vectors).toBeGreaterThan(2);
      expect(someWarmth.texts!.vectors).toBeLessThan(VIDEOS / 2);
      // Words of the set's own transcripts, one to three at a time, some quoted, some filtered.
      const db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
      const words = db
        .prepare("SELECT t.script FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id % 37 = 1")
        .pluck()
        .all()
        .flatMap((script) => tokenize((script as string).slice(0, 400)).filter((_, i) => i % 9 === 0));
      db.close();
      const queries: SearchParams[] = words.slice(0, 60).map((word, i) => {
        const q = i % 3 === 0 ? word : i % 3 === 1 ? `${word} ${words[i + 1]}` : `"${word} ${words[i + 1]}" ${words[i + 7]}`;
        return { q, limit: 10, offset: i % 4 === 0 ? 5 : 0, ...(i % 5 === 0 && { channel: channelId }) };
      });
      lookups.mockClear();
      const expected = queries.map((q) => plain.search(q));
      expect(lookups).not.toHaveBeenCalled();
      expect(queries.map((q) => all.search(q))).toEqual(expected);
      expect(lookups.mock.calls.length).toBeGreaterThan(200);
      expect(queries.map((q) => some.search(q))).toEqual(expected);
      expect(expected.filter((page) => page.results.length > 1).length).toBeGreaterThan(30);
    } finally {
      lookups.mockRestore();
      plain.close();
      all.close();
      some.close();
    }
  });
});
