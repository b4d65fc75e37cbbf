/**
 * Writes one table of an export as shards. A shard is written under a hidden
 * temporary name, flushed to disk (fsync) and only then renamed to its final
 * name, so a file under a final name is always whole; an interrupted export
 * leaves only temporaries, which `abort` removes.
 *
 * JSON Lines: one JSON object a line, gzip-compressed as it is written.
 * Parquet: the same lines, uncompressed, turned into a Parquet file by DuckDB
 * (`ParquetWriter`).
 */
import { createWriteStream, fsyncSync, openSync, closeSync, type WriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { once } from "node:events";
import { createGzip, type Gzip } from "node:zlib";
import type { DuckDBConnection } from "@duckdb/node-api";
import { sha256File } from "../artifact/manifest/index.js";
import { COLUMNS, shardName, type ExportFormat, type Row, type TableName } from "./dataset-schema.js";

export interface ShardLimits {
  /** A shard is closed once its rows' estimated uncompressed size reaches this many bytes. */
  shardBytes: number;
  /** … or once it holds this many rows. */
  shardRows: number;
  /**
   * Target size of a Parquet row group, estimated uncompressed. DuckDB holds
   * a whole row group in memory (several times its text) while it writes it,
   * so this bounds the writer's memory; zstd then makes it a fraction of this on disk.
   */
  rowGroupBytes: number;
  /** Most rows in a Parquet row group. */
  rowGroupRows: number;
}

export const DEFAULT_LIMITS: ShardLimits = {
  shardBytes: 1 << 30,
  shardRows: 1_000_000,
  rowGroupBytes: 32 << 20,
  rowGroupRows: 100_000,
};

export interface ShardFile {
  /** Relative to the export folder. */
  name: string;
  table: TableName;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface TableWriter {
  /** Adds a row; `bytes` is its estimated uncompressed size. */
  add(row: Row, bytes: number): Promise<void>;
  /** Writes the last shard; returns every shard written. */
  finish(): Promise<ShardFile[]>;
  /** Removes the temporary file of the shard being written. */
  abort(): Promise<void>;
}

/** Flushes a written file to disk, then gives it its final name. */
async function commitFile(temporary: string, final: string): Promise<void> {
  const fd = openSync(temporary, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  await rename(temporary, final);
}

function temporaryName(path: string): string {
  return join(dirname(path), `.${path.slice(dirname(path).length + 1)}.partial-${process.pid}`);
}

async function describe(outDir: string, name: string, table: TableName, rows: number): Promise<ShardFile> {
  const path = join(outDir, name);
  return { name, table, rows, bytes: (await stat(path)).size, sha256: await sha256File(path) };
}

/** Common bookkeeping: which shard, how full, when to roll over. */
abstract class ShardedWriter implements TableWriter {
  protected shards: ShardFile[] = [];
  protected rows = 0;
  protected bytes = 0;
  protected temporary: string | undefined;

  constructor(
    protected readonly outDir: string,
    protected readonly table: TableName,
    protected readonly format: ExportFormat,
    protected readonly limits: ShardLimits,
  ) {}

  protected get finalPath(): string {
    return join(this.outDir, shardName(this.table, this.shards.length, this.format));
  }

  async add(row: Row, bytes: number): Promise<void> {
    if (this.temporary === undefined) {
      await mkdir(dirname(this.finalPath), { recursive: true });
      this.temporary = temporaryName(this.finalPath);
      await this.open(this.temporary);
    }
    await this.write(row);
    this.rows++;
    this.bytes += bytes;
    if (this.bytes >= this.limits.shardBytes || this.rows >= this.limits.shardRows) await this.closeShard();
  }

  async finish(): Promise<ShardFile[]> {
    // A table with no rows still gets one (empty) shard: readers find its columns.
    if (this.temporary === undefined && this.shards.length === 0) {
      await mkdir(dirname(this.finalPath), { recursive: true });
      this.temporary = temporaryName(this.finalPath);
      await this.open(this.temporary);
    }
    if (this.temporary !== undefined) await this.closeShard();
    return this.shards;
  }

  async abort(): Promise<void> {
    await this.discard();
    if (this.temporary !== undefined) await rm(this.temporary, { force: true });
    this.temporary = undefined;
  }

  private async closeShard(): Promise<void> {
    const final = this.finalPath;
    await this.close(this.temporary!);
    await commitFile(this.temporary!, final);
    this.temporary = undefined;
    this.shards.push(await describe(this.outDir, final.slice(this.outDir.length + 1), this.table, this.rows));
    this.rows = 0;
    this.bytes = 0;
  }

  protected abstract open(temporary: string): Promise<void>;
  protected abstract write(row: Row): Promise<void>;
  /** Writes out and closes the shard in `temporary` (not yet flushed to disk). */
  protected abstract close(temporary: string): Promise<void>;
  protected abstract discard(): Promise<void>;
}

const quote = (name: string) => `"${name}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** One JSON object a line, in the table's column order, written to a file as it comes (gzip-compressed when asked). */
class LineWriter extends ShardedWriter {
  #gzip: Gzip | undefined;
  #file: WriteStream | undefined;
  protected gzip = true;
  /** Bytes of the shard's longest line so far. */
  protected longestLine = 0;

  /** Where the lines of the shard in `temporary` go. */
  protected linesPath(temporary: string): string {
    return temporary;
  }

  protected async open(temporary: string): Promise<void> {
    this.longestLine = 0;
    this.#file = createWriteStream(this.linesPath(temporary));
    if (this.gzip) {
      this.#gzip = createGzip();
      this.#gzip.pipe(this.#file);
    }
  }

  protected async write(row: Row): Promise<void> {
    const ordered: Row = {};
    for (const column of COLUMNS[this.table]) ordered[column.name] = row[column.name] ?? null;
    const stream = this.#gzip ?? this.#file!;
    const line = `${JSON.stringify(ordered)}\n`;
    this.longestLine = Math.max(this.longestLine, Buffer.byteLength(line));
    if (!stream.write(line)) await once(stream, "drain");
  }

  protected async close(_temporary: string): Promise<void> {
    const file = this.#file!;
    const closed = once(file, "close");
    (this.#gzip ?? file).end();
    await closed;
    this.#gzip = undefined;
    this.#file = undefined;
  }

  protected async discard(): Promise<void> {
    if (!this.#file) return;
    const closed = once(this.#file, "close");
    this.#gzip?.unpipe();
    this.#gzip?.destroy();
    this.#file.destroy();
    await closed.catch(() => {});
    this.#gzip = undefined;
    this.#file = undefined;
  }
}

/**
 * Parquet: a shard's rows are first written as plain JSON Lines beside it,
 * then DuckDB reads them with the table's column types and writes the
 * Parquet file (zstd at ZSTD_LEVEL, row groups sized to the rows' average size) as it
 * reads, with capped memory. DuckDB's reader turns a few large writes into
 * typed columns several times faster than appending values one at a time.
 */
class ParquetWriter extends LineWriter {
  protected override gzip = false;

  constructor(
    outDir: string,
    table: TableName,
    limits: ShardLimits,
    private readonly connection: DuckDBConnection,
  ) {
    super(outDir, table, "parquet", limits);
  }

  protected override linesPath(temporary: string): string {
    return `${temporary}.jsonl`;
  }

  protected override async close(temporary: string): Promise<void> {
    await super.close(temporary);
    const lines = this.linesPath(temporary);
    const average = this.rows > 0 ? this.bytes / this.rows : 1;
    const groupRows = Math.max(1024, Math.min(this.limits.rowGroupRows, Math.floor(this.limits.rowGroupBytes / Math.max(1, average))));
    const columns = COLUMNS[this.table].map((c) => `${quote(c.name)}: ${literal(c.sql)}`).join(", ");
    try {
      await this.connection.run(
        `COPY (SELECT * FROM read_json(${literal(lines)}, format = 'newline_delimited', columns = {${columns}},
                 maximum_object_size = ${Math.max(MAX_ROW_BYTES, this.longestLine + 1)}))
         TO ${literal(temporary)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${ZSTD_LEVEL}, ROW_GROUP_SIZE ${groupRows})`,
      );
    } finally {
      await rm(lines, { force: true });
    }
  }

  override async abort(): Promise<void> {
    if (this.temporary !== undefined) await rm(this.linesPath(this.temporary), { force: true });
    await super.abort();
  }
}

/**
 * zstd level of the Parquet files. The segments' texts are most of the bytes:
 * 9 makes them about an eighth smaller than DuckDB's default 3 for about a
 * third more compression time, and decompression is as fast at any level;
 * past 9 the time grows faster than the files shrink.
 */
const ZSTD_LEVEL = 9;

/**
 * The largest row DuckDB reads back unless the shard holds a longer one (a
 * transcript of many hours is a few megabytes); its read buffers are a small
 * multiple of it, so a shard with a longer row raises it to that row's size.
 */
const MAX_ROW_BYTES = 32 << 20;

export function tableWriter(format: ExportFormat, outDir: string, table: TableName, limits: ShardLimits, connection?: DuckDBConnection): TableWriter {
  if (format === "jsonl") return new LineWriter(outDir, table, "jsonl", limits);
  return new ParquetWriter(outDir, table, limits, connection!);
}
