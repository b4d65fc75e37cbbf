/**
 * A set's vectors (vectors.db, pipeline/artifact/vectors/) opened for
 * search: the chunks nearest a query vector under the search filters, by the
 * cosine of their int8 vectors (sqlite-vec's, in C inside SQLite). Small sets,
 * and filters that leave few chunks (a channel, a high minViews, through
 * their indexes), are searched exactly; otherwise the lists whose centroids
 * are nearest the query are read (an inverted-file index: a list is a range
 * of chunk ids), more of them when a filter leaves fewer than asked for,
 * until enough chunks are found or every list is read.
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  dotRow,
  loadVectorExtension,
  quantizeInt8,
  readLists,
  readVectorsMeta,
  unitVector,
  VECTORS_FILE,
  VECTORS_VERSION,
  vectorBytes,
  type StoredLists,
  type VectorsMeta,
} from "../../../pipeline/artifact/vectors/index.js";
import type { ChunkCondition } from "./vector-filters.js";

/** Searches expected to compare at most this many chunks are exact. */
export const EXACT_MAX_CHUNKS = 100_000;
/** Lists read first for a search without filters (scaled up by the share of chunks a filter leaves). */
export const PROBES = 16;

/** A vectors.db this server cannot read: of another format version. */
export class VectorsFormatError extends Error {
  override name = "VectorsFormatError";
}

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

const SELECT = `SELECT id, video, start, seg_from AS segFrom, seg_to AS segTo, 1 - vec_distance_cosine(vec_int8(vector), vec_int8(?)) AS score`;

export class VectorIndex {
  readonly meta: VectorsMeta;
  readonly #db: Database.Database;
  readonly #lists: StoredLists;

  private constructor(db: Database.Database) {
    this.#db = db;
    this.meta = readVectorsMeta(db);
    if (this.meta.version !== VECTORS_VERSION) {
      throw new VectorsFormatError(`The served set's vectors are of format ${this.meta.version || "unknown"}, this server reads ${VECTORS_VERSION}: build the set again (its vectors are carried over, not embedded again). mode=keyword works.`);
    }
    this.#lists = readLists(db, this.meta.embedder.dimensions);
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

  /** How many lists the chunks are in. */
  get lists(): number {
    return this.#lists.first.length;
  }

  /** The `k` chunks nearest `query` meeting `where`, nearest first; `exact` forces (or forbids) the exact search, default by the chunks the filters leave; `probes`: the lists read first without filters. */
  nearest(query: Float32Array, k: number, where: ChunkCondition, exact?: boolean, probes = PROBES): NearChunk[] {
    if (where.none || k <= 0) return [];
    const q = vectorBytes(quantizeInt8(query));
    const filter = where.sql.length > 0 ? ` AND ${where.sql.join(" AND ")}` : "";
    const { chunks, transcripts } = this.meta;
    const matching = where.transcripts === undefined ? chunks : Math.min(chunks, Math.ceil((where.transcripts * chunks) / Math.max(1, transcripts)));
    if (exact ?? matching <= EXACT_MAX_CHUNKS) {
      return this.#db.prepare(`${SELECT} FROM chunks WHERE length(vector) > 0${filter} ORDER BY score DESC, id LIMIT ?`).all(q, ...where.params, k) as NearChunk[];
    }
    // NOT INDEXED: each list is read by its id range, never through a filter's index.
    const inList = this.#db.prepare(`${SELECT} FROM chunks NOT INDEXED WHERE id BETWEEN ? AND ? AND length(vector) > 0${filter} ORDER BY score DESC, id LIMIT ?`);
    const order = this.#listsNearest(query);
    const found: NearChunk[] = [];
    let reading = Math.min(order.length, Math.ceil((probes * chunks) / Math.max(1, matching)));
    let read = 0;
    for (;;) {
      for (; read < reading; read++) found.push(...(inList.all(q, this.#lists.first[order[read]!], this.#lists.last[order[read]!], ...where.params, k) as NearChunk[]));
      if (found.length >= k || read >= order.length) break;
      reading = Math.min(order.length, reading * 2);
    }
    return found.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, k);
  }

  /** The lists' indexes, the centroid nearest `query` first. */
  #listsNearest(query: Float32Array): number[] {
    const x = unitVector(query);
    const scores = Array.from({ length: this.lists }, (_, l) => dotRow(x, this.#lists.centroids, l));
    return scores.map((_, l) => l).sort((a, b) => scores[b]! - scores[a]! || a - b);
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
