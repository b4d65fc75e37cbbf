/**
 * The export's layout on disk: `build --input` reads the exports of version 1
 * found in the wild; test/fixtures/export-v1/ are two such exports.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLUMNS, TABLES, type ExportFormat } from "../../pipeline/export/dataset-schema.js";
import { exportDataset } from "../../pipeline/export/export-dataset.js";
import { readExportManifest } from "../../pipeline/export/read-export.js";
import { EXIT } from "../../pipeline/run/exit-codes.js";

const REPO = join(import.meta.dirname, "..", "..");
const V1 = join(REPO, "test", "fixtures", "export-v1");

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

describe.each(["parquet", "jsonl"] as const)("an export of version 1 as %s", (format) => {
  const source = join(V1, format);

  it("is built by build --input into a set that exports the same rows; its text column was the segments' texts joined", async () => {
    expect(readExportManifest(source).version).toBe(1);
    // Its `text` column is the segments' texts joined.
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
