import Database from "better-sqlite3";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { ARTIFACT_PAGE_SIZE, buildDatabase } from "../../pipeline/build/build-database.js";
import { BULK_LOAD_HASH_BYTES } from "../../pipeline/build/fts-bulk-load.js";
import { stageRecords } from "../../pipeline/build/stage-records.js";
import { buildTranscriptIndex } from "../../pipeline/build/transcript-index.js";
import { ArtifactError, readManifest, verifyChecksums } from "../../pipeline/artifact/manifest/manifest.js";
import {
  ARTIFACT_FILES,
  ARTIFACT_MAPPED_BYTES,
  INDEX_OPTIONS,
  OPTIONS_HASH,
  optionsHash,
  PHRASE_PAIRS_VERSION,
  SCHEMA_VERSION,
  WORD_BITMAPS_VERSION,
  type VideoRecord,
} from "../../pipeline/artifact/contract/contract.js";
import { pairText, PHRASE_PAIRS_DDL } from "../../pipeline/artifact/search-index/phrase-pairs.js";
import { newBuildDir, publishBuild } from "../../pipeline/publish/publish.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { makeVideo, sampleRecords, segmentsOf, videoId } from "../helpers/records.js";
import { dataDirLayout } from "../../pipeline/artifact/layout/layout.js";

describe("the build stage", () => {
  let set: TempArtifacts;
  beforeAll(async () => {
    set = await buildTempArtifacts(sampleRecords());
  });
  afterAll(() => set.cleanup());

  it("writes the database, the title index and a manifest with counts, hash and checksums", async () => {
    const manifest = readManifest(set.dir);
    expect(manifest.schemaVersion).toBe(SCHEMA_VERSION);
    expect(manifest.optionsHash).toBe(OPTIONS_HASH);
    expect(manifest.dataset).toBe("test");
    // 7 videos, one without any transcript, so 6 with a (primary) transcript.
    expect(manifest.counts).toMatchObject({ channels: 2, videos: 7, transcripts: 6 });
    expect(Object.keys(manifest.files).sort()).toEqual([ARTIFACT_FILES.titleIndex, ARTIFACT_FILES.database].sort());
    await expect(verifyChecksums(set.dir, manifest)).resolves.toBeUndefined();
    expect(readdirSync(set.dir).sort()).toEqual(Object.values(ARTIFACT_FILES).sort());
  });

  it("numbers videos by descending view count, and indexes only each video's primary track", () => {
    const db = new Database(join(set.dir, ARTIFACT_FILES.database), { readonly: true });
    const views = db.prepare("SELECT view_count FROM videos ORDER BY id").pluck().all() as number[];
    expect(views).toEqual([...views].sort((a, b) => b - a));
    const ftsRows = db.prepare("SELECT count(*) FROM transcript_fts").pluck().get();
    expect(ftsRows).toBe(6);
    const primary = db
      .prepare("SELECT t.language_code, t.is_generated FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.video_id = ?")
      .get(videoId(7));
    expect(primary).toEqual({ language_code: "en", is_generated: 0 });
    expect(db.prepare("SELECT count(*) FROM transcripts").pluck().get()).toBe(8);
    expect(db.prepare("SELECT df FROM term_stats WHERE term = 'river'").pluck().get()).toBe(3);
    db.close();
  });

  it("keeps a transcript's row in one page of the database: overflow pages only for rows longer than a page", async () => {
    // About 1,500 words each (the corpus mean): in 4 KiB pages every such row was a leaf page and an overflow chain.
    const words = (n: number) => Array.from({ length: 1500 }, (_, i) => `w${(i * 7 + n) % 997}`).join(" ");
    const typical = await buildTempArtifacts(Array.from({ length: 12 }, (_, i) => makeVideo(i + 1, { text: words(i) })));
    const long = await buildTempArtifacts([makeVideo(1, { text: Array.from({ length: 8 }, (_, i) => words(i)).join(" ") })]);
    try {
      const overflow = (dir: string) => {
        const db = new Database(join(dir, ARTIFACT_FILES.database), { readonly: true });
        try {
          expect(db.pragma("page_size", { simple: true })).toBe(ARTIFACT_PAGE_SIZE);
          const rowBytes = db.prepare("SELECT max(length(CAST(script AS BLOB)) + length(timings)) FROM transcripts").pluck().get() as number;
          const pages = db.prepare("SELECT count(*) FROM dbstat WHERE name = 'transcripts' AND pagetype = 'overflow'").pluck().get() as number;
          return { rowBytes, pages };
        } finally {
          db.close();
        }
      };
      const inPage = overflow(typical.dir);
      expect(inPage.rowBytes).toBeGreaterThan(8 * 1024);
      expect(inPage.pages).toBe(0);
      const past = overflow(long.dir);
      expect(past.rowBytes).toBeGreaterThan(ARTIFACT_PAGE_SIZE);
      expect(past.pages).toBeGreaterThan(0);
    } finally {
      typical.cleanup();
      long.cleanup();
    }
  });

  it("writes the full-text index at the start of the file, before the transcripts, and leaves no page free", async () => {
    const words = (n: number) => Array.from({ length: 1500 }, (_, i) => `w${(i * 7 + n * 13) % 4999}`).join(" ");
    const built = await buildTempArtifacts(Array.from({ length: 200 }, (_, i) => makeVideo(i + 1, { text: words(i) })));
    const db = new Database(join(built.dir, ARTIFACT_FILES.database), { readonly: true });
    try {
      const pages = (name: string) => db.prepare("SELECT count(*) AS n, min(pageno) AS first, max(pageno) AS last FROM dbstat WHERE name = ?").get(name) as { n: number; first: number; last: number };
      const index = pages("transcript_fts_data");
      const texts = pages("transcripts");
      expect(index.n).toBeGreaterThan(10);
      expect(texts.n).toBeGreaterThan(100);
      // Only the transcripts' root page, made with the schema, comes before the index's last page.
      const textsBefore = db.prepare("SELECT count(*) FROM dbstat WHERE name = 'transcripts' AND pageno < ?").pluck().get(index.last);
      expect(textsBefore).toBe(1);
      expect(index.last * ARTIFACT_PAGE_SIZE).toBeLessThan(ARTIFACT_MAPPED_BYTES);
      expect(db.pragma("freelist_count", { simple: true })).toBe(0);
      expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'index_room'").pluck().get()).toBe(0);
    } finally {
      db.close();
      built.cleanup();
    }
  });

  it("bulk-loads the full-text indexes: intact, and the same index as many small flushes and merges build", async () => {
    // 60 transcripts of 2,000 words: one flush of the bulk load's buffer, dozens of the comparison's 16 KiB.
    const text = (n: number) => Array.from({ length: 1000 }, (_, i) => `w${(i * 31 + n * 17) % 4999} v${(i + n) % 97}`).join(" ");
    const built = await buildTempArtifacts(Array.from({ length: 60 }, (_, i) => makeVideo(i + 1, { text: text(i) })));
    const copy = join(built.dir, "..", "defaults.db");
    try {
      const db = new Database(join(built.dir, ARTIFACT_FILES.database), { readonly: true });
      const config = (table: string) => Object.fromEntries(db.prepare(`SELECT k, v FROM ${table}_config`).raw().all() as [string, number][]);
      expect(config("transcript_fts")).toMatchObject({ hashsize: BULK_LOAD_HASH_BYTES, automerge: 0 });
      expect(config("phrase_pairs")).toMatchObject({ hashsize: BULK_LOAD_HASH_BYTES, automerge: 0 });
      db.close();
      copyFileSync(join(built.dir, ARTIFACT_FILES.database), copy);
      const check = new Database(copy);
      // The index checked against its content (rank 1), and the pair index's own structure.
      check.exec("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('integrity-check', 1)");
      check.exec("INSERT INTO phrase_pairs (phrase_pairs) VALUES ('integrity-check')");
      const vocabulary = () => {
        check.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.rows USING fts5vocab(main, transcript_fts, instance)");
        return check.prepare("SELECT term, doc, col, offset FROM temp.rows").raw().all();
      };
      const bulk = vocabulary();
      expect(bulk.filter((row) => (row as unknown[])[2] === "script")).toHaveLength(60 * 2000);
      // The same content indexed anew as FTS5 does small writes: a flush every 16 KiB, merges as they come.
      check.exec("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('hashsize', 16384)");
      check.exec("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('automerge', 4)");
      check.exec("INSERT INTO transcript_fts (transcript_fts) VALUES ('rebuild')");
      check.exec("INSERT INTO transcript_fts (transcript_fts) VALUES ('optimize')");
      expect(vocabulary()).toEqual(bulk);
      // Document frequencies, built beside the index and copied with it, are its own.
      check.exec("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, transcript_fts, row)");
      const frequencies = check.prepare("SELECT term, doc FROM temp.terms").raw().all();
      expect(frequencies.length).toBeGreaterThan(5000);
      expect(check.prepare("SELECT term, df FROM term_stats ORDER BY term").raw().all()).toEqual(frequencies);
      // The pair index, built in a file of its own and copied in, is the one built in place.
      const pairVocabulary = () => {
        check.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.pair_rows USING fts5vocab(main, phrase_pairs, instance)");
        return check.prepare("SELECT term, doc, col, offset FROM temp.pair_rows").raw().all();
      };
      const copied = pairVocabulary();
      // 1,999 pairs in each text, and its channel's token.
      expect(copied).toHaveLength(60 * 2000);
      // The reference: every transcript's pair text made on this thread, indexed with FTS5's defaults in one go.
      check.exec("DROP TABLE temp.pair_rows");
      check.exec(PHRASE_PAIRS_DDL.replace("phrase_pairs", "reference_pairs"));
      const insert = check.prepare("INSERT INTO reference_pairs (rowid, pairs, chan) VALUES (?, ?, ?)");
      for (const [id, script, chan] of check.prepare("SELECT id, script, chan FROM fts_content ORDER BY id").raw().all() as [number, string, string][]) {
        insert.run(id, pairText(script), chan);
      }
      check.exec("DROP TABLE phrase_pairs; ALTER TABLE reference_pairs RENAME TO phrase_pairs");
      expect(pairVocabulary()).toEqual(copied);
      check.close();
    } finally {
      rmSync(copy, { force: true });
      built.cleanup();
    }
  });

  it("fails the transcript index's worker with SQLite's message when its source has no transcripts", async () => {
    const root = mkdtempSync(join(tmpdir(), "ts-build-worker-"));
    try {
      new Database(join(root, "empty.db")).close();
      const steps: string[] = [];
      const index = buildTranscriptIndex(join(root, "index.db"), join(root, "empty.db"), [], (name) => steps.push(name));
      await expect(index.done).rejects.toThrow(/no such table: src.fts_content/);
      expect(steps).toEqual([]);
      // A file it cannot even open is told by name too.
      const unopenable = buildTranscriptIndex(join(root, "missing", "index.db"), join(root, "empty.db"), [], () => {});
      await expect(unopenable.done).rejects.toThrow(/Building the transcript index failed: .*directory does not exist/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  for (const threads of [true, false]) {
    it(`fails the build with the transcript index's error when it fails ${threads ? "on its worker while the pair index is built" : "on this thread"}`, async () => {
      const root = mkdtempSync(join(tmpdir(), "ts-build-fail-"));
      try {
        await stageRecords(join(root, "staging.db"), sampleRecords());
        // Not a database: the index fails at its first statement, long before the pair index ends.
        writeFileSync(join(root, "transcripts.db.transcript-index"), "x".repeat(4096));
        await expect(
          buildDatabase(join(root, "transcripts.db"), join(root, "staging.db"), {}, undefined, undefined, threads ? { threadsFrom: 0 } : {}),
        ).rejects.toThrow(/Building the transcript index failed: file is not a database/);
        expect(readdirSync(root).sort()).toEqual(["staging.db", "transcripts.db"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }

  it("keeps no rollback journal while it builds: its files are scratch", async () => {
    const root = mkdtempSync(join(tmpdir(), "ts-build-journal-"));
    const seen = new Set<string>();
    // Each step's log line is written inside the build; the first, inside the transaction that fills the tables.
    const look = () => {
      for (const dir of readdirSync(root).filter((name) => name.startsWith(".set.partial"))) {
        for (const file of readdirSync(join(root, dir))) seen.add(file);
      }
    };
    try {
      await buildArtifacts({ records: sampleRecords(), outDir: join(root, "set"), log: look });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    expect([...seen]).toEqual(expect.arrayContaining(["staging.db", ARTIFACT_FILES.database]));
    expect([...seen].filter((file) => file.endsWith("-journal"))).toEqual([]);
  });

  it("logs each step of the database with its time, in order, the worker's with its own times", async () => {
    const lines: string[] = [];
    const root = mkdtempSync(join(tmpdir(), "ts-build-log-"));
    try {
      await buildArtifacts({ records: sampleRecords(), outDir: join(root, "set"), log: (line) => lines.push(line), threadsFrom: 0 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    const steps = lines.filter((line) => / \(\d+\.\d s\)$/.test(line)).map((line) => line.replace(/ \(.*$/, ""));
    // The worker thread's steps come with its own times, between this thread's steps as they happen to end.
    const second = ", on a second thread";
    expect(steps.filter((step) => !step.endsWith(second))).toEqual([
      "database: tables in popularity order",
      "database: phrase-pair index",
      "database: waited for the transcript index",
      "database: indexes copied into the database",
      "database: term counts",
      "database: statistics for the query planner",
    ]);
    expect(steps.filter((step) => step.endsWith(second))).toEqual([
      `database: transcript index${second}`,
      `database: transcript index merged${second}`,
      `database: term statistics${second}`,
      `database: word bitmaps${second}`,
    ]);
    expect(steps.indexOf(`database: word bitmaps${second}`)).toBeLessThan(steps.indexOf("database: waited for the transcript index"));
  });

  it("builds a small set's indexes on this thread, one after the other, into the same set as the worker threads build", async () => {
    const lines: string[] = [];
    const root = mkdtempSync(join(tmpdir(), "ts-build-here-"));
    try {
      await buildArtifacts({ records: sampleRecords(), outDir: join(root, "here"), log: (line) => lines.push(line) });
      await buildArtifacts({ records: sampleRecords(), outDir: join(root, "threads"), threadsFrom: 0 });
      const steps = lines.filter((line) => / \(\d+\.\d s\)$/.test(line)).map((line) => line.replace(/ \(.*$/, ""));
      expect(steps).toEqual([
        "database: tables in popularity order",
        "database: transcript index",
        "database: transcript index merged",
        "database: term statistics",
        "database: word bitmaps",
        "database: phrase-pair index",
        "database: waited for the transcript index",
        "database: indexes copied into the database",
        "database: term counts",
        "database: statistics for the query planner",
      ]);
      // Every table but meta (which holds the build time), row for row.
      const dump = (dir: string) => {
        const db = new Database(join(root, dir, ARTIFACT_FILES.database), { readonly: true });
        try {
          const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'meta' ORDER BY name").pluck().all() as string[];
          return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY 1`).raw().all()]));
        } finally {
          db.close();
        }
      };
      expect(dump("here")).toEqual(dump("threads"));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("merges records of the same video: later metadata wins, tracks are kept per language", async () => {
    const first = makeVideo(1, { text: "first version of the words" });
    const second = makeVideo(1, {
      title: "Renamed",
      viewCount: 5,
      transcripts: [{ language: "German", languageCode: "de", isGenerated: false, segments: segmentsOf("zweite fassung") }],
    });
    const merged = await buildTempArtifacts([first, second]);
    const db = new Database(join(merged.dir, ARTIFACT_FILES.database), { readonly: true });
    expect(db.prepare("SELECT title, view_count FROM videos").get()).toEqual({ title: "Renamed", view_count: 5 });
    expect(db.prepare("SELECT language_code FROM transcripts ORDER BY id").pluck().all()).toEqual(["en", "de"]);
    db.close();
    merged.cleanup();
  });

  it("skips records that break the contract and reports each one", async () => {
    const root = mkdtempSync(join(tmpdir(), "ts-build-"));
    const bad: unknown[] = [{ videoId: "short" }, { ...makeVideo(2), viewCount: -1 }];
    const seen: number[] = [];
    const result = await buildArtifacts({
      records: [makeVideo(1, { text: "fine" }), ...bad],
      outDir: join(root, "set"),
      onInvalid: (_error, index) => seen.push(index),
    });
    expect(result.invalidRecords).toBe(2);
    expect(seen).toEqual([1, 2]);
    expect(result.manifest.counts.videos).toBe(1);
    rmSync(root, { recursive: true, force: true });
  });

  it("leaves nothing behind when the records fail half way", async () => {
    const root = mkdtempSync(join(tmpdir(), "ts-build-"));
    async function* failing(): AsyncGenerator<VideoRecord> {
      yield makeVideo(1, { text: "one" });
      throw new Error("source broke");
    }
    await expect(buildArtifacts({ records: failing(), outDir: join(root, "set") })).rejects.toThrow("source broke");
    expect(readdirSync(root)).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  });

  it("refuses to overwrite an existing directory", async () => {
    const root = mkdtempSync(join(tmpdir(), "ts-build-"));
    mkdirSync(join(root, "set"));
    writeFileSync(join(root, "set", "keep.txt"), "precious");
    await expect(buildArtifacts({ records: [makeVideo(1, { text: "x" })], outDir: join(root, "set") })).rejects.toThrow();
    expect(readFileSync(join(root, "set", "keep.txt"), "utf8")).toBe("precious");
    expect(readdirSync(root)).toEqual(["set"]);
    rmSync(root, { recursive: true, force: true });
  });
});

describe("the manifest check", () => {
  let set: TempArtifacts;
  beforeAll(async () => {
    set = await buildTempArtifacts([makeVideo(1, { text: "hello there" })]);
  });
  afterAll(() => set.cleanup());

  function withManifest(change: (m: Record<string, unknown>) => void): string {
    const copy = mkdtempSync(join(tmpdir(), "ts-manifest-"));
    for (const name of Object.values(ARTIFACT_FILES)) writeFileSync(join(copy, name), readFileSync(join(set.dir, name)));
    const manifest = JSON.parse(readFileSync(join(copy, ARTIFACT_FILES.manifest), "utf8")) as Record<string, unknown>;
    change(manifest);
    writeFileSync(join(copy, ARTIFACT_FILES.manifest), JSON.stringify(manifest));
    return copy;
  }

  it.each([
    ["an unknown schema version", (m: Record<string, unknown>) => (m.schemaVersion = 999), /schema version 999/],
    ["an unknown options hash", (m: Record<string, unknown>) => (m.optionsHash = "0000"), /index options 0000/],
    ["a wrong file size", (m: Record<string, unknown>) => ((m.files as Record<string, { bytes: number }>)[ARTIFACT_FILES.database]!.bytes = 1), /the manifest says 1/],
    ["a malformed manifest", (m: Record<string, unknown>) => delete m.counts, /not a valid manifest/],
  ])("refuses %s with a clear message", (_name, change, message) => {
    const dir = withManifest(change);
    expect(() => readManifest(dir)).toThrow(ArtifactError);
    expect(() => readManifest(dir)).toThrow(message);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ["the phrase-pair format", "PHRASE_PAIRS_VERSION", PHRASE_PAIRS_VERSION],
    ["the word-bitmap format", "WORD_BITMAPS_VERSION", WORD_BITMAPS_VERSION],
  ])("refuses a set built with another version of %s, saying to rebuild", (_name, key, version) => {
    expect(INDEX_OPTIONS).toMatchObject({ [key]: version });
    expect(optionsHash(INDEX_OPTIONS)).toBe(OPTIONS_HASH);
    const dir = withManifest((m) => (m.optionsHash = optionsHash({ ...INDEX_OPTIONS, [key]: `${version}-other` })));
    expect(() => readManifest(dir)).toThrow(/was built with index options [0-9a-f]{16}, but this code uses [0-9a-f]{16}: rebuild the artifacts/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a set built before the pair and bitmap versions were part of the options hash", () => {
    const { FTS_TOKENIZER, TITLE_INDEX_OPTIONS, TOKENIZER_VERSION } = INDEX_OPTIONS;
    const dir = withManifest((m) => (m.optionsHash = optionsHash({ FTS_TOKENIZER, TITLE_INDEX_OPTIONS, TOKENIZER_VERSION })));
    expect(() => readManifest(dir)).toThrow(/rebuild the artifacts with this version's pipeline/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a directory without a manifest", () => {
    expect(() => readManifest(tmpdir())).toThrow(/manifest.json is missing/);
  });

  it("notices a file whose content changed", async () => {
    const dir = withManifest(() => {});
    const index = join(dir, ARTIFACT_FILES.titleIndex);
    const bytes = readFileSync(index);
    bytes[0] = bytes[0] === 0x7b ? 0x5b : 0x7b;
    writeFileSync(index, bytes);
    await expect(verifyChecksums(dir, readManifest(dir))).rejects.toThrow(/checksum/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("publishing", () => {
  it("points current at the newest build atomically and prunes old ones", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ts-publish-"));
    const builds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = newBuildDir(dataDir);
      await buildArtifacts({ records: [makeVideo(i + 1, { text: `build ${i}` })], outDir: dir });
      await publishBuild(dataDir, dir);
      builds.push(dir);
      expect(readManifest(dataDirLayout(dataDir).current).counts.videos).toBe(1);
      expect(readlinkSync(dataDirLayout(dataDir).current)).toBe(join("builds", dir.split("/").pop()!));
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(existsSync(builds[0]!)).toBe(false);
    expect(existsSync(builds[1]!)).toBe(true);
    expect(existsSync(builds[2]!)).toBe(true);
    rmSync(dataDir, { recursive: true, force: true });
  });
});
