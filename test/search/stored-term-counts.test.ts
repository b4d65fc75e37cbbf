/**
 * The build's term counts (pipeline/artifact/search-index/term-counts.ts): the encoding
 * round-trips; the build lists the words of its band and counts in every
 * transcript what countTerms counts in its text; the server holds them from
 * rank 1 down within their share, scores with them without reading rows,
 * and answers exactly as without them.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { decodeCounts, encodeCounts, TERM_COUNTS_MAX_SHARE, TERM_COUNTS_MIN_DF } from "../../pipeline/artifact/search-index/term-counts.js";
import { buildTermCounts } from "../../pipeline/build/build-term-counts.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { tokenize } from "../../pipeline/artifact/text/text.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { catalogSettings } from "../../server/start/runtime.js";
import { hasTermCounts, StoredTermCounts } from "../../server/search/memory/stored-term-counts.js";
import { countTerms } from "../../server/search/rank/term-counts.js";
import { loadSettings } from "../../settings/settings.js";
import { buildTempArtifacts, restampManifest, type TempArtifacts } from "../helpers/artifacts.js";

/** Every prepared statement's prototype, to count the reads a search makes. */
const statements = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as Database.Statement;

describe("term counts' encoding", () => {
  it("gives back each wanted word's count, 0 for a word not held, whatever the gaps and counts", () => {
    const pairs = fc.uniqueArray(fc.tuple(fc.nat(300_000), fc.integer({ min: 1, max: 0xffff })), { selector: (p) => p[0], maxLength: 60 });
    fc.assert(
      fc.property(pairs, fc.uniqueArray(fc.nat(300_000), { maxLength: 8 }), (held, extra) => {
        held.sort((a, b) => a[0] - b[0]);
        const bytes = encodeCounts(
          held.map((p) => p[0]),
          held.map((p) => p[1]),
        );
        const padded = Buffer.concat([Buffer.from([0xff, 0x01]), bytes, Buffer.from([0x05])]);
        const wanted = [...new Set([...held.slice(0, 5).map((p) => p[0]), ...extra])].sort((a, b) => a - b);
        const into = new Array<number>(wanted.length);
        decodeCounts(padded, 2, 2 + bytes.length, wanted, into);
        expect(into).toEqual(wanted.map((id) => held.find((p) => p[0] === id)?.[1] ?? 0));
      }),
      { numRuns: 2000 },
    );
  });
});

/**
 * Four-word phrases in several of `texts` whose middle pair is of two words in more than 30% of them, the
 * others in fewer: the phrase tier leaves that pair out and confirms its candidates in their text
 * (phrase-strategies.ts). Those in most texts first.
 */
function confirmedPhrases(texts: readonly string[], count: number): string[] {
  const tokens = texts.map((text) => tokenize(text));
  const df = new Map<string, number>();
  for (const words of tokens) for (const word of new Set(words)) df.set(word, (df.get(word) ?? 0) + 1);
  const common = (word: string) => df.get(word)! > texts.length * 0.3;
  const phrases = new Map<string, number>();
  for (const words of tokens) {
    const seen = new Set<string>();
    for (let i = 0; i + 3 < words.length; i++) {
      const [a, b, c, d] = words.slice(i, i + 4) as [string, string, string, string];
      if (common(b) && common(c) && !common(a) && !common(d) && /^[a-z]+$/.test(a + d)) seen.add(`${a} ${b} ${c} ${d}`);
    }
    for (const phrase of seen) phrases.set(phrase, (phrases.get(phrase) ?? 0) + 1);
  }
  return [...phrases]
    .filter(([, n]) => n >= 2)
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, count)
    .map(([phrase]) => phrase);
}

describe("term counts of an artifact set", () => {
  let set: TempArtifacts;
  let file: string;
  let phrases: string[];
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 23, videos: 160, channels: 3 });
    const videos = Array.from({ length: 160 }, (_, i) => corpus.videoAt(i));
    phrases = confirmedPhrases(videos.map((video) => (video.transcripts[0]?.segments ?? []).map((segment) => segment.text).join(" ")), 4);
    set = await buildTempArtifacts(videos);
    file = `${set.dir}/${ARTIFACT_FILES.database}`;
  }, 60_000);
  afterAll(() => set?.cleanup());

  /** The set's term counts made again, listing the words in more than `minDf` transcripts (a small set has none past the default). */
  const rebuild = async (minDf: number) => {
    const db = new Database(file);
    try {
      db.exec("DROP TABLE term_counts; DROP TABLE term_count_words");
      return await buildTermCounts(db, undefined, undefined, minDf);
    } finally {
      db.close();
      await restampManifest(set.dir);
    }
  };

  it("are built with every set: a row for each primary transcript, the words of the band listed, the version in meta", () => {
    const db = new Database(file, { readonly: true });
    try {
      expect(hasTermCounts(db)).toBe(true);
      const transcripts = db.prepare("SELECT count(*) FROM videos WHERE transcript IS NOT NULL").pluck().get() as number;
      expect(db.prepare("SELECT count(*) FROM term_counts").pluck().get()).toBe(transcripts);
      // No word of 160 transcripts is in more than the default's 4,000.
      expect(TERM_COUNTS_MIN_DF).toBe(4000);
      expect(db.prepare("SELECT count(*) FROM term_count_words").pluck().get()).toBe(0);
      const row = db.prepare("SELECT c.words, c.views, c.text_bytes, t.word_count, v.view_count, length(CAST(t.script AS BLOB)) AS bytes FROM term_counts c JOIN videos v ON v.id = c.id JOIN transcripts t ON t.id = v.transcript");
      for (const r of row.all() as Record<string, number>[]) expect([r.words, r.views, r.text_bytes]).toEqual([r.word_count, r.view_count, r.bytes]);
    } finally {
      db.close();
    }
  });

  it("count in each transcript what countTerms counts in its text, for every listed word", async () => {
    expect(await rebuild(0)).toBeGreaterThan(100);
    const db = new Database(file, { readonly: true });
    try {
      const documents = db.prepare("SELECT count(*) FROM videos WHERE transcript IS NOT NULL").pluck().get() as number;
      const listed = db.prepare("SELECT word FROM term_count_words ORDER BY id").pluck().all() as string[];
      // The words of ASCII letters and digits of the band: the others are counted in the text (decoded).
      const band = db.prepare("SELECT term FROM term_stats WHERE df > 0 AND df <= ?").pluck().all(Math.floor(documents * TERM_COUNTS_MAX_SHARE)) as string[];
      expect(band.some((word) => !/^[a-z0-9]+$/.test(word))).toBe(true);
      expect(new Set(listed)).toEqual(new Set(band.filter((word) => /^[a-z0-9]+$/.test(word))));
      const counts = new StoredTermCounts();
      expect(await counts.load(db, 2 ** 30)).toMatchObject({ outcome: "complete", transcripts: documents });
      // Every fourth transcript: each is checked for every listed word.
      const texts = db.prepare("SELECT v.id, CAST(t.script AS BLOB) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id % 4 = 1").raw().all() as [number, Buffer][];
      let nonZero = 0;
      for (const [rank, bytes] of texts) {
        // Every listed word in groups of four, in no particular order.
        for (let at = 0; at < listed.length; at += 4) {
          const words = listed.slice(at, at + 4).reverse();
          const expected = countTerms(bytes, words);
          expect(counts.termCounts(rank, counts.idsOf(words)!), `${rank} ${words.join(" ")}`).toEqual(expected);
          nonZero += expected.filter((c) => c > 0).length;
        }
      }
      expect(nonZero).toBeGreaterThan(500);
      expect(counts.idsOf(["the"])).toBeUndefined();
    } finally {
      db.close();
    }
  }, 120_000);

  it("score the candidates they hold without reading their rows, with the same answers; from rank 1 down within their share", async () => {
    await rebuild(0);
    // The phrases are confirmed in their candidates' text, whose rows are then read anyway: they are scored with the counts too.
    expect(phrases).toHaveLength(4);
    const queries = ["river", "light of", "water stone", "people world", "old river", "the night", ...phrases].flatMap((q) => [
      { q, limit: 10, offset: 0 },
      { q, limit: 10, offset: 20 },
    ]);
    // Every counted word in the candidates' text (none from the index), as a large set does for its common words.
    const answers = async (env: Record<string, string>) => {
      const options = catalogSettings(loadSettings("server", { SEARCH_MEMORY_MB: "64", SEARCH_MEMORY_HELPERS: "-warmup,-prefetch", ...env }));
      const catalog = openCatalog({ dir: set.dir, ...options, search: { ...options.search, cacheSize: 0, indexCountMaxDf: 0 } });
      const reads = [vi.spyOn(statements, "get"), vi.spyOn(statements, "all")];
      try {
        const warmth = await catalog.warm();
        const before = reads.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
        const pages = queries.map((params) => catalog.search(params));
        return { warmth, pages, reads: reads.reduce((sum, spy) => sum + spy.mock.calls.length, 0) - before };
      } finally {
        for (const spy of reads) spy.mockRestore();
        catalog.close();
      }
    };
    // Texts not held, so each candidate scored without the counts reads its row.
    const held = await answers({ SEARCH_MEMORY_HELPERS: "counts,index" });
    const without = await answers({ SEARCH_MEMORY_HELPERS: "index" });
    expect(held.warmth.counts).toMatchObject({ outcome: "complete" });
    expect(held.warmth.counts!.transcripts).toBeGreaterThan(100);
    expect(without.warmth.counts).toBeUndefined();
    expect(held.pages.filter((page) => page.results.length > 0).length).toBeGreaterThan(6);
    expect(held.pages.slice(12).filter((page, i) => i % 2 === 0 && page.results.length > 0)).toHaveLength(4);
    expect(held.pages).toEqual(without.pages);
    expect(held.reads).toBeLessThan(without.reads * 0.7);
    // With the texts and their vectors too, and with a share that holds some of the counts only.
    expect((await answers({})).pages).toEqual(without.pages);
    const part = await answers({ SEARCH_MEMORY_MB: "1" });
    expect(part.warmth.counts).toMatchObject({ outcome: "budget" });
    expect(part.warmth.counts!.transcripts).toBeGreaterThan(0);
    expect(part.warmth.counts!.transcripts).toBeLessThan(held.warmth.counts!.transcripts);
    expect(part.pages).toEqual(without.pages);
    // A share smaller than the places of every rank holds nothing, and takes nothing.
    const db = new Database(file, { readonly: true });
    try {
      const tiny = new StoredTermCounts();
      expect(await tiny.load(db, 2000)).toMatchObject({ outcome: "budget", transcripts: 0, bytes: 0 });
      expect(tiny.has(1)).toBe(false);
    } finally {
      db.close();
    }
  }, 120_000);

  it("are not read from a set whose meta does not name their version", async () => {
    const db = new Database(file);
    try {
      db.prepare("UPDATE meta SET value = 'other' WHERE key = 'termCounts'").run();
      expect(hasTermCounts(db)).toBe(false);
      expect(await new StoredTermCounts().load(db, 2 ** 30)).toMatchObject({ outcome: "absent", transcripts: 0 });
    } finally {
      db.prepare("UPDATE meta SET value = '1' WHERE key = 'termCounts'").run();
      db.close();
    }
  });
});
