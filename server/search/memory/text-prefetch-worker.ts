/**
 * A read-ahead thread of a query's texts (text-prefetch.ts): says "ready"
 * once its read-only connection is open, then for each list of video ids it
 * is sent reads their texts (and timings, when asked) and counts the batch and the rows read in the
 * shared counters, waking the waiting search. A connection that fails to
 * open reads nothing and still counts its batches.
 */
import type Database from "better-sqlite3";
import { openArtifactDatabase } from "../../data/artifact-database.js";
import { parentPort, workerData } from "node:worker_threads";
import { PREFETCH_DONE, PREFETCH_ROWS, type TextPrefetchBatch, type TextPrefetchWorkerData } from "./text-prefetch.js";

const { path, counters: shared } = workerData as TextPrefetchWorkerData;
const counters = new Int32Array(shared);
let db: Database.Database | undefined;
try {
  db = openArtifactDatabase(path);
  db.pragma("mmap_size = 0");
  db.pragma("cache_size = 64");
} catch {
  db = undefined;
}
const text = db?.prepare("SELECT length(t.script) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck();
// The timings follow the text in the row: their last byte is read (not only their length, which SQLite takes from the row's header).
const withTimings = db?.prepare("SELECT length(t.script) + length(substr(t.timings, -1)) FROM videos v JOIN transcripts t ON t.id = v.transcript WHERE v.id = ?").pluck();
parentPort!.postMessage("ready");
parentPort!.on("message", ({ ids, timings }: TextPrefetchBatch) => {
  let rows = 0;
  try {
    const statement = timings ? withTimings : text;
    if (statement) for (const id of ids) if (statement.get(id) !== undefined) rows++;
  } catch {
    // A read that fails is only a text not read ahead: the search reads it itself.
  }
  Atomics.add(counters, PREFETCH_ROWS, rows);
  Atomics.add(counters, PREFETCH_DONE, 1);
  Atomics.notify(counters, PREFETCH_DONE);
});
