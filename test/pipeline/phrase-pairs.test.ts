/**
 * The phrase-pair index must answer the phrase of a phrase's pairs exactly
 * as FTS5's phrase query of its terms answers in the word index: same
 * transcripts, for two terms and for more.
 */
import Database from "better-sqlite3";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACT_FILES } from "../../pipeline/artifact/contract/contract.js";
import { createSyntheticCorpus } from "../../pipeline/corpus/synthetic.js";
import { pairTextBatches } from "../../pipeline/build/pair-texts.js";
import { hasPhrasePairs, pairText, pairToken, phrasePairs } from "../../pipeline/artifact/search-index/phrase-pairs.js";
import { buildPhrasePairs } from "../../pipeline/build/build-phrase-pairs.js";
import { tokenize } from "../../pipeline/artifact/text/text.js";
import { openCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { LiveStore } from "../../server/live-store/live-store.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { makeVideo } from "../helpers/records.js";

const pairsOfTokens = (text: string): string => {
  const terms = tokenize(text);
  return terms.slice(1).map((term, i) => pairToken(terms[i]!, term)).join(" ");
};

describe("pair tokens", () => {
  it("of ASCII text are those of the index's tokenizer, without its regular expression", () => {
    const ascii = fc.string({ unit: fc.constantFrom(..."aZ9 b.Y0'-,\n\t_x!QqÉ".split("").filter((c) => c.charCodeAt(0) < 128)), maxLength: 80 });
    fc.assert(fc.property(ascii, (text) => pairText(text) === pairsOfTokens(text)), { numRuns: 2000 });
    expect(pairText("It's 9 o'clock, the 2ND time!")).toBe("it_s s_9 9_o o_clock clock_the the_2nd 2nd_time");
  });

  it("of other text fold case and diacritics as the index does", () => {
    const text = "Die Brücken ÜBER den Fluss, les élèves d'été, Москва река";
    expect(pairText(text)).toBe(pairsOfTokens(text));
    expect(pairText(text)).toContain("die_brucken brucken_uber");
    expect(pairText(text)).toContain("москва_река");
  });

  it("of a phrase are its consecutive pairs, in order, repeats kept", () => {
    expect(phrasePairs(["one", "of", "the"])).toEqual(["one_of", "of_the"]);
    expect(phrasePairs(["very", "very", "very", "good"])).toEqual(["very_very", "very_very", "very_good"]);
    expect(phrasePairs(["alone"])).toEqual([]);
  });
});

describe("the phrase-pair index of a build", () => {
  let set: TempArtifacts;
  let db: Database.Database;
  beforeAll(async () => {
    const corpus = createSyntheticCorpus({ seed: 11, videos: 150, channels: 3 });
    // Beside the corpus (mostly ASCII), texts whose terms lose diacritics or are not Latin at all.
    const foreign = [
      "Die Brücken über den Fluss sind älter als die Straßen; ÜBER DEN FLUSS führen drei Brücken.",
      "Les élèves d'été étudient à l'école; l'été dernier, les élèves ont chanté.",
      "Москва река течёт через Москву, и река Москва замерзает зимой.",
      "Ich weiß, dass Größe und Maß nicht alles sind: die Größe zählt, das Maß auch.",
    ].map((text, i) => makeVideo(900 + i, { text }));
    set = await buildTempArtifacts([...Array.from({ length: corpus.videoCount }, (_, i) => corpus.videoAt(i)), ...foreign]);
    db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
  });
  afterAll(() => {
    db.close();
    set.cleanup();
  });

  it("is recorded in the database's meta, and a database without it is told apart", () => {
    expect(hasPhrasePairs(db)).toBe(true);
    const live = LiveStore.open(join(set.root, "live.db"));
    try {
      expect(hasPhrasePairs(live.db)).toBe(false);
    } finally {
      live.close();
    }
  });

  it("matches a phrase of pairs exactly where FTS5 finds the phrase of terms, in every language", () => {
    const texts = db.prepare("SELECT id, script FROM fts_content ORDER BY id").raw().all() as [number, string][];
    const pairRows = db.prepare("SELECT rowid FROM phrase_pairs WHERE phrase_pairs MATCH ? ORDER BY rowid").pluck();
    const phraseRows = db.prepare("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH ? ORDER BY rowid").pluck();
    // Runs of two to four terms from every fifth transcript and from every one that is not ASCII, consecutive in
    // it, and the same terms with one left out (mostly not a phrase anywhere).
    const checked = new Set<string>();
    let nonAscii = 0;
    let matched = 0;
    let longMatched = 0;
    for (const [, script] of texts.filter(([, script], i) => i % 5 === 0 || /[^\x00-\x7f]/.test(script))) {
      const terms = tokenize(script);
      for (let i = 0; i + 2 < terms.length && i < 600; i += /[^\x00-\x7f]/.test(script) ? 1 : 23) {
        const run = terms.slice(i, i + 2 + (i % 3));
        for (const phrase of [run, [run[0]!, ...run.slice(2)], [run[0]!, terms[i + 2]!]]) {
          const key = phrase.join(" ");
          if (phrase.length < 2 || checked.has(key)) continue;
          checked.add(key);
          if (/[^\x00-\x7f]/.test(key)) nonAscii++;
          const viaPairs = pairRows.all(`pairs : "${phrasePairs(phrase).join(" ")}"`);
          expect(viaPairs, key).toEqual(phraseRows.all(`script : "${key}"`));
          if (viaPairs.length > 0) matched++;
          if (viaPairs.length > 0 && phrase.length > 2) longMatched++;
        }
      }
    }
    expect(checked.size).toBeGreaterThan(500);
    expect(nonAscii).toBeGreaterThan(10);
    // Worth something only if many phrases occur, longer ones too, and some do not.
    expect(matched).toBeGreaterThan(checked.size / 3);
    expect(longMatched).toBeGreaterThan(100);
    expect(matched).toBeLessThan(checked.size);
  });

  it("is searched with the fold of the index: marks stay on non-Latin letters, alone and in phrases", () => {
    const catalog = openCatalog({ dir: set.dir });
    try {
      for (const q of ["течёт", "река течёт", "Brücken über", "élèves d'été"]) {
        const page = catalog.search({ q, limit: 10, offset: 0 });
        expect(page.results.map((r) => r.videoId), q).toEqual([expect.stringMatching(/.+/)]);
        expect(page.results[0]!.snippet, q).toContain("<mark>");
      }
    } finally {
      catalog.close();
    }
  });

  it("has its pair texts made on a worker thread, in batches, in rowid order", async () => {
    const path = join(set.dir, ARTIFACT_FILES.database);
    const expected = (db.prepare("SELECT id, script, chan FROM fts_content ORDER BY id").raw().all() as [number, string, string][]).map(
      ([id, script, chan]) => [id, pairText(script), chan],
    );
    const sizes: number[] = [];
    const made: unknown[] = [];
    for await (const rows of pairTextBatches(path, 7)) {
      sizes.push(rows.length);
      made.push(...rows);
    }
    expect(expected.length).toBeGreaterThan(140);
    expect(made).toEqual(expected);
    expect(sizes.slice(0, -1).every((size) => size === 7)).toBe(true);
    expect(sizes).toHaveLength(Math.ceil(expected.length / 7));
  });

  it("is built from another file, in batches made on a worker thread; a failure there rolls it back", async () => {
    const root = mkdtempSync(join(tmpdir(), "ts-pairs-"));
    const target = new Database(join(root, "pairs.db"));
    try {
      await buildPhrasePairs(target, join(set.dir, ARTIFACT_FILES.database));
      const rows = target.prepare("SELECT rowid FROM phrase_pairs WHERE phrase_pairs MATCH ? ORDER BY rowid").pluck();
      const source = db.prepare("SELECT rowid FROM phrase_pairs WHERE phrase_pairs MATCH ? ORDER BY rowid").pluck();
      for (const pair of ["москва_река", "die_brucken", "of_the"]) expect(rows.all(pair), pair).toEqual(source.all(pair));
      expect(rows.all("of_the").length).toBeGreaterThan(10);
      target.exec("DROP TABLE phrase_pairs");
      new Database(join(root, "empty.db")).close();
      await expect(buildPhrasePairs(target, join(root, "empty.db"))).rejects.toThrow(/Making the pair texts failed: no such table: fts_content/);
      expect(target.inTransaction).toBe(false);
      expect(target.prepare("SELECT count(*) FROM phrase_pairs").pluck().get()).toBe(0);
    } finally {
      target.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
