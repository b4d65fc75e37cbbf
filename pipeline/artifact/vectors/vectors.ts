/**
 * The vectors of an artifact set (`vectors.db`, beside the database and
 * hashed by the manifest like it): one row per chunk of a primary transcript,
 * its vector quantized to int8 for re-ranking and exact search, and its sign
 * bits in a sqlite-vec `vec0` table for the approximate first pass; both
 * carry the columns the search filters need (channel row, rank, date). The embedder that made them is recorded,
 * so a server whose query embedder differs can refuse rather than compare
 * vectors of two models.
 */
import type Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { z } from "zod";

export const VECTORS_FILE = "vectors.db";

/** Bump when the tables below or the chunking change. */
export const VECTORS_VERSION = "1";

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

/** The tables of vectors.db; the vec0 table needs sqlite-vec loaded (`loadVectorExtension`). */
export function vectorsDdl(dimensions: number): string {
  return `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
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
);
CREATE INDEX chunks_by_video ON chunks(video, start);
CREATE INDEX chunks_by_hash ON chunks(hash);
CREATE VIRTUAL TABLE chunk_bits USING vec0(embedding bit[${dimensions}], channel integer, video integer, published text);
`;
}

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

/** A vector's sign bits, packed as sqlite-vec's bit vectors (bit i of byte i/8, lowest first): the approximate pass's key. */
export function signBits(vector: Int8Array | Float32Array): Buffer {
  const out = Buffer.alloc(Math.ceil(vector.length / 8));
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) out[i >> 3]! |= 1 << (i & 7);
  return out;
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
