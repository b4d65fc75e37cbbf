/** Builds real artifact sets in temp directories for tests, and damages them as a bad disk or copy would. */
import Database from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildArtifacts } from "../../pipeline/build/build-artifacts.js";
import { writeManifest } from "../../pipeline/artifact/manifest/manifest.js";
import { ARTIFACT_FILES, type Manifest, type VideoRecord } from "../../pipeline/artifact/contract/contract.js";

export interface TempArtifacts {
  root: string;
  dir: string;
  cleanup: () => void;
}

export async function buildTempArtifacts(records: VideoRecord[], dataset = "test"): Promise<TempArtifacts> {
  const root = mkdtempSync(join(tmpdir(), "ts-artifacts-"));
  const dir = join(root, "set");
  await buildArtifacts({ records, outDir: dir, dataset });
  return { root, dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The database file of the artifact set in `dir`. */
function databaseFile(dir: string): string {
  return join(dir, ARTIFACT_FILES.database);
}

/**
 * Overwrites `count` runs of `bytes` random bytes spread evenly over the set's
 * database (same size, as a bad disk or a bad copy would leave it). Returns the offsets.
 */
export function corruptDatabase(dir: string, count = 4, bytes = 64 * 1024): number[] {
  const file = databaseFile(dir);
  const size = statSync(file).size;
  const fd = openSync(file, "r+");
  try {
    const offsets = Array.from({ length: count }, (_, i) => Math.min(size - bytes, Math.floor((size * (i + 1)) / (count + 1) / bytes) * bytes));
    for (const offset of offsets) writeSync(fd, randomBytes(bytes), 0, bytes, offset);
    return offsets;
  } finally {
    closeSync(fd);
  }
}

/** Overwrites every page of one table of the set's database with random bytes (same size). Returns how many pages. */
export function corruptTable(dir: string, table: string): number {
  const file = databaseFile(dir);
  const db = new Database(file, { readonly: true });
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const pages = db.prepare("SELECT pageno FROM dbstat WHERE name = ?").pluck().all(table) as number[];
  db.close();
  const fd = openSync(file, "r+");
  try {
    for (const page of pages) writeSync(fd, randomBytes(pageSize), 0, pageSize, (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
  return pages.length;
}

/** Grows the set's database by `mib` MiB of padding (a table the server never reads), so hashing it takes a while. */
export function padDatabase(dir: string, mib: number): void {
  const db = new Database(databaseFile(dir));
  db.exec("CREATE TABLE test_padding (b BLOB)");
  const insert = db.prepare("INSERT INTO test_padding VALUES (randomblob(1048576))");
  db.transaction(() => {
    for (let i = 0; i < mib; i++) insert.run();
  })();
  db.close();
}

/** Rewrites the set's manifest with the hashes of its files as they are now (same counts, dataset and build time). */
export async function restampManifest(dir: string): Promise<void> {
  const manifest = readManifestUnchecked(dir);
  await writeManifest(dir, { dataset: manifest.dataset, builtAt: manifest.builtAt, counts: manifest.counts, liveSeq: manifest.liveSeq });
}

function readManifestUnchecked(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, ARTIFACT_FILES.manifest), "utf8")) as Manifest;
}
