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
import type { VideoRecord } from "../artifact/contract/index.js";
import { sha256File } from "../artifact/manifest/index.js";
import { readJsonlLines } from "../input/read-jsonl.js";
import type { InputItem } from "../input/input-item.js";
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
 * DuckDB's memory while it turns a Parquet shard into JSON Lines: its JSON
 * writer holds a row several times over, so a transcript of tens of
 * megabytes needs a few gigabytes; a cap, not a reservation.
 */
const READ_MEMORY = "4GB";

/** A row and where it is: its shard (as the manifest names it) and its number there, from 1. */
interface Located {
  row: Row;
  where: string;
}

/** A row of a shard that cannot be read as its table's row, naming the shard, the row and the column. */
class RowShapeError extends Error {
  constructor(
    readonly where: string,
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${where}: ${field}: ${rule}`);
  }
}

/** Every row of one shard's JSON Lines; a line that is not a JSON object is a RowShapeError. */
async function* shardRows(lines: string, shard: string): AsyncGenerator<Located> {
  for await (const item of readJsonlLines(lines)) {
    const where = `${shard} row ${item.line}`;
    if (item.malformed || typeof item.value !== "object" || item.value === null || Array.isArray(item.value)) throw new RowShapeError(where, "", "not a JSON object");
    yield { row: item.value as Row, where };
  }
}

/**
 * The rows of one table, shard by shard in the manifest's order. A Parquet
 * shard is first turned into JSON Lines in a temporary folder by DuckDB
 * (timestamps as epoch milliseconds), then read line by line like a JSON
 * Lines export: DuckDB's result chunks, read into JavaScript, are native
 * memory the garbage collector does not see, and piled up to several times
 * the memory of this path.
 */
async function* tableRows(dir: string, manifest: ExportManifest, table: TableName): AsyncGenerator<Located> {
  const shards = manifest.tables[table].map((name) => ({ name, path: join(dir, name) }));
  if (manifest.dataFormat === "jsonl") {
    for (const shard of shards) yield* shardRows(shard.path, shard.name);
    return;
  }
  // Loaded only here: commands that read no Parquet do not load DuckDB's native library.
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const scratch = await mkdtemp(join(tmpdir(), "export-read-"));
  const instance = await DuckDBInstance.create(":memory:", { memory_limit: READ_MEMORY, threads: "1", temp_directory: join(scratch, "spill") });
  const connection = await instance.connect();
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  try {
    for (const shard of shards) {
      const lines = join(scratch, `${table}.jsonl`);
      await connection.run(
        `COPY (SELECT * REPLACE (epoch_ms(publishedAt) AS publishedAt) FROM read_parquet(${literal(shard.path)})) TO ${literal(lines)} (FORMAT json)`,
      );
      yield* shardRows(lines, shard.name);
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

/** A list column's value, or a RowShapeError naming it. */
function list(value: unknown, where: string, column: string): Row[] {
  if (!Array.isArray(value)) throw new RowShapeError(where, column, `expected a list, got ${value === null ? "null" : typeof value}`);
  return value as Row[];
}

function videoRecord(video: Located, transcripts: Located[]): VideoRecord {
  const row = video.row;
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
    transcripts: transcripts.map(({ row: t, where }) => ({
      language: String(t.language),
      languageCode: String(t.languageCode),
      isGenerated: Boolean(t.isGenerated),
      segments: list(t.segments, where, "segments").map((s, i) => {
        if (typeof s !== "object" || s === null) throw new RowShapeError(where, `segments[${i}]`, "expected a struct of start, duration and text");
        return { start: number(s.start), duration: number(s.duration), text: String(s.text) };
      }),
    })),
  } as VideoRecord;
}

/**
 * The export in `dir` as VideoRecords, one per `videos` row with its
 * transcript rows, each with where its `videos` row is. Reads the manifest
 * first. A video whose rows cannot be read as its table's rows (a list
 * column that is not a list, a line that is not an object) comes as a
 * problem naming the shard, the row and the column; the others are checked
 * by the importer against the record schema.
 */
export async function* exportRecords(dir: string): AsyncGenerator<InputItem> {
  const manifest = readExportManifest(dir);
  const transcripts = tableRows(dir, manifest, "transcripts");
  let pending = await transcripts.next();
  try {
    for await (const video of tableRows(dir, manifest, "videos")) {
      const own: Located[] = [];
      const expected = Array.isArray(video.row.tracks) ? video.row.tracks.length : 0;
      while (!pending.done && pending.value.row.videoId === video.row.videoId) {
        own.push(pending.value);
        pending = await transcripts.next();
      }
      if (own.length !== expected) {
        throw new ExportReadError(
          `${dir}: video ${String(video.row.videoId)} (${video.where}) lists ${expected} tracks, but ${own.length} transcript rows follow it in order; ` +
            "both tables must list videos in one order, as an export writes them",
        );
      }
      try {
        yield { where: video.where, value: videoRecord(video, own) };
      } catch (error) {
        if (!(error instanceof RowShapeError)) throw error;
        yield { where: error.where, problem: { field: error.field, rule: error.rule } };
      }
    }
    if (!pending.done) {
      throw new ExportReadError(`${dir}: a transcripts row of video ${String(pending.value.row.videoId)} (${pending.value.where}) has no videos row in the same order`);
    }
  } catch (error) {
    // A row that is not an object cannot be joined to the rows around it: the export is refused, naming it.
    if (error instanceof RowShapeError) throw new ExportReadError(`${dir}: ${error.message}`);
    throw error;
  } finally {
    await transcripts.return(undefined);
  }
}
