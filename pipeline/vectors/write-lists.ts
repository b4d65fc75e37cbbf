/**
 * vectors.db written from the staged chunks (STAGED_CHUNKS_DDL, in
 * transcript order): an inverted-file index. Centroids are trained on an
 * evenly spaced sample (kmeans.ts), every chunk is placed in the list of its
 * nearest centroid (place-chunks.ts, a thread a core), and the chunks are written list by list, so that a
 * list's chunks have consecutive ids and `lists` gives each list's centroid
 * and id range. A search then reads the lists nearest its query, not every
 * chunk (server/search/semantic/vector-index.ts).
 */
import Database from "better-sqlite3";
import { int8Vector, unitVector, VECTORS_DDL, VECTORS_INDEXES_DDL, vectorBytes, writeVectorsMeta, type StoredLists, type VectorsMeta } from "../artifact/vectors/index.js";
import { etaProgress } from "./eta-progress.js";
import { ITERATIONS, SHORTLIST, trainLists, withBits, type ListCentroids } from "./kmeans.js";
import { placeChunks } from "./place-chunks.js";

/** Most lists of a set. */
export const MAX_LISTS = 8192;
/**
 * Lists per √chunks. Fewer lists than the set has topics make lists that mix several, and a chunk between
 * two topics then lands in the list where its second topic is less diluted, away from the lists a query of
 * its first reads (docs/search.md): 2√chunks, not the textbook √chunks.
 */
const LISTS_PER_ROOT = 2;
/** Sample vectors per list for training. */
const SAMPLE_PER_LIST = 24;

/** How the lists were made, recorded in the file's meta (`lists`): a file made otherwise is told apart. */
export const LISTS_METHOD = `${LISTS_PER_ROOT}√chunks lists (at most ${MAX_LISTS}), k-means, ${ITERATIONS} passes over ${SAMPLE_PER_LIST} sample vectors a list, the smallest lists moved onto poorly fitting rows; nearest by cosine among the ${SHORTLIST} nearest by sign bits`;

/** The lists of a set of `chunks` chunks: 2√chunks lists of about √chunks/2 chunks each, up to MAX_LISTS. */
export function listCount(chunks: number): number {
  return Math.min(MAX_LISTS, Math.max(1, Math.ceil(LISTS_PER_ROOT * Math.sqrt(chunks))));
}

export interface WriteListsOptions {
  log: (line: string) => void;
  signal?: AbortSignal | undefined;
  intervalMs?: number;
  /** Threads placing the chunks (place-chunks.ts; default by the set's size and the cores). */
  threads?: number | undefined;
  /** The previous set's lists (made by LISTS_METHOD), whose chunks the staging file's carried_lists place. */
  previousLists?: StoredLists | undefined;
}

/**
 * Whether a build keeps the previous set's lists: when at least half of its chunks were carried over (each then
 * stays in its list, and only the others are placed) and the set has not outgrown them (listCount grows as √chunks).
 * Otherwise the lists are trained anew and every chunk placed.
 */
export function keepsLists(previousLists: number, chunks: number, carried: number): boolean {
  return previousLists > 0 && carried * 2 >= chunks && previousLists * 1.5 >= listCount(chunks);
}

/** Writes `outPath` (must not exist) from the staged chunks of `staged` and `meta`; the number of lists. */
export async function writeListedVectors(staged: Database.Database, outPath: string, meta: VectorsMeta, options: WriteListsOptions): Promise<number> {
  const dims = meta.embedder.dimensions;
  const ids = Int32Array.from(staged.prepare("SELECT id FROM chunks ORDER BY id").pluck().iterate() as Iterable<number>);
  const carried = staged.prepare("SELECT count(*) FROM carried_lists").pluck().get() as number;
  const previous = options.previousLists;
  let centroids: ListCentroids;
  if (previous !== undefined && keepsLists(previous.first.length, ids.length, carried)) {
    centroids = withBits(previous.centroids, dims);
    options.log(
      `vectors: the previous set's ${previous.first.length.toLocaleString("en-US")} lists kept; ${carried.toLocaleString("en-US")} chunks stay in theirs, ${(ids.length - carried).toLocaleString("en-US")} to place`,
    );
  } else {
    staged.exec("DELETE FROM carried_lists");
    centroids = trainSampled(staged, ids, dims, options.log);
  }
  const lists = centroids.leaves.length / dims;
  const progress = etaProgress(options.log, "vectors: placing chunks in lists", ids.length, options.intervalMs ?? 10_000);
  const listOfChunk = await placeChunks(staged, ids, centroids, { threads: options.threads, progress, signal: options.signal });

  // Positions by list (a counting sort), then the chunks written in that order.
  const listFrom = new Int32Array(lists + 1);
  for (const list of listOfChunk) listFrom[list + 1]!++;
  for (let l = 0; l < lists; l++) listFrom[l + 1]! += listFrom[l]!;
  const order = new Int32Array(ids.length);
  const next = listFrom.slice(0, lists);
  listOfChunk.forEach((list, position) => (order[next[list]!++] = position));

  const out = new Database(outPath);
  try {
    out.pragma("journal_mode = OFF");
    out.pragma("synchronous = OFF");
    out.exec(VECTORS_DDL);
    const row = staged.prepare<[number], unknown[]>("SELECT video, channel, published, start, seg_from, seg_to, hash, vector FROM chunks WHERE id = ?").raw();
    const insert = out.prepare("INSERT INTO chunks (id, video, channel, published, start, seg_from, seg_to, hash, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const insertList = out.prepare("INSERT INTO lists (id, centroid, first, last) VALUES (?, ?, ?, ?)");
    out.exec("BEGIN");
    for (let l = 0; l < lists; l++) {
      if (listFrom[l] === listFrom[l + 1]) continue;
      for (let p = listFrom[l]!; p < listFrom[l + 1]!; p++) insert.run(p + 1, ...row.get(ids[order[p]!]!)!);
      insertList.run(l, vectorBytes(centroids.leaves.subarray(l * dims, (l + 1) * dims)), listFrom[l]! + 1, listFrom[l + 1]!);
      if (l % 64 === 63) {
        out.exec("COMMIT; BEGIN");
        options.signal?.throwIfAborted();
      }
    }
    out.exec("COMMIT");
    out.exec(VECTORS_INDEXES_DDL);
    out.prepare("INSERT INTO meta (key, value) VALUES ('lists', ?)").run(LISTS_METHOD);
    writeVectorsMeta(out, meta);
  } finally {
    out.close();
  }
  return lists;
}

/** Centroids trained on an evenly spaced sample of the staged chunks (listCount lists, SAMPLE_PER_LIST vectors each). */
function trainSampled(staged: Database.Database, ids: Int32Array, dims: number, log: (line: string) => void): ListCentroids {
  const wanted = listCount(ids.length);
  const vectorOf = staged.prepare<[number], Buffer>("SELECT vector FROM chunks WHERE id = ?").pluck();
  const sampleSize = Math.min(ids.length, wanted * SAMPLE_PER_LIST);
  const sample = new Float32Array(sampleSize * dims);
  for (let i = 0; i < sampleSize; i++) unitVector(int8Vector(vectorOf.get(ids[Math.floor((i * ids.length) / sampleSize)]!)!), sample.subarray(i * dims, (i + 1) * dims));
  const centroids = trainLists(sample, dims, wanted);
  log(`vectors: ${(centroids.leaves.length / dims).toLocaleString("en-US")} lists trained on ${sampleSize.toLocaleString("en-US")} chunks`);
  return centroids;
}
