import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openCatalog, type ArtifactCatalog } from "../../server/artifact-set/artifact-catalog.js";
import { LiveStore } from "../../server/live-store/live-store.js";
import { buildTempArtifacts, type TempArtifacts } from "../helpers/artifacts.js";
import { mountTmpfs, type Tmpfs } from "../helpers/tmpfs.js";
import { CHANNEL_A, makeVideo, sampleRecords, segmentsOf, videoId } from "../helpers/records.js";

const NEW_CHANNEL = "UCcccccccccccccccccccccc";
const page = (q: string) => ({ q, limit: 20, offset: 0 });

describe("the live store beside an artifact set", () => {
  let set: TempArtifacts;
  let dir: string;
  let live: LiveStore;
  let catalog: ArtifactCatalog;
  const base = { videos: 7, transcripts: 6, totalWords: 64, channels: 2, transcriptsWithVectors: 0 };

  beforeAll(async () => {
    set = await buildTempArtifacts(sampleRecords());
    dir = mkdtempSync(join(tmpdir(), "ts-live-"));
    live = LiveStore.open(join(dir, "live.db"));
    catalog = openCatalog({ dir: set.dir, live });
  });
  afterAll(() => {
    catalog.close();
    live.close();
    set.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves and finds a newly stored video at once, and counts it", () => {
    expect(catalog.getTranscript(videoId(50), "en")).toEqual({ kind: "unknown" });
    catalog.storeLive(
      makeVideo(50, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", title: "Glaciers", viewCount: 10, text: "glaciers carve valleys slowly" }),
    );
    const lookup = catalog.getTranscript(videoId(50), "en");
    expect(lookup.kind).toBe("found");
    expect(catalog.search(page("glaciers valleys")).results.map((r) => r.videoId)).toEqual([videoId(50)]);
    expect(catalog.stats()).toEqual({ ...base, videos: 8, transcripts: 7, totalWords: 68, channels: 3, avgWordsPerTranscript: Math.round(68 / 7) });
    expect(catalog.channelVideos(NEW_CHANNEL, 10, 0)).toMatchObject({ channelTitle: "Gamma Talks", total: 1, items: [{ videoId: videoId(50) }] });
  });

  it("merges a new video of a known channel into its listing, newest first", () => {
    catalog.storeLive(makeVideo(60, { publishedAt: "2030-01-01T00:00:00Z", text: "newest upload of alpha" }));
    const listing = catalog.channelVideos(CHANNEL_A, 2, 0)!;
    expect(listing.total).toBe(6);
    expect(listing.items.map((v) => v.videoId)).toEqual([videoId(60), videoId(5)]);
    expect(catalog.channelVideos(CHANNEL_A, 2, 5)!.items.map((v) => v.videoId)).toEqual([videoId(1)]);
  });

  it("adds a language to an artifact video without listing the video twice in search", () => {
    catalog.storeLive(
      makeVideo(1, {
        transcripts: [{ language: "German", languageCode: "de", isGenerated: false, segments: segmentsOf("der fluss river auf deutsch") }],
      }),
    );
    const german = catalog.getTranscript(videoId(1), "de");
    if (german.kind !== "found") throw new Error(german.kind);
    expect(german.stored.transcript.script).toBe("der fluss river auf deutsch");
    expect(catalog.getTranscript(videoId(1), "en").kind).toBe("found");
    const ids = catalog.search(page("river")).results.map((r) => r.videoId);
    expect(ids.filter((id) => id === videoId(1))).toHaveLength(1);
    expect(catalog.getTranscript(videoId(1), "fr")).toMatchObject({ kind: "other-languages", languages: ["en", "de"] });
  });

  it("makes an artifact video without transcript searchable once one is fetched", () => {
    expect(catalog.search(page("silent")).total).toBe(0);
    const before = catalog.stats();
    catalog.storeLive(makeVideo(5, { title: "Silent film without captions", text: "a silent film after all has words" }));
    expect(catalog.search(page("silent film")).results.map((r) => r.videoId)).toEqual([videoId(5)]);
    expect(catalog.stats()).toMatchObject({ videos: before.videos, transcripts: before.transcripts + 1 });
  });

  it("replaces a video's text in the index when it is stored again", () => {
    catalog.storeLive(makeVideo(70, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", text: "original wording here" }));
    catalog.storeLive(makeVideo(70, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", text: "revised wording here" }));
    expect(catalog.search(page("original")).total).toBe(0);
    expect(catalog.search(page("revised")).results.map((r) => r.videoId)).toEqual([videoId(70)]);
    expect(catalog.search(page("wording")).total).toBe(1);
    // FTS5 throws SQLITE_CORRUPT_VTAB when the index disagrees with its content.
    expect(() => live.db.prepare("INSERT INTO transcript_fts (transcript_fts) VALUES ('integrity-check')").run()).not.toThrow();
  });

  it("keeps everything across a restart, and hands the merged records to the next build", () => {
    const countsBefore = catalog.stats();
    catalog.close();
    live.close();
    live = LiveStore.open(join(dir, "live.db"));
    catalog = openCatalog({ dir: set.dir, live });
    expect(catalog.stats()).toEqual(countsBefore);
    expect(catalog.search(page("revised")).total).toBe(1);
    expect(live.db.pragma("integrity_check", { simple: true })).toBe("ok");
    const records = [...live.records()];
    expect(records.map((r) => r.videoId)).toEqual([videoId(50), videoId(60), videoId(1), videoId(5), videoId(70)]);
    expect(records.find((r) => r.videoId === videoId(70))!.transcripts[0]!.segments[0]!.text).toBe("revised wording here");
  });

  it("rejects a record that breaks the contract and stores nothing", () => {
    const seq = live.maxSeq();
    expect(() => catalog.storeLive({ ...makeVideo(80, { text: "x" }), viewCount: -5 })).toThrow();
    expect(live.maxSeq()).toBe(seq);
    expect(catalog.getTranscript(videoId(80), "en")).toEqual({ kind: "unknown" });
  });
});

describe("folding the live store into the next build", () => {
  async function foldedSet() {
    const first = await buildTempArtifacts(sampleRecords());
    const dir = mkdtempSync(join(tmpdir(), "ts-fold-"));
    const live = LiveStore.open(join(dir, "live.db"));
    const catalog = openCatalog({ dir: first.dir, live });
    catalog.storeLive(makeVideo(90, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", text: "folded into the build" }));
    const watermark = live.maxSeq();
    // The next build reads the live records up to here...
    const next = await buildTempArtifacts([...sampleRecords(), ...live.records()]);
    // ...while one more video is fetched live.
    catalog.storeLive(makeVideo(91, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", text: "fetched during the build" }));
    catalog.close();
    return {
      live,
      watermark,
      next,
      cleanup() {
        live.close();
        first.cleanup();
        next.cleanup();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  for (const trimmed of [true, false]) {
    it(`${trimmed ? "drops" : "keeps"} what the new set contains, keeps what came after, and counts nothing twice`, async () => {
      const { live, watermark, next, cleanup } = await foldedSet();
      const catalog = openCatalog({ dir: next.dir, live, liveTrimThrough: trimmed ? watermark : 0 });
      expect([...live.records()].map((r) => r.videoId)).toEqual(trimmed ? [videoId(91)] : [videoId(90), videoId(91)]);
      expect(catalog.search(page("folded")).results.map((r) => r.videoId)).toEqual([videoId(90)]);
      expect(catalog.search(page("fetched during")).results.map((r) => r.videoId)).toEqual([videoId(91)]);
      expect(catalog.stats()).toMatchObject({ videos: 9, transcripts: 8, channels: 3 });
      expect(catalog.channelVideos(NEW_CHANNEL, 10, 0)!.items.map((v) => v.videoId)).toEqual([videoId(91), videoId(90)]);
      catalog.close();
      cleanup();
    });
  }

  it("never gives a sequence number twice, across trims and restarts", async () => {
    const { live, watermark, next, cleanup } = await foldedSet();
    const path = live.db.name;
    openCatalog({ dir: next.dir, live, liveTrimThrough: live.maxSeq() }).close();
    expect([...live.records()]).toEqual([]);
    live.close();
    const again = LiveStore.open(path);
    const catalog = openCatalog({ dir: next.dir, live: again });
    catalog.storeLive(makeVideo(92, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", text: "after the trim" }));
    expect(again.maxSeq()).toBe(watermark + 2);
    catalog.close();
    again.close();
    cleanup();
  });

  it("keeps a record queued for the shared store whatever the watermark says, until it is settled", async () => {
    const { live, next, cleanup } = await foldedSet();
    const path = live.db.name;
    // Stored while PostgreSQL was unreachable: queued with a local number the next watermark may cover.
    const queued = openCatalog({ dir: next.dir, live, liveTrimThrough: 0 });
    queued.storeLive(makeVideo(93, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", text: "queued for postgresql" }), { pending: true });
    queued.close();
    live.close();
    // Durable across a restart: the row and its place in the queue.
    const again = LiveStore.open(path);
    expect(again.pending(10).map((p) => p.record.videoId)).toEqual([videoId(93)]);
    const trimmedAll = openCatalog({ dir: next.dir, live: again, liveTrimThrough: again.maxSeq() });
    expect([...again.records()].map((r) => r.videoId)).toEqual([videoId(93)]);
    expect(trimmedAll.getTranscript(videoId(93), "en").kind).toBe("found");
    expect(trimmedAll.search(page("queued for postgresql")).results.map((r) => r.videoId)).toEqual([videoId(93)]);
    trimmedAll.close();
    // Committed there (the shared number), out of the queue: the next trim may drop it.
    const [entry] = again.pending(10);
    again.settlePending(entry!.id);
    expect(again.pendingCount()).toBe(0);
    openCatalog({ dir: next.dir, live: again, liveTrimThrough: again.maxSeq() }).close();
    expect([...again.records()]).toEqual([]);
    again.close();
    cleanup();
  });

  it("keeps one queue row per video, the newest fetch last in line", async () => {
    const { live, next, cleanup } = await foldedSet();
    const catalog = openCatalog({ dir: next.dir, live });
    catalog.storeLive(makeVideo(94, { text: "first queued" }), { pending: true });
    catalog.storeLive(makeVideo(95, { text: "second queued" }), { pending: true });
    const [before] = live.pending(1);
    catalog.storeLive(makeVideo(94, { text: "first queued again" }), { pending: true });
    expect(live.pending(10).map((p) => p.record.videoId)).toEqual([videoId(95), videoId(94)]);
    // A settle of the replaced row leaves the newer one waiting.
    live.settlePending(before!.id);
    expect(live.pendingCount()).toBe(2);
    catalog.close();
    cleanup();
  });
});

describe("a write the disk refuses", () => {
  const disk = mountTmpfs(8 * 2 ** 20);
  if (typeof disk === "string") console.log(`skipped: the full-disk live-store test: ${disk}`);
  afterAll(() => {
    if (typeof disk !== "string") disk.cleanup();
  });

  it.skipIf(typeof disk === "string")("changes nothing in memory when its commit fails: counts, titles, search and the next write stay as they were", async () => {
    const tmpfs = disk as Tmpfs;
    const set = await buildTempArtifacts(sampleRecords());
    const live = LiveStore.open(join(tmpfs.dir, "live.db"));
    const catalog = openCatalog({ dir: set.dir, live });
    try {
      catalog.storeLive(makeVideo(50, { channelId: NEW_CHANNEL, channelTitle: "Gamma Talks", title: "Glaciers", text: "glaciers carve valleys" }));
      const stats = catalog.stats();
      const generation = live.generation();
      // WAL mode writes a transaction's pages at its commit: on a full disk, the COMMIT is what fails.
      tmpfs.fill();
      const big = (i: number) =>
        makeVideo(i, { channelId: "UCdddddddddddddddddddddd", channelTitle: "Delta", title: "Wombats", text: "wombat ".repeat(20_000) });
      for (const attempt of [1, 2]) {
        expect(() => catalog.storeLive(big(51)), `attempt ${attempt}`).toThrow(expect.objectContaining({ code: "SQLITE_FULL" }));
        expect(catalog.stats()).toEqual(stats);
        expect(live.generation()).toBe(generation);
        expect(live.titles.search("wombats")).toEqual([]);
        expect(catalog.search(page("wombat")).results).toEqual([]);
      }
      tmpfs.drain();
      catalog.storeLive(big(52));
      expect(catalog.stats()).toMatchObject({ videos: stats.videos + 1, transcripts: stats.transcripts + 1, channels: stats.channels + 1 });
      expect(catalog.search(page("wombat")).results.map((r) => r.videoId)).toEqual([videoId(52)]);
    } finally {
      catalog.close();
      live.close();
      set.cleanup();
    }
  });
});
