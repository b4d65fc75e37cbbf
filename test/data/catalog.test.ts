import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { CHANNEL_A, CHANNEL_B, sampleRecords, videoId } from "../helpers/records.js";

describe("the artifact catalog", () => {
  let set: TempArtifacts;
  let catalog: ArtifactCatalog;
  beforeAll(async () => {
    set = await buildTempArtifacts(sampleRecords());
    catalog = openCatalog({ dir: set.dir });
  });
  afterAll(() => {
    catalog.close();
    set.cleanup();
  });

  it("serves the manual track over the auto-generated one in the same language", () => {
    const lookup = catalog.getTranscript(videoId(7), "en");
    if (lookup.kind !== "found") throw new Error(`expected found, got ${lookup.kind}`);
    expect(lookup.stored.transcript).toMatchObject({ language: "English", languageCode: "en", isGenerated: false, wordCount: 8 });
    expect(lookup.stored.transcript.script).toBe("manual words about energy in plants and sunlight");
    expect(lookup.stored.video.chapters).toEqual([
      { title: "Intro", startSeconds: 0 },
      { title: "Light", startSeconds: 120 },
    ]);
  });

  it("slices the timed segments back out exactly, with string offsets and durations", () => {
    const lookup = catalog.getTranscript(videoId(1), "EN");
    if (lookup.kind !== "found") throw new Error(`expected found, got ${lookup.kind}`);
    const { subs, script, duration } = lookup.stored.transcript;
    expect(subs[0]).toEqual({ text: "the river flows past the old", offset: "0", duration: "2.5" });
    expect(subs[1]).toEqual({ text: "mill and the river keeps flowing", offset: "2.5", duration: "2.5" });
    expect(subs.map((s) => s.text).join(" ")).toBe(script);
    expect(duration).toBe(7.5);
  });

  it("tells a missing language, a video without transcript and an unknown video apart", () => {
    expect(catalog.getTranscript(videoId(6), "en")).toMatchObject({ kind: "other-languages", languages: ["de"] });
    expect(catalog.getTranscript(videoId(7), "fr")).toMatchObject({ kind: "other-languages", languages: ["en", "es"] });
    expect(catalog.getTranscript(videoId(5), "en")).toMatchObject({ kind: "no-transcript" });
    expect(catalog.getTranscript("zzzzzzzzzzz", "en")).toEqual({ kind: "unknown" });
  });

  it("lists a channel's videos newest first, with and without transcripts", () => {
    const first = catalog.channelVideos(CHANNEL_A, 2, 0)!;
    expect(first.total).toBe(5);
    expect(first.channelTitle).toBe("Alpha Lectures");
    expect(first.items.map((v) => v.videoId)).toEqual([videoId(5), videoId(4)]);
    expect(first.items[0]).toEqual({
      videoId: videoId(5),
      title: "Silent film without captions",
      viewCount: 5000,
      publishedAt: "2020-01-06T00:00:00.000Z",
      hasTranscript: false,
      transcript: null,
    });
    expect(first.items[1]!.transcript).toEqual({ languageCode: "en", wordCount: 9, isGenerated: false });
    expect(catalog.channelVideos(CHANNEL_A, 10, 4)!.items.map((v) => v.videoId)).toEqual([videoId(1)]);
    expect(catalog.channelVideos(CHANNEL_A, 10, 99)!.items).toEqual([]);
    expect(catalog.channelVideos(CHANNEL_B, 10, 0)!.items[1]!.transcript).toEqual({ languageCode: "de", wordCount: 6, isGenerated: false });
    expect(catalog.channelVideos("UCzzzzzzzzzzzzzzzzzzzzzz", 10, 0)).toBeUndefined();
  });

  it("reports the build-time counts", () => {
    // Words with a letter or digit: the lone "&" of video 4 is not one.
    const totalWords = 15 + 12 + 14 + 9 + 6 + 8;
    expect(catalog.stats()).toEqual({ videos: 7, transcripts: 6, totalWords, avgWordsPerTranscript: Math.round(totalWords / 6), channels: 2, transcriptsWithVectors: 0 });
  });
});

describe("opening an artifact set", () => {
  it("refuses a set built by other code, naming what to do, and opens nothing", async () => {
    const { mkdtempSync, readFileSync, writeFileSync, copyFileSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { ArtifactError } = await import("../../server/artifact-set/artifact-catalog.js");
    const set = await buildTempArtifacts(sampleRecords());
    const copy = mkdtempSync(join(tmpdir(), "ts-refuse-"));
    for (const name of ["transcripts.db", "titles.flexsearch.json", "manifest.json"]) copyFileSync(join(set.dir, name), join(copy, name));
    const manifest = JSON.parse(readFileSync(join(copy, "manifest.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(copy, "manifest.json"), JSON.stringify({ ...manifest, optionsHash: "ffffffffffffffff" }));
    expect(() => openCatalog({ dir: copy })).toThrow(ArtifactError);
    expect(() => openCatalog({ dir: copy })).toThrow(/rebuild the artifacts/);
    // A database from another build under an otherwise valid manifest is refused too.
    writeFileSync(join(copy, "manifest.json"), JSON.stringify({ ...manifest, builtAt: "2000-01-01T00:00:00.000Z" }));
    expect(() => openCatalog({ dir: copy })).toThrow(/does not belong to this manifest/);
    rmSync(copy, { recursive: true, force: true });
    set.cleanup();
  });
});

describe("the artifact database's connections", () => {
  it("keep their read lock from the first read to close: other readers read beside them, a writer waits until every one closes", async () => {
    const { join } = await import("node:path");
    const { default: Database } = await import("better-sqlite3");
    const { openArtifactDatabase } = await import("../../server/data/artifact-database.js");
    const set = await buildTempArtifacts(sampleRecords());
    const file = join(set.dir, "transcripts.db");
    const writer = new Database(file, { timeout: 0 });
    const tryWrite = () => {
      writer.exec("BEGIN EXCLUSIVE");
      writer.exec("ROLLBACK");
    };
    try {
      const first = openArtifactDatabase(file);
      const second = openArtifactDatabase(file);
      const count = (db: typeof first) => db.prepare("SELECT count(*) FROM videos").pluck().get();
      expect(count(first)).toBe(7);
      expect(count(second)).toBe(7);
      // Between statements each still holds its lock: a writer cannot take the file.
      expect(tryWrite).toThrow(/database is locked/);
      first.close();
      expect(tryWrite).toThrow(/database is locked/);
      second.close();
      expect(tryWrite).not.toThrow();

      // The catalog's connections, with the search memory's index connection beside the main one.
      const catalog = openCatalog({ dir: set.dir, indexBytes: 64 * 2 ** 20 });
      const other = openCatalog({ dir: set.dir });
      try {
        await catalog.warm();
        expect(catalog.search({ q: "river", limit: 5, offset: 0 }).results.length).toBeGreaterThan(0);
        expect(other.search({ q: "river", limit: 5, offset: 0 }).results.length).toBeGreaterThan(0);
        expect(tryWrite).toThrow(/database is locked/);
      } finally {
        catalog.close();
        other.close();
      }
      expect(tryWrite).not.toThrow();
    } finally {
      writer.close();
      set.cleanup();
    }
  });
});
