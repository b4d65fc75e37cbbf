/**
 * Reading an export folder back: its manifest, a check of every file against
 * it (`export --verify`), and its rows as VideoRecords for `build --input`.
 *
 * The records stream: each table is read shard by shard, line by line, and a video's
 * transcript rows are joined to its `videos` row as both go by, which works
 * because an export writes both tables in one video order. Rows in another
 * order are refused with the row that broke it.
 *
 * Exports of version 1 are read too: their transcripts rows also hold a
 * `text` column, the segments' texts joined, which the records are not built
 * from (a track is its segments), so both versions give the same records.
 */
import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { VideoRecord } from "../artifact/contract.js";
import { sha256File } from "../artifact/manifest.js";
import { readJsonl } from "../read-jsonl.js";
import { EXPORT_MANIFEST, ExportManifest, type TableName } from "./dataset-schema.js";

export class ExportReadError extends Error {
  override name = "ExportReadError";
}

export function readExportManifest(dir: string): ExportManifest {
  const path = join(dir, EXPORT_MANIFEST);
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch {
    throw new ExportReadError(`${dir} is not a whole export: ${EXPORT_MANIFEST} is missing (an export writes it last)`);
  }
  const parsed = ExportManifest.safeParse((() => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return undefined;
    }
  })());
  if (!parsed.success) throw new ExportReadError(`${path} is not an export manifest of this version`);
  return parsed.data;
}

export interface VerifyProblem {
  file: string;
  problem: string;
}

/** Every file of the manifest checked (bytes, SHA-256), and no shard left out of it; the problems found, per file. */
export async function verifyExport(dir: string): Promise<{ manifest: ExportManifest; problems: VerifyProblem[] }> {
  const manifest = readExportManifest(dir);
  const problems: VerifyProblem[] = [];
  for (const [name, expected] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    let bytes: number;
    try {
      bytes = statSync(path).size;
    } catch {
      problems.push({ file: name, problem: "missing" });
      continue;
    }
    if (bytes !== expected.bytes) problems.push({ file: name, problem: `${bytes} bytes, the manifest says ${expected.bytes}` });
    else if ((await sha256File(path)) !== expected.sha256) problems.push({ file: name, problem: "its SHA-256 differs from the manifest's" });
  }
  for (const table of ["transcripts", "videos"] as const) {
    for (const shard of manifest.tables[table]) if (!manifest.files[shard]) problems.push({ file: shard, problem: "a shard the manifest's files do not list" });
  }
  return { manifest, problems };
}

type Row = Record<string, unknown>;

/**
 * The rows of one table, shard by shard in the manifest's order. A Parquet
 * shard is first turned into JSON Lines in a temporary folder by DuckDB
 * (timestamps as epoch milliseconds), then read line by line like a JSON
 * Lines export: DuckDB's result chunks, read into JavaScript, are native
 * memory the garbage collector does not see, and piled up to several times
 * the memory of this path.
 */
async function* tableRows(dir: string, manifest: ExportManifest, table: TableName): AsyncGenerator<Row> {
  const shards = manifest.tables[table].map((name) => join(dir, name));
  if (manifest.dataFormat === "jsonl") {
    for (const shard of shards) yield* readJsonl(shard) as AsyncGenerator<Row>;
    return;
  }
  // Loaded only here: commands that read no Parquet do not load DuckDB's native library.
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const scratch = await mkdtemp(join(tmpdir(), "export-read-"));
  const instance = await DuckDBInstance.create(":memory:", { memory_limit: "1GB", threads: "1", temp_directory: join(scratch, "spill") });
  const connection = await instance.connect();
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  try {
    for (const shard of shards) {
      const lines = join(scratch, `${table}.jsonl`);
      await connection.run(
        `COPY (SELECT * REPLACE (epoch_ms(publishedAt) AS publishedAt) FROM read_parquet(${literal(shard)})) TO ${literal(lines)} (FORMAT json)`,
      );
      yield* readJsonl(lines) as AsyncGenerator<Row>;
      await rm(lines, { force: true });
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(scratch, { recursive: true, force: true });
  }
}

const text = (value: unknown) => (value === null || value === undefined ? undefined : String(value));
const number = (value: unknown) => (typeof value === "bigint" ? Number(value) : (value as number));
/** A timestamp column: epoch milliseconds from Parquet (as read above), an ISO string from JSON Lines. */
const timestamp = (value: unknown) => new Date(typeof value === "number" ? value : String(value)).toISOString();

function videoRecord(row: Row, transcripts: Row[]): VideoRecord {
  const optional = (key: string, value: unknown) => (value === null || value === undefined ? {} : { [key]: value });
  return {
    videoId: String(row.videoId),
    channelId: String(row.channelId),
    channelTitle: String(row.channelTitle),
    ...optional("channelHandle", text(row.channelHandle)),
    title: String(row.title),
    viewCount: number(row.viewCount),
    publishedAt: timestamp(row.publishedAt),
    thumbnail: String(row.thumbnail),
    lengthSeconds: number(row.lengthSeconds),
    ...optional("description", text(row.description)),
    ...optional("chapters", row.chapters),
    ...optional("keywords", row.keywords),
    ...optional("category", text(row.category)),
    transcripts: transcripts.map((t) => ({
      language: String(t.language),
      languageCode: String(t.languageCode),
      isGenerated: Boolean(t.isGenerated),
      segments: (t.segments as Row[]).map((s) => ({ start: number(s.start), duration: number(s.duration), text: String(s.text) })),
    })),
  } as VideoRecord;
}

/** The export in `dir` as VideoRecords, one per `videos` row with its transcript rows. Reads the manifest first. */
export async function* exportRecords(dir: string): AsyncGenerator<VideoRecord> {
  const manifest = readExportManifest(dir);
  const transcripts = tableRows(dir, manifest, "transcripts");
  let pending = await transcripts.next();
  try {
    for await (const video of tableRows(dir, manifest, "videos")) {
      const own: Row[] = [];
      const expected = Array.isArray(video.tracks) ? video.tracks.length : 0;
      while (!pending.done && pending.value.videoId === video.videoId) {
        own.push(pending.value);
        pending = await transcripts.next();
      }
      if (own.length !== expected) {
        throw new ExportReadError(
          `${dir}: video ${String(video.videoId)} lists ${expected} tracks, but ${own.length} transcript rows follow it in order; ` +
            "both tables must list videos in one order, as an export writes them",
        );
      }
      yield videoRecord(video, own);
    }
    if (!pending.done) {
      throw new ExportReadError(`${dir}: a transcripts row of video ${String(pending.value.videoId)} has no videos row in the same order`);
    }
  } finally {
    await transcripts.return(undefined);
  }
}
