/**
 * Every staged chunk's list (kmeans.ts `listOf`), in id order: the chunks
 * split into as many consecutive id ranges as there are cores, each placed
 * by a worker thread reading the staging file itself (place-chunks-worker.ts),
 * or on this thread for a small set, where starting threads costs more.
 */
import Database from "better-sqlite3";
import { availableParallelism } from "node:os";
import { int8Vector, unitVector } from "../artifact/vectors/index.js";
import { tsWorker } from "../artifact/worker-thread/index.js";
import { listOf, type ListCentroids } from "./kmeans.js";

/** Sets of fewer chunks are placed on the calling thread. */
const THREADED_FROM = 200_000;
/** Rows between two progress reports. */
export const PLACE_REPORT_ROWS = 50_000;

export interface PlaceWorkerData {
  path: string;
  firstId: number;
  lastId: number;
  centroids: ListCentroids;
}

export type PlaceReply = { done: number } | { lists: Int32Array } | { error: string };

/** The lists of the chunks of `path` with ids firstId..lastId, in id order; `progress` after every PLACE_REPORT_ROWS rows. */
export function placeRange(db: Database.Database, firstId: number, lastId: number, centroids: ListCentroids, progress: (done: number) => void): Int32Array {
  const dims = centroids.dims;
  const count = db.prepare("SELECT count(*) FROM chunks WHERE id BETWEEN ? AND ?").pluck().get(firstId, lastId) as number;
  const lists = new Int32Array(count);
  const x = new Float32Array(dims);
  let i = 0;
  // A chunk carried over in the previous set's list (the lists kept: write-lists.ts) stays there.
  const rows = db.prepare("SELECT c.vector, k.list FROM chunks c LEFT JOIN carried_lists k ON k.id = c.id WHERE c.id BETWEEN ? AND ? ORDER BY c.id").raw();
  for (const [vector, carried] of rows.iterate(firstId, lastId) as Iterable<[Buffer, number | null]>) {
    lists[i] = carried ?? listOf(centroids, vector.length === dims ? unitVector(int8Vector(vector), x) : x.fill(0));
    if (++i % PLACE_REPORT_ROWS === 0) progress(i);
  }
  return lists;
}

export interface PlaceOptions {
  /** Threads to use (default: one per core, none for a small set). */
  threads?: number | undefined;
  /** Chunks placed so far, at most every PLACE_REPORT_ROWS a thread. */
  progress: (done: number) => void;
  signal?: AbortSignal | undefined;
}

/** The list of each chunk of the staged `db` whose ids are `ids` (ascending), in that order. */
export async function placeChunks(db: Database.Database, ids: Int32Array, centroids: ListCentroids, options: PlaceOptions): Promise<Int32Array> {
  // Each count once: the threads' last reports may already add up to the whole.
  let reported = -1;
  const progress = (done: number) => {
    if (done !== reported) options.progress((reported = done));
  };
  const threads = options.threads ?? (ids.length < THREADED_FROM ? 0 : availableParallelism());
  if (threads === 0 || ids.length === 0) {
    const lists = ids.length === 0 ? new Int32Array(0) : placeRange(db, ids[0]!, ids[ids.length - 1]!, centroids, (done) => {
      options.signal?.throwIfAborted();
      progress(done);
    });
    progress(ids.length);
    return lists;
  }
  const parts = Math.min(threads, ids.length);
  const done = new Array<number>(parts).fill(0);
  const workers = Array.from({ length: parts }, (_, p) => {
    const from = Math.floor((p * ids.length) / parts);
    const to = Math.floor(((p + 1) * ids.length) / parts) - 1;
    const data: PlaceWorkerData = { path: db.name, firstId: ids[from]!, lastId: ids[to]!, centroids };
    return tsWorker(new URL("./place-chunks-worker.ts", import.meta.url), data);
  });
  const abort = () => workers.forEach((worker) => void worker.terminate());
  options.signal?.addEventListener("abort", abort, { once: true });
  try {
    const results = await Promise.all(
      workers.map(
        (worker, p) =>
          new Promise<Int32Array>((resolve, reject) => {
            worker.on("message", (reply: PlaceReply) => {
              if ("done" in reply) {
                done[p] = reply.done;
                progress(done.reduce((a, b) => a + b, 0));
              } else if ("lists" in reply) resolve(reply.lists);
              else reject(new Error(`Placing chunks in lists failed: ${reply.error}`));
            });
            worker.on("error", reject);
            worker.on("exit", (code) => reject(new Error(`A thread placing chunks in lists exited with code ${code}`)));
          }),
      ),
    );
    options.signal?.throwIfAborted();
    const lists = new Int32Array(ids.length);
    let at = 0;
    for (const part of results) {
      lists.set(part, at);
      at += part.length;
    }
    progress(ids.length);
    return lists;
  } finally {
    options.signal?.removeEventListener("abort", abort);
    abort();
  }
}
