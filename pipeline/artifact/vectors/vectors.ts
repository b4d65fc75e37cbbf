/**
 * The vectors of an artifact set (`vectors.db`, beside the database and
 * hashed by the manifest like it): one row per chunk of a primary transcript,
 * its vector quantized to int8, with the columns the search filters need
 * (channel row, rank, date). The chunks are grouped into lists by their
 * nearest centroid (an inverted-file index, pipeline/vectors/write-lists.ts):
 * a list's chunks have consecutive ids, and `lists` holds each list's
 * centroid and id range, so a search reads only the lists nearest the query.
 * The embedder that made them is recorded, so a server whose query embedder
 * differs can refuse rather than compare vectors of two models.
 */
import type Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { z } from "zod";

export const VECTORS_FILE = "vectors.db";

/** Bump when the tables below or the chunking change. */
export const VECTORS_VERSION = "2";
/** Versions whose chunks (hash and vector, chunked as now) a build carries over: 1 had no lists. */
export const CARRIED_VECTORS_VERSIONS: readonly string[] = ["1", "2"];

/** Which embedder made a set's vectors: its kind, its model and the vectors' length. */
export const EmbedderIdentity = z.object({
  kind: z.enum(["builtin", "url"]),
  model: z.string(),
  dimensions: z.number().int().positive(),
});
export type EmbedderIdentity = z.infer<typeof EmbedderIdentity>;

/** The built-in embedder's identity (pipeline/embeddings/builtin-embedder.ts). */
export const BUILTIN_EMBEDDER: EmbedderIdentity = { kind: "builtin", model: "universal-sentence-encoder-lite", dimensions: 512 };

export function sameEmbedder(a: EmbedderIdentity, b: EmbedderIdentity): boolean {
  return a.kind === b.kind && a.model === b.model && a.dimensions === b.dimensions;
}

export function describeEmbedder(identity: EmbedderIdentity): string {
  return identity.kind === "builtin" ? `the built-in ${identity.model} (${identity.dimensions} dimensions)` : `EMBEDDINGS_URL model "${identity.model}" (${identity.dimensions} dimensions)`;
}

const CHUNKS_TABLE = `
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  video INTEGER NOT NULL,
  channel INTEGER NOT NULL,
  published TEXT NOT NULL,
  start REAL NOT NULL,
  seg_from INTEGER NOT NULL,
  seg_to INTEGER NOT NULL,
  hash BLOB NOT NULL,
  vector BLOB NOT NULL
);`;

/**
 * The chunks as the embedding step writes them, in transcript order, before they are put in lists;
 * `carried_lists`: the list a chunk carried over from the previous set had there (write-lists.ts).
 */
export const STAGED_CHUNKS_DDL = `${CHUNKS_TABLE}
CREATE INDEX chunks_by_video ON chunks(video, start);
CREATE TABLE carried_lists (id INTEGER PRIMARY KEY, list INTEGER NOT NULL);`;

/** The tables of vectors.db, filled before VECTORS_INDEXES_DDL is run. */
export const VECTORS_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE lists (id INTEGER PRIMARY KEY, centroid BLOB NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL);
${CHUNKS_TABLE}`;

/** The indexes of vectors.db: a video's chunks (and the minViews filter), a channel's, and the carry-over by hash. */
export const VECTORS_INDEXES_DDL = `
CREATE INDEX chunks_by_video ON chunks(video, start);
CREATE INDEX chunks_by_channel ON chunks(channel);
CREATE INDEX chunks_by_hash ON chunks(hash);`;

export function loadVectorExtension(db: Database.Database): void {
  sqliteVec.load(db);
}

/** A vector as stored for re-ranking: int8, scaled so its largest component is ±127 (cosine ignores the scale). */
export function quantizeInt8(vector: Float32Array): Int8Array {
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  const out = new Int8Array(vector.length);
  if (max === 0) return out;
  const scale = 127 / max;
  for (let i = 0; i < vector.length; i++) out[i] = Math.round(vector[i]! * scale);
  return out;
}

/** A unit-length copy (the lists' centroids are unit vectors, compared by dot product) of an int8 (or float) vector, as floats; a zero vector stays zero. */
export function unitVector(vector: ArrayLike<number>, out = new Float32Array(vector.length)): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * scale;
  return out;
}

/** The dot product of `x` with row `row` of `rows` (rows of x.length floats). */
export function dotRow(x: Float32Array, rows: Float32Array, row: number): number {
  const dims = x.length;
  const o = row * dims;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (; d + 3 < dims; d += 4) {
    s0 += x[d]! * rows[o + d]!;
    s1 += x[d + 1]! * rows[o + d + 1]!;
    s2 += x[d + 2]! * rows[o + d + 2]!;
    s3 += x[d + 3]! * rows[o + d + 3]!;
  }
  for (; d < dims; d++) s0 += x[d]! * rows[o + d]!;
  return s0 + s1 + s2 + s3;
}

/** A stored int8 vector (a BLOB) as an Int8Array over the same bytes. */
export function int8Vector(blob: Buffer): Int8Array {
  return new Int8Array(blob.buffer, blob.byteOffset, blob.byteLength);
}

/** The lists of a format-2 vectors.db, in id order: each one's unit centroid (a row of `dims` in `centroids`) and id range. */
export interface StoredLists {
  centroids: Float32Array;
  first: Int32Array;
  last: Int32Array;
}

export function readLists(db: Database.Database, dims: number): StoredLists {
  const rows = db.prepare("SELECT centroid, first, last FROM lists ORDER BY id").raw().all() as [Buffer, number, number][];
  const centroids = new Float32Array(rows.length * dims);
  rows.forEach(([centroid], i) => centroids.set(new Float32Array(centroid.buffer.slice(centroid.byteOffset, centroid.byteOffset + centroid.byteLength)), i * dims));
  return { centroids, first: Int32Array.from(rows, (row) => row[1]), last: Int32Array.from(rows, (row) => row[2]) };
}

/** The index (in `lists`) of the list holding chunk `id`, or -1: the lists' id ranges ascend and do not overlap. */
export function listHolding(lists: StoredLists, id: number): number {
  let lo = 0;
  let hi = lists.first.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (lists.last[mid]! < id) lo = mid + 1;
    else if (lists.first[mid]! > id) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** A vector as its bytes, for a BLOB or sqlite-vec argument. */
export function vectorBytes(vector: Float32Array | Int8Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Cosine similarity of two vectors of one length. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

export interface VectorsMeta {
  embedder: EmbedderIdentity;
  version: string;
  chunks: number;
  transcripts: number;
}

export function writeVectorsMeta(db: Database.Database, meta: VectorsMeta): void {
  const put = db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
  put.run("embedder", JSON.stringify(meta.embedder));
  put.run("version", meta.version);
  put.run("chunks", String(meta.chunks));
  put.run("transcripts", String(meta.transcripts));
}

/** The meta of a vectors.db, or an error naming what is wrong with it. */
export function readVectorsMeta(db: Database.Database): VectorsMeta {
  const rows = new Map((db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((row) => [row.key, row.value]));
  const embedder = EmbedderIdentity.parse(JSON.parse(rows.get("embedder") ?? "null"));
  return { embedder, version: rows.get("version") ?? "", chunks: Number(rows.get("chunks") ?? 0), transcripts: Number(rows.get("transcripts") ?? 0) };
}
