/**
 * The export's layout on disk: a Parquet export of the generated corpus is
 * smaller than its JSON Lines export gzipped, and `build --input` still reads
 * the exports of version 1 (whose transcripts table also held the `text`
 * column) found in the wild: test/fixtures/export-v1/ are two such exports.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoCorpus } from "../../pipeline/corpus/demo.js";
import { COLUMNS, TABLES, type ExportFormat, type ExportManifest } from "../../pipeline/export/dataset-schema.js";
import { exportDataset } from "../../pipeline/export/export-dataset.js";
import { readExportManifest } from "../../pipeline/export/read-export.js";
import { EXIT } from "../../pipeline/command/exit-codes.js";
import { importAndPublish, inputOf } from "../../pipeline/import/import-and-publish.js";
import { PipelineState } from "../../pipeline/state/open-state.js";

const REPO = join(import.meta.dirname, "..", "..");
const V1 = join(REPO, "test", "fixtures", "export-v1");
/** Videos of the demo corpus exported: enough that a shard's fixed costs (footer, dictionaries) do not decide. */
const SLICE = 300;

let work: string;
let duck: DuckDBInstance;
let sql: DuckDBConnection;

const cli = (args: string[], dataDir: string) =>
  spawnSync(process.execPath, ["--import", "tsx", "pipeline/cli.ts", ...args], { cwd: REPO, env: { ...process.env, DATA_DIR: dataDir }, encoding: "utf8" });

async function rows(query: string): Promise<Record<string, unknown>[]> {
  return (await sql.runAndReadAll(query)).getRowObjectsJS() as Record<string, unknown>[];
}

function read(dir: string, format: ExportFormat, table: string): string {
  return format === "parquet" ? `read_parquet('${dir}/${table}/*.parquet')` : `read_json('${dir}/${table}/*.jsonl.gz', format = 'newline_delimited')`;
}

const tableBytes = (manifest: ExportManifest, table: string) =>
  Object.values(manifest.files).reduce((sum, file) => sum + (file.table === table ? file.bytes : 0), 0);
const totalBytes = (manifest: ExportManifest) => Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "export-layout-test-"));
  duck = await DuckDBInstance.create(":memory:");
  sql = await duck.connect();
});

afterAll(() => {
  sql?.closeSync();
  duck?.closeSync();
  rmSync(work, { recursive: true, force: true });
});

describe("an export of the generated corpus", () => {
  const exported: Partial<Record<ExportFormat, ExportManifest>> = {};

  beforeAll(async () => {
    const dataDir = join(work, "demo-slice");
    const corpus = createDemoCorpus();
    const state = PipelineState.open(join(dataDir, "pipeline", "state.db"));
    try {
      await importAndPublish({ dataDir, state, log: () => {}, input: inputOf(Array.from({ length: SLICE }, (_, i) => corpus.videoAt(i))) });
    } finally {
      state.close();
    }
    for (const format of ["parquet", "jsonl"] as const) {
      exported[format] = await exportDataset({ dataDir, format, outDir: join(work, `demo-${format}`) });
    }
  }, 120_000);

  it("is well under its gzip-compressed JSON Lines export as Parquet", () => {
    const sizes = Object.fromEntries(
      (["transcripts", "videos", undefined] as const).map((table) => [
        table ?? "all",
        Object.fromEntries((["parquet", "jsonl"] as const).map((format) => [format, table ? tableBytes(exported[format]!, table) : totalBytes(exported[format]!)])),
      ]),
    ) as Record<string, Record<ExportFormat, number>>;
    // The transcripts are most of the bytes: each track's text stored once, in its segments, with zstd at a level above gzip's.
    expect(sizes.transcripts!.parquet, JSON.stringify(sizes)).toBeLessThan(sizes.transcripts!.jsonl * 0.85);
    // The videos table is a few percent of the whole; at this size a Parquet file's fixed costs (footer, page headers) make it about even.
    expect(sizes.all!.parquet, JSON.stringify(sizes)).toBeLessThan(sizes.all!.jsonl * 0.85);
  });
});

describe.each(["parquet", "jsonl"] as const)("an export of version 1 as %s", (format) => {
  const source = join(V1, format);

  it("is built by build --input into a set that exports the same rows; its text column was the segments' texts joined", async () => {
    expect(readExportManifest(source).version).toBe(1);
    // Version 1 held each transcript's text twice: in `text`, and in its segments.
    const [joined] = await rows(
      `SELECT count(*) AS n, count(*) FILTER (WHERE text = array_to_string(list_transform(segments, s -> s.text), ' ')) AS same FROM ${read(source, format, "transcripts")}`,
    );
    expect(Number(joined!.n)).toBe(6);
    expect(Number(joined!.same)).toBe(6);

    const dataDir = join(work, `v1-${format}`);
    const built = cli(["build", "--input", source], dataDir);
    expect(built.status, built.stderr).toBe(EXIT.ok);
    const again = join(work, `v1-again-${format}`);
    const manifest = await exportDataset({ dataDir, format, outDir: again });
    expect(manifest.counts).toEqual(readExportManifest(source).counts);
    for (const table of TABLES) {
      // The columns of this version, read from both exports.
      const columns = COLUMNS[table].map((c) => `"${c.name}"`).join(", ");
      const [difference] = await rows(
        `SELECT (SELECT count(*) FROM (SELECT ${columns} FROM ${read(source, format, table)} EXCEPT ALL SELECT ${columns} FROM ${read(again, format, table)})) +
                (SELECT count(*) FROM (SELECT ${columns} FROM ${read(again, format, table)} EXCEPT ALL SELECT ${columns} FROM ${read(source, format, table)})) AS n`,
      );
      expect(Number(difference!.n), table).toBe(0);
    }
  }, 60_000);
});
