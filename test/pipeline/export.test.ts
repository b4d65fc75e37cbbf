/**
 * `pipeline export` and `build --input DIR` as a data user and an operator
 * see them: a served set with live-fetched transcripts is exported while the
 * server runs, read by DuckDB (types, compression, counts, rows against
 * /v1/transcript), built into a new DATA_DIR and served again with the same
 * answers, for Parquet and JSON Lines. Also: a damaged shard named by
 * --verify, and SIGTERM in the middle of an export.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VideoRecord } from "../../pipeline/artifact/contract/contract.js";
import { COLUMNS, EXPORT_MANIFEST, TRANSCRIPT_TEXT_SQL, type ExportManifest } from "../../pipeline/export/dataset-schema.js";
import { exportDataset } from "../../pipeline/export/export-dataset.js";
import { verifyExport } from "../../pipeline/export/read-export.js";
import { buildAndPublish } from "../../pipeline/build/build-and-publish.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { importAndPublish, inputOf } from "../../pipeline/import/import-and-publish.js";
import { PipelineState } from "../../pipeline/state/open-state.js";
import { startStandin, type Standin } from "../../scripts/youtube-standin/server.js";
import { makeVideo, transcript } from "../youtube/helpers/records.js";
import { artifactRecords, fresh, LIVE_CHANNEL, PARTIAL_UPSTREAM, upstreamCorpus } from "../live/helpers/live-corpus.js";
import { startLiveServer, type LiveServer } from "../live/helpers/live-server.js";

const REPO = join(import.meta.dirname, "..", "..");
const OTHER_CHANNEL = "UCexportTestChannel00002";

/** Videos beyond the live corpus: several tracks, no handle, no optional fields, Unicode, one without any transcript. */
function extraRecords(): VideoRecord[] {
  return Array.from({ length: 24 }, (_, i) => {
    const id = `export${String(i).padStart(5, "0")}`;
    const base = makeVideo({
      videoId: id,
      channelId: i % 2 ? LIVE_CHANNEL : OTHER_CHANNEL,
      channelTitle: i % 2 ? "Live Test Channel" : "Zweiter Kanal – Ümlaute",
      title: `Vortrag ${i}: Brücken über Flüsse`,
      viewCount: 1000 + i * 7919,
      publishedAt: new Date(Date.UTC(2023, i % 12, 1 + i, 8, 30, 15)).toISOString(),
      lengthSeconds: 60 + i + 0.5,
      chapters: [
        { title: "Anfang", startSeconds: 0 },
        { title: "Ende", startSeconds: 30.25 },
      ],
      transcripts:
        i === 5
          ? []
          : [
              transcript("de", "German", false, [`Brücken ${i} verbinden Ufer`, "und Menschen\u00a0über\u00a0Wasser"]),
              ...(i % 3 === 0 ? [transcript("en", "English (auto-generated)", true, [`bridges ${i} connect banks`, "and people across water"])] : []),
              ...(i % 4 === 0 ? [transcript("ja", "Japanese", false, [`橋${i}は岸をつなぐ`])] : []),
            ],
    });
    if (i % 5 === 0) {
      delete base.channelHandle;
      delete base.description;
      delete base.keywords;
      delete base.category;
      delete base.chapters;
    }
    return i % 2 ? { ...base, channelHandle: "@livetest" } : base;
  });
}

let standin: Standin;
let source: LiveServer;
let sourceDir: string;
let work: string;
let duck: DuckDBInstance;
let sql: DuckDBConnection;
let liveStats: Record<string, number>;
const exported: Partial<Record<"parquet" | "jsonl", { dir: string; manifest: ExportManifest }>> = {};

async function get(server: LiveServer, path: string): Promise<any> {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { "X-API-Key": server.key } });
  expect(res.status, path).toBe(200);
  return res.json();
}

async function rows(query: string): Promise<Record<string, unknown>[]> {
  return (await sql.runAndReadAll(query)).getRowObjectsJS() as Record<string, unknown>[];
}

const cli = (args: string[], dataDir: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], { cwd: REPO, env: { ...process.env, DATA_DIR: dataDir }, encoding: "utf8" });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "export-test-"));
  sourceDir = join(work, "source");
  const state = PipelineState.open(join(sourceDir, "pipeline", "state.db"));
  try {
    await importAndPublish({ dataDir: sourceDir, state, log: () => {}, input: inputOf([...artifactRecords(), ...extraRecords()]) });
  } finally {
    state.close();
  }
  standin = await startStandin({ corpus: upstreamCorpus() });
  source = await startLiveServer({ dataDir: sourceDir, standin, runtime: { watch: false, pollMs: 0 }, env: { YOUTUBE_TIMEOUT_MS: "30000" } });
  // Live fetches the set does not hold: a new video, and an English track of a video the set has in German only.
  expect((await get(source, `/v1/transcript/${fresh(1).videoId}`)).cached).toBe(false);
  expect((await get(source, `/v1/transcript/${PARTIAL_UPSTREAM.videoId}?lang=en`)).cached).toBe(false);
  liveStats = await get(source, "/v1/stats");
  // Exported while the server serves, with those records still only in its live store; small shards, so tables span several files.
  for (const format of ["parquet", "jsonl"] as const) {
    const dir = join(work, `export-${format}`);
    exported[format] = { dir, manifest: await exportDataset({ dataDir: sourceDir, format, outDir: dir, limits: { shardRows: 7 } }) };
  }
  // Then the next build: the source serves what the pipeline builds from the same set and live store.
  const next = PipelineState.open(join(sourceDir, "pipeline", "state.db"));
  try {
    await buildAndPublish({ dataDir: sourceDir, state: next, log: () => {} });
  } finally {
    next.close();
  }
  expect(await source.runtime.reload("sighup", true)).toBe("switched");
  duck = await DuckDBInstance.create(":memory:");
  sql = await duck.connect();
}, 180_000);

afterAll(async () => {
  sql?.closeSync();
  duck?.closeSync();
  await source?.close();
  await standin?.close();
  rmSync(work, { recursive: true, force: true });
});

describe.each(["parquet", "jsonl"] as const)("export as %s", (format) => {
  const extension = format === "parquet" ? "parquet" : "jsonl.gz";
  const read = (table: string) =>
    format === "parquet"
      ? `read_parquet('${exported[format]!.dir}/${table}/*.parquet')`
      : `read_json('${exported[format]!.dir}/${table}/*.jsonl.gz', format = 'newline_delimited')`;

  it("writes shards, a dataset card and a manifest while the server serves; every file matches the manifest", async () => {
    const { dir, manifest } = exported[format]!;
    // The counts of the next build (the server's own count of a live-added track's words waits for that build: see the report).
    const stats = await get(source, "/v1/stats");
    expect({ videos: stats.videos, transcripts: stats.transcripts, channels: stats.channels }).toEqual({
      videos: liveStats.videos,
      transcripts: liveStats.transcripts,
      channels: liveStats.channels,
    });
    expect(manifest.counts).toMatchObject({ videos: stats.videos, transcripts: stats.transcripts, channels: stats.channels, totalWords: stats.totalWords });
    expect(manifest.source.liveRecords).toBe(2);
    expect(manifest.tables.transcripts.length).toBeGreaterThan(1);
    expect(manifest.tables.videos.length).toBe(Math.ceil(stats.videos / 7));
    for (const name of [...manifest.tables.transcripts, ...manifest.tables.videos]) expect(name.endsWith(`.${extension}`), name).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["README.md", "manifest.json", "transcripts", "videos"]);
    expect((await verifyExport(dir)).problems).toEqual([]);

    const card = readFileSync(join(dir, "README.md"), "utf8");
    expect(card).toContain(`build \`${manifest.source.buildId}\``);
    expect(card).toContain(`| videos | ${stats.videos} |`);
    expect(card).toMatch(/YouTube content/);
    expect(card).toMatch(/no\s+licence is claimed/);
    expect(card).toContain("| `segments` |");
    expect(card).toContain(TRANSCRIPT_TEXT_SQL);
    expect(card).toContain(`data_files: "transcripts/*.${extension}"`);
  });

  it("is read by DuckDB: every row, typed columns, counts equal to /v1/stats", async () => {
    const { manifest } = exported[format]!;
    const [counts] = await rows(`SELECT count(*) AS tracks, count(DISTINCT videoId) AS videos FROM ${read("transcripts")}`);
    expect(Number(counts!.tracks)).toBe(manifest.counts.tracks);
    const [videos] = await rows(`SELECT count(*) AS n, count(DISTINCT channelId) AS channels, count(*) FILTER (WHERE hasTranscript) AS withTranscript FROM ${read("videos")}`);
    expect(Number(videos!.n)).toBe(manifest.counts.videos);
    expect(Number(videos!.channels)).toBe(manifest.counts.channels);
    expect(Number(videos!.withTranscript)).toBe(manifest.counts.transcripts);
    const described = await rows(`DESCRIBE SELECT * FROM ${read("transcripts")}`);
    // Each track's text is stored once, in its segments: no column repeats it.
    expect(described.map((r) => r.column_name)).toEqual(COLUMNS.transcripts.map((c) => c.name));
    expect(described.map((r) => r.column_name)).not.toContain("text");
    if (format !== "parquet") return;
    const types = Object.fromEntries(described.map((r) => [r.column_name, r.column_type]));
    expect(types).toMatchObject({
      publishedAt: "TIMESTAMP WITH TIME ZONE",
      viewCount: "BIGINT",
      wordCount: "BIGINT",
      isGenerated: "BOOLEAN",
      duration: "DOUBLE",
      segments: 'STRUCT("start" DOUBLE, duration DOUBLE, "text" VARCHAR)[]',
    });
    const videoTypes = Object.fromEntries((await rows(`DESCRIBE SELECT * FROM ${read("videos")}`)).map((r) => [r.column_name, r.column_type]));
    expect(videoTypes).toMatchObject({ publishedAt: "TIMESTAMP WITH TIME ZONE", viewCount: "BIGINT", keywords: "VARCHAR[]" });
    const compression = await rows(`SELECT DISTINCT compression FROM parquet_metadata('${exported[format]!.dir}/*/*.parquet')`);
    expect(compression.map((r) => r.compression)).toEqual(["ZSTD"]);
    const [utc] = await rows(
      `SELECT logical_type FROM parquet_schema('${exported[format]!.dir}/transcripts/transcripts-00000.parquet') WHERE name = 'publishedAt'`,
    );
    expect(String(utc!.logical_type)).toMatch(/isAdjustedToUTC=1|isAdjustedToUTC=true/i);
  });

  it("holds what /v1/transcript answers, live-fetched transcripts among them", async () => {
    // The track's text as the docs and the dataset card say to get it.
    const all = await rows(`SELECT videoId, title, channelId, channelTitle, viewCount, publishedAt::VARCHAR AS publishedAt, languageCode, language,
      isGenerated, wordCount, duration, ${TRANSCRIPT_TEXT_SQL} AS text, segments FROM ${read("transcripts")}`);
    expect(all.some((r) => r.videoId === fresh(1).videoId)).toBe(true);
    expect(all.filter((r) => r.videoId === PARTIAL_UPSTREAM.videoId).map((r) => r.languageCode).sort()).toEqual(["de", "en"]);
    for (const row of all) {
      const body = await get(source, `/v1/transcript/${String(row.videoId)}?lang=${String(row.languageCode)}`);
      expect(body.cached, `${String(row.videoId)} ${String(row.languageCode)}`).toBe(true);
      expect({ videoId: row.videoId, title: row.title, channelId: row.channelId, channelTitle: row.channelTitle, viewCount: Number(row.viewCount) }).toEqual({
        videoId: body.videoId,
        title: body.title,
        channelId: body.channelId,
        channelTitle: body.channelTitle,
        viewCount: body.viewCount,
      });
      expect(new Date(String(row.publishedAt).replace(" ", "T").replace(/\+00$/, "Z")).getTime()).toBe(new Date(body.publishedAt).getTime());
      const t = body.transcript;
      expect({ text: row.text, language: row.language, isGenerated: row.isGenerated, wordCount: Number(row.wordCount), duration: row.duration }).toEqual({
        text: t.script,
        language: t.language,
        isGenerated: t.isGenerated,
        wordCount: t.wordCount,
        duration: t.duration,
      });
      const segments = row.segments as { start: number; duration: number; text: string }[];
      expect(segments.map((s) => [Number(s.start), Number(s.duration), s.text])).toEqual(t.subs.map((s: any) => [Number(s.offset), Number(s.duration), s.text]));
    }
  });

  it("builds and serves a set with the same transcripts, segments, metadata and /v1/stats", async () => {
    const { dir, manifest } = exported[format]!;
    const target = join(work, `import-${format}`);
    const built = cli(["build", "--input", dir], target);
    expect(built.status, built.stderr).toBe(EXIT.ok);
    expect(built.stderr).toContain(`an export of ${manifest.counts.videos} videos (${format}`);
    const copy = await startLiveServer({ dataDir: target, standin, runtime: { watch: false, pollMs: 0 } });
    try {
      expect(await get(copy, "/v1/stats")).toEqual(await get(source, "/v1/stats"));
      const strip = ({ debug, timing, ...rest }: any) => rest;
      const tracks = await rows(`SELECT videoId, languageCode FROM ${read("transcripts")}`);
      for (const { videoId, languageCode } of tracks) {
        const path = `/v1/transcript/${String(videoId)}?lang=${String(languageCode)}&includeMetadata=true`;
        expect(strip(await get(copy, path)), path).toEqual(strip(await get(source, path)));
      }
      for (const channel of [LIVE_CHANNEL, OTHER_CHANNEL]) {
        const path = `/v1/channels/${channel}/videos?limit=100`;
        expect(await get(copy, path), path).toEqual(await get(source, path));
      }
      // Exported again, the new set gives the same rows, field by field.
      const again = join(work, `again-${format}`);
      const second = await exportDataset({ dataDir: target, format, outDir: again, limits: { shardRows: 7 } });
      expect(second.counts).toEqual(manifest.counts);
      for (const table of ["transcripts", "videos"]) {
        const other = format === "parquet" ? `read_parquet('${again}/${table}/*.parquet')` : `read_json('${again}/${table}/*.jsonl.gz', format = 'newline_delimited')`;
        const [difference] = await rows(
          `SELECT (SELECT count(*) FROM (SELECT * FROM ${read(table)} EXCEPT ALL SELECT * FROM ${other})) +
                  (SELECT count(*) FROM (SELECT * FROM ${other} EXCEPT ALL SELECT * FROM ${read(table)})) AS n`,
        );
        expect(Number(difference!.n), table).toBe(0);
      }
    } finally {
      await copy.close();
    }
  }, 120_000);
});

describe("export --verify", () => {
  it("names the damaged shard and exits non-zero; a whole export passes", () => {
    const dir = join(work, "damaged");
    const copy = spawnSync("cp", ["-r", exported.parquet!.dir, dir]);
    expect(copy.status).toBe(0);
    expect(cli(["export", "--verify", dir], sourceDir).status).toBe(EXIT.ok);
    const shard = exported.parquet!.manifest.tables.transcripts[1]!;
    const path = join(dir, shard);
    const bytes = readFileSync(path);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0xff;
    writeFileSync(path, bytes);
    const verified = cli(["export", "--verify", dir], sourceDir);
    expect(verified.status).toBe(EXIT.failed);
    expect(verified.stderr).toContain(`${shard}: its SHA-256 differs from the manifest's`);
    expect(verified.stderr).toContain("1 of");
  });

  it("refuses a folder without a manifest, for --verify and for build --input", () => {
    const dir = join(work, "not-an-export");
    rmSync(dir, { recursive: true, force: true });
    spawnSync("mkdir", ["-p", dir]);
    const verified = cli(["export", "--verify", dir], sourceDir);
    expect(verified.status).toBe(EXIT.failed);
    expect(verified.stderr).toMatch(/is not a whole export: manifest\.json is missing/);
    const built = cli(["build", "--input", dir], join(work, "never-built"));
    expect(built.status).toBe(EXIT.failed);
    expect(built.stderr).toMatch(/is not a whole export/);
  });
});

describe("SIGTERM during an export", () => {
  it("stops with exit 130, no manifest, and no partial file under a final name", async () => {
    const dir = join(work, "interrupted");
    // One row a shard: hundreds of files, so the signal lands in the middle.
    const child = spawn(process.execPath, ["--import", "tsx", "pipeline/cli.ts", "export", "--format", "parquet", "--out", dir, "--shard-rows", "1"], {
      cwd: REPO,
      env: { ...process.env, DATA_DIR: sourceDir },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const shardsOf = () => (existsSync(join(dir, "transcripts")) ? readdirSync(join(dir, "transcripts")).filter((n) => !n.startsWith(".")) : []);
    const deadline = Date.now() + 60_000;
    while (shardsOf().length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(shardsOf().length, stderr).toBeGreaterThanOrEqual(3);
    child.kill("SIGTERM");
    expect(await exited, stderr).toBe(EXIT.interrupted);
    expect(stderr).toMatch(/SIGTERM: stopping the export/);
    expect(stderr).toMatch(/is incomplete \(it has no manifest\.json\)/);
    expect(existsSync(join(dir, EXPORT_MANIFEST))).toBe(false);
    const left: string[] = [];
    for (const entry of readdirSync(dir, { recursive: true }) as string[]) if (statSync(join(dir, entry)).isFile()) left.push(entry);
    // Only whole shards: no temporaries, no scratch files, and each final-named file reads to its end.
    expect(left.filter((name) => name.split("/").pop()!.startsWith("."))).toEqual([]);
    expect(left.length).toBeGreaterThan(0);
    for (const name of left) {
      const [count] = await rows(`SELECT count(*) AS n FROM read_parquet('${join(dir, name)}')`);
      expect(Number(count!.n), name).toBe(1);
    }
  }, 90_000);
});
