/**
 * A read-ahead thread of the warm-up (prime.ts): runs each job's statement
 * to its end on its own read-only connection, discarding the rows, so the
 * pages it reads are in the operating system's cache when the warm-up
 * reads them; says "done" when all have run.
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import type { PrimeWorkerData } from "./prime.js";

const { path, jobs } = workerData as PrimeWorkerData;
const db = new Database(path, { readonly: true, fileMustExist: true });
db.pragma("mmap_size = 0");
db.pragma("cache_size = 64");
for (const job of jobs) for (const row of db.prepare(job.sql).raw().iterate(...job.args)) void row;
db.close();
parentPort!.postMessage("done");
