/**
 * A set's vectors (vectors.db, pipeline/artifact/vectors/) opened for
 * search: the chunks nearest a query vector under the search filters.
 * Small sets are searched exactly (every chunk's int8 vector compared, in
 * SQLite through sqlite-vec); larger ones in two passes: the nearest by the
 * Hamming distance of their sign bits (sqlite-vec's vec0 KNN, the filters
 * among its metadata columns), then those candidates re-ranked by the cosine
 * of their int8 vectors. Both passes run in C inside SQLite.
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadVectorExtension, quantizeInt8, readVectorsMeta, signBits, VECTORS_FILE, vectorBytes, type VectorsMeta } from "../../../pipeline/artifact/vectors/index.js";
import type { ChunkCondition } from "./vector-filters.js";

/** Sets of at most this many chunks are searched exactly. */
export const EXACT_MAX_CHUNKS = 100_000;
/** Candidates of the approximate pass per chunk wanted: the re-rank's margin for what sign bits misorder. */
export const OVERSAMPLE = 8;
/** sqlite-vec's largest k. */
const KNN_MAX = 4096;

export interface NearChunk {
  id: number;
  /** The video's id in the set's database (its popularity rank). */
  video: number;
  start: number;
  segFrom: number;
  segTo: number;
  /** Cosine similarity to the query (of the int8 vectors), -1 to 1. */
  score: number;
}

export class VectorIndex {
  readonly meta: VectorsMeta;
  readonly #db: Database.Database;

  private constructor(db: Database.Database) {
    this.#db = db;
    this.meta = readVectorsMeta(db);
  }

  /** The set's vectors, or undefined when it has none. */
  static open(dir: string): VectorIndex | undefined {
    const path = join(dir, VECTORS_FILE);
    if (!existsSync(path)) return undefined;
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      loadVectorExtension(db);
      return new VectorIndex(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The `k` chunks nearest `query` meeting `where`, nearest first; `exact` forces (or forbids) the exact search, default by the set's size. */
  nearest(query: Float32Array, k: number, where: ChunkCondition, exact = this.meta.chunks <= EXACT_MAX_CHUNKS): NearChunk[] {
    if (where.none || k <= 0) return [];
    const q = vectorBytes(quantizeInt8(query));
    const filter = where.sql.length > 0 ? ` AND ${where.sql.join(" AND ")}` : "";
    if (exact) {
      return this.#db
        .prepare(
          `SELECT id, video, start, seg_from AS segFrom, seg_to AS segTo, 1 - vec_distance_cosine(vec_int8(vector), vec_int8(?)) AS score
           FROM chunks WHERE length(vector) > 0${filter} ORDER BY score DESC, id LIMIT ?`,
        )
        .all(q, ...where.params, k) as NearChunk[];
    }
    const candidates = Math.min(KNN_MAX, k * OVERSAMPLE);
    const ids = this.#db
      .prepare(`SELECT rowid FROM chunk_bits WHERE embedding MATCH vec_bit(?) AND k = ?${filter}`)
      .pluck()
      .all(signBits(quantizeInt8(query)), candidates, ...where.params) as number[];
    if (ids.length === 0) return [];
    return this.#db
      .prepare(
        `SELECT id, video, start, seg_from AS segFrom, seg_to AS segTo, 1 - vec_distance_cosine(vec_int8(vector), vec_int8(?)) AS score
         FROM chunks WHERE id IN (SELECT value FROM json_each(?)) ORDER BY score DESC, id LIMIT ?`,
      )
      .all(q, JSON.stringify(ids), k) as NearChunk[];
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
