import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { ARTIFACT_FILES } from "../../pipeline/contract.js";
import { openCatalog } from "../../server/data/artifact-catalog.js";
import type { SearchParams } from "../../server/data/catalog.js";
import { openIndexConnection, warmIndex } from "../../server/data/index-memory.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";

const VIDEOS = 300;

describe("the full-text index held in memory", () => {
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

  it("reads the whole index into its connection's cache, a slice per turn of the event loop", async () => {
    const db = openIndexConnection(join(set.dir, ARTIFACT_FILES.database), 64 * 2 ** 20);
    try {
      let pauses = 0;
      const warmth = await warmIndex(db, { budgetBytes: 64 * 2 ** 20, sliceRows: 16, pause: async () => void pauses++ });
      expect(warmth.outcome).toBe("complete");
      expect(warmth.bytes).toBe(indexBytes);
      expect(pauses).toBeGreaterThan(2);
      // Not memory-mapped: pages read are copies in SQLite's cache.
      expect(db.pragma("mmap_size", { simple: true })).toBe(0);
    } finally {
      db.close();
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

  it("answers every search exactly as the single connection does, before and after warming", async () => {
    const plain = openCatalog({ dir: set.dir });
    const held = openCatalog({ dir: set.dir, indexBytes: 64 * 2 ** 20 });
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
      const before = queries.map((q) => held.search(q));
      expect(await held.warmIndex()).toMatchObject({ outcome: "complete", bytes: indexBytes });
      const after = queries.map((q) => held.search(q));
      const expected = queries.map((q) => plain.search(q));
      expect(before).toEqual(expected);
      expect(after).toEqual(expected);
      expect(expected[0]!.results.length).toBe(20);
      expect(expected.slice(1, -1).every((page) => page.total > 0)).toBe(true);
      expect(await plain.warmIndex()).toBeUndefined();
    } finally {
      plain.close();
      held.close();
    }
  });
});
