/**
 * `pipeline export`: an artifact set (the published one, or a named one in
 * builds/) plus the live store's newer records → a dataset folder of Parquet
 * or JSON Lines shards, a dataset card and a manifest (dataset-schema.ts).
 *
 * Streams: videos are read one at a time and written in batches, so memory
 * does not grow with the set. Aborting `signal` (SIGTERM) stops it between
 * batches; the shard being written is removed, and no manifest is written, so
 * the folder is plainly incomplete and holds no partial file under a final name.
 */
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import type { Manifest } from "../artifact/contract/index.js";
import { dataDirLayout } from "../artifact/layout/index.js";
import { ArtifactError, readManifest, sha256File } from "../artifact/manifest/index.js";
import { BuildInterrupted, checkpoint, throwIfInterrupted } from "../command/interrupt.js";
import { datasetCard } from "./dataset-card.js";
import {
  DATASET_CARD,
  EXPORT_KIND,
  EXPORT_MANIFEST,
  EXPORT_VERSION,
  TABLES,
  transcriptRows,
  videoRow,
  type ExportCounts,
  type ExportFormat,
  type ExportManifest,
  type TableName,
} from "./dataset-schema.js";
import { openExportSource, type ExportSource } from "./export-source.js";
import { DEFAULT_LIMITS, tableWriter, type ShardFile, type ShardLimits, type TableWriter } from "./shard-writers.js";

export interface ExportOptions {
  dataDir: string;
  format: ExportFormat;
  outDir: string;
  /** A build id in `<DATA_DIR>/builds/`; default: the published set. */
  set?: string | undefined;
  limits?: Partial<ShardLimits>;
  log?: (message: string) => void;
  signal?: AbortSignal;
  /** Seconds between progress lines (default 5). */
  progressSeconds?: number;
}

export class ExportError extends Error {
  override name = "ExportError";
}

/** Videos between two checks of the signal. */
const BATCH = 256;

function resolveSet(dataDir: string, set: string | undefined): string {
  const layout = dataDirLayout(dataDir);
  const dir = set === undefined ? layout.current : join(layout.builds, set);
  if (set !== undefined && (set.includes("/") || set.startsWith("."))) throw new ExportError(`--set takes a build id (a folder name in ${layout.builds}), not ${set}`);
  if (!existsSync(dir)) {
    throw new ExportError(set === undefined ? `${dataDir} has no published artifact set (${layout.current} is missing)` : `no build ${set} in ${layout.builds}`);
  }
  return realpathSync(dir);
}

/** Writes a small file durably under its final name. */
async function writeDurably(path: string, text: string): Promise<void> {
  const temporary = `${path}.partial-${process.pid}-${randomBytes(3).toString("hex")}`;
  writeFileSync(temporary, text);
  const fd = openSync(temporary, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  await rename(temporary, path);
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function exportDataset(options: ExportOptions): Promise<ExportManifest> {
  const log = options.log ?? (() => {});
  const limits: ShardLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const setDir = resolveSet(options.dataDir, options.set);
  const manifest = readSetManifest(setDir);
  const outDir = options.outDir;
  if (existsSync(outDir) && readdirSync(outDir).length > 0) throw new ExportError(`${outDir} is not empty: export into a new or empty folder`);
  await mkdir(outDir, { recursive: true });

  const source = openExportSource(setDir, manifest, options.dataDir);
  const scratch = join(outDir, `.scratch-${process.pid}`);
  let duck: Duck | undefined;
  const writers = {} as Record<TableName, TableWriter>;
  try {
    // Writes each shard's Parquet file; its memory is capped, and what does not fit goes to the scratch folder.
    if (options.format === "parquet") duck = await openDuck(scratch);
    for (const table of TABLES) writers[table] = tableWriter(options.format, outDir, table, limits, duck?.connection);
    log(`exporting ${source.total} videos of ${basename(setDir)} (${source.liveRecords} live-store records folded in) as ${options.format} to ${outDir}`);
    const started = performance.now();
    const counts = await writeRows({ source, writers, log, started, options });
    throwIfInterrupted(options.signal);
    const shards: Record<TableName, ShardFile[]> = { transcripts: [], videos: [] };
    for (const table of TABLES) shards[table] = await writers[table].finish();
    throwIfInterrupted(options.signal);
    closeDuck(duck);
    duck = undefined;
    await removeScratch(scratch);
    const result = await writeCardAndManifest({ outDir, format: options.format, manifest, setDir, source, counts, shards });
    const seconds = (performance.now() - started) / 1000;
    log(`exported ${counts.videos} videos, ${counts.tracks} transcripts in ${seconds.toFixed(1)} s (${Math.round(counts.videos / Math.max(seconds, 0.001))} videos/s)`);
    return result;
  } catch (error) {
    for (const writer of Object.values(writers)) await writer.abort().catch(() => {});
    try {
      closeDuck(duck);
    } catch {
      // Closing what failed: the scratch file goes next either way.
    }
    await removeScratch(scratch);
    if (options.signal?.aborted && !(error instanceof BuildInterrupted)) {
      throw new BuildInterrupted(`The export was interrupted: ${String((options.signal.reason as Error | undefined)?.message ?? options.signal.reason)}`, { cause: error });
    }
    throw error;
  } finally {
    source.close();
  }
}

function readSetManifest(setDir: string): Manifest {
  try {
    return readManifest(setDir);
  } catch (error) {
    if (error instanceof ArtifactError) throw new ExportError(error.message);
    throw error;
  }
}

/** The DuckDB that writes the Parquet shards. */
interface Duck {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
}

async function openDuck(scratch: string): Promise<Duck> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const instance = await DuckDBInstance.create(":memory:", { memory_limit: "1GB", threads: "1", preserve_insertion_order: "true", temp_directory: scratch });
  return { instance, connection: await instance.connect() };
}

function closeDuck(duck: Duck | undefined): void {
  duck?.connection.closeSync();
  duck?.instance.closeSync();
}

interface RowsInput {
  source: ExportSource;
  writers: Record<TableName, TableWriter>;
  log: (message: string) => void;
  /** performance.now() when writing began, for the rates of the progress lines. */
  started: number;
  options: ExportOptions;
}

/** Every video's row and its tracks' rows, checking the signal and saying how far it got every batch of videos. */
async function writeRows(input: RowsInput): Promise<ExportCounts> {
  const { source, writers, log, started, options } = input;
  const counts: ExportCounts = { channels: 0, videos: 0, transcripts: 0, tracks: 0, totalWords: 0 };
  const channels = new Set<string>();
  let lastReport = started;
  let written = 0;
  for (const video of source.videos()) {
    counts.videos++;
    channels.add(video.channelId);
    if (video.tracks.length > 0) {
      counts.transcripts++;
      counts.totalWords += video.tracks[0]!.wordCount;
    }
    const row = videoRow(video);
    await writers.videos.add(row, 300 + video.title.length + (video.description?.length ?? 0));
    for (const [i, row] of transcriptRows(video).entries()) {
      counts.tracks++;
      const track = video.tracks[i]!;
      const bytes = 300 + track.text.length + track.segments.length * 20;
      written += bytes;
      await writers.transcripts.add(row, bytes);
    }
    if (counts.videos % BATCH === 0) {
      await checkpoint(options.signal);
      const now = performance.now();
      if (now - lastReport >= (options.progressSeconds ?? 5) * 1000) {
        lastReport = now;
        const seconds = (now - started) / 1000;
        log(`${counts.videos}/${source.total} videos, ${counts.tracks} transcripts (${Math.round(counts.videos / seconds)} videos/s, ${(written / seconds / 1e6).toFixed(1)} MB/s of text)`);
      }
    }
  }
  counts.channels = channels.size;
  return counts;
}

interface Finished {
  outDir: string;
  format: ExportFormat;
  manifest: Manifest;
  setDir: string;
  source: ExportSource;
  counts: ExportCounts;
  shards: Record<TableName, ShardFile[]>;
}

/** The dataset card, then the manifest listing every file: last, since a folder with a manifest is a whole export. */
async function writeCardAndManifest(finished: Finished): Promise<ExportManifest> {
  const { outDir, format, manifest, source, counts, shards } = finished;
  const exportedAt = new Date().toISOString();
  const source_ = {
    dataset: manifest.dataset,
    buildId: basename(finished.setDir),
    builtAt: manifest.builtAt,
    ...(source.liveStoreId !== undefined ? { liveStoreId: source.liveStoreId } : {}),
    liveSeq: source.liveSeq,
    liveRecords: source.liveRecords,
  };
  const files: ExportManifest["files"] = {};
  for (const table of TABLES) for (const shard of shards[table]) files[shard.name] = { table, rows: shard.rows, bytes: shard.bytes, sha256: shard.sha256 };
  const partial = { format, exportedAt, source: source_, counts, shards };
  await writeDurably(join(outDir, DATASET_CARD), datasetCard(partial));
  const cardPath = join(outDir, DATASET_CARD);
  files[DATASET_CARD] = { bytes: (await stat(cardPath)).size, sha256: await sha256File(cardPath) };
  const result: ExportManifest = {
    format: EXPORT_KIND,
    version: EXPORT_VERSION,
    dataFormat: format,
    exportedAt,
    source: source_,
    counts,
    tables: { transcripts: shards.transcripts.map((s) => s.name), videos: shards.videos.map((s) => s.name) },
    files,
  };
  for (const table of TABLES) syncDirectory(join(outDir, table));
  await writeDurably(join(outDir, EXPORT_MANIFEST), JSON.stringify(result, null, 2) + "\n");
  syncDirectory(outDir);
  return result;
}

async function removeScratch(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}
