/**
 * Worker threads that run SQLite: their code is plain CommonJS evaluated in
 * the worker, so it runs the same under tsx, vitest and node, and they load
 * the same better-sqlite3 as the thread that starts them.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * A worker thread running `source`, with `workerData.path` the database file
 * and `workerData.driver` better-sqlite3's entry point.
 */
export function sqliteWorker(source: string, path: string, data: Record<string, unknown> = {}): Worker {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  return new Worker(source, { eval: true, workerData: { ...data, path, driver } });
}
